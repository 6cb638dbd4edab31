/*
 * `stress lifetime [k=v..]`: the lifetime stress engine (lifetime.h,
 * docs/stress.md).  The shell thread parses the parameters, takes the
 * start snapshot, starts one worker per CPU (or workers=N, spread
 * round-robin), prints a progress line every two seconds and runs the
 * invariant checkers every second while they work; Ctrl-C stops the
 * run early.  Then it puts the system back (settle.c), checks the end
 * state and prints the report: ops and outcomes per kind, rmmod wait
 * times, and the line that replays the run.
 */
#include "lifetime/lifetime.h"
#include "modloader/module_internal.h"
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/lib/errno.h>
#include <kernel/lib/hash.h>
#include <kernel/debug/trace.h>
#include <kernel/debug/fault.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/panic.h>
#include <kernel/bootmod.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/schedctl.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/waitq.h>

#define PROGRESS_MS         2000
#define CHECK_MS            1000
#define DEFAULT_OPS         1000
#define DEFAULT_HOLDMAX_MS  300
#define DEFAULT_WATCHDOG_MS 30000
#define MAX_OPS             10000000
#define MAX_SECS            86400

static const char *const default_mods[] = {"e1000",   "virtio_net", "netsim",
                                           "tcp",     "sockproto",  "chain_a",
                                           "chain_b", "chain_c"};
/* mods=all: these too, every tree module that loads (badparam,
 * failinit and unresolved are built to be refused). */
static const char *const more_mods[] = {"hello", "params", "busy", "selfput"};

/* Named mixes (the console line is short): mix=cycles is weighted
 * towards insmod/rmmod for load/unload cycles (make stress-long), every
 * other op still in it; dhcp (up to 3 s) and ping (up to 0.5 s) rare,
 * or they take most of the workers' time. */
static const char *const mix_cycles =
    "insmod:160,rmmod:32,rmmod-n:80,rmmod-f:24,rmmod-intr:24,nsim-add:6,"
    "nsim-del:6,link-up:10,link-down:6,devhold:10,dhcp:1,udp:10,tcp:6,"
    "sockproto:6,tcpecho:2,read:6,refs-dev:3,check:2,ping:2";

/* splitmix64: one 64-bit state per worker, seeded from (seed, id). */
uint32_t
lt_rand(struct lt_worker *w)
{
	return (uint32_t)(splitmix64(&w->rng) >> 16);
}

static bool
op_ok(const struct lt_op *op, int r)
{
	if (r == 0)
		return true;
	for (const int *e = op->ok; *e != 0; e++)
		if (-r == *e)
			return true;
	return false;
}

static unsigned
pick_op(struct lt_worker *w)
{
	uint32_t x = lt_below(w, w->run->total_weight);

	for (unsigned i = 0; i < lt_nops; i++) {
		if (x < w->run->p.weight[i])
			return i;
		x -= w->run->p.weight[i];
	}
	return lt_nops - 1;
}

static void
fail(struct lt_worker *w, const struct lt_rec *rec, const char *why)
{
	struct lt_run *run = w->run;
	char arg[16];

	/* the first failure's timeline, before its FAIL line: a harness
	 * that rejects the line stops the run right after it */
	if (__atomic_add_fetch(&run->failures, 1, __ATOMIC_SEQ_CST) == 1 &&
	    trace_on)
		trace_dump();
	__atomic_add_fetch(&run->stats[rec->op].fails, 1, __ATOMIC_RELAXED);
	printk(LOG_ERR,
	       "stress: FAIL: seed %u worker %d op #%u %s %s: %s %s; output "
	       "(%u lines): '%s'\n",
	       (unsigned)run->p.seed, w->id, (unsigned)rec->idx,
	       lt_ops[rec->op].name,
	       lt_arg_name(&lt_ops[rec->op], rec->arg, arg, sizeof(arg)), why,
	       rec->result == 0 ? "ok" : errno_name(rec->result), w->out.lines,
	       w->out.last);
	run->stop = true;
	lt_ring_dump(run);
}

/* With faults=P, P ops in 1000 run with their Nth call at an injection
 * site failing (N from 1 to 16): any outcome is then legitimate except a
 * crash, a report or a broken invariant, and what the op took must still
 * come back (the end-state and meminfo checks). */
static void
one_op(struct lt_worker *w, uint32_t idx)
{
	struct lt_run *run = w->run;
	struct fault_ctx fc = {.sites = FAULT_ALL};
	struct lt_rec rec;
	unsigned k = run->p.script ? lt_scripts[w->id].op[idx] : pick_op(w);
	uint32_t arg = run->p.script ? lt_scripts[w->id].arg[idx] : lt_rand(w);
	bool inject = run->p.script ? lt_scripts[w->id].fault[idx] != 0
	                            : lt_below(w, 1000) < run->p.faults;
	uint64_t t0;
	int r;

	fc.nth = 1 + lt_below(w, 16);
	if (run->p.script && inject)
		fc.nth = lt_scripts[w->id].fault[idx];
	w->verdict = NULL;
	if (run->p.oplog) { /* the script: every op that started, the one
	                     * a failure interrupts too */
		char a[16];

		kprintf("stress: op w%d #%u %s:0x%x", w->id, (unsigned)idx,
		        lt_ops[k].name, (unsigned)arg);
		if (inject) /* the script's OP:ARG:N */
			kprintf(":%u", (unsigned)fc.nth);
		kprintf(" (%s)\n", lt_arg_name(&lt_ops[k], arg, a, sizeof(a)));
	}
	out_capture_begin(&w->out);
	if (inject)
		fault_set(&fc);
	t0 = now_ms();
	r = lt_ops[k].run(w, arg);
	fault_set(NULL);
	rec = (struct lt_rec){idx,
	                      (uint8_t)k,
	                      (uint8_t)fc.injected,
	                      (uint16_t)cpu_id(),
	                      arg,
	                      r,
	                      (uint32_t)(now_ms() - t0) * 1000};
	out_capture_end();
	lt_ring_add(w, &rec);
	/* under sched=pct, ops end in the schedule's order: the outcomes
	 * in that order are part of what a replay must reproduce */
	schedctl_note((uint32_t)w->id << 24 ^ (uint32_t)k << 16 ^ (uint32_t)r);
	if (run->p.oplog)
		kprintf("stress: op w%d #%u -> %s\n", w->id, (unsigned)idx,
		        r == 0 ? "ok" : errno_name(r));
	__atomic_add_fetch(&run->stats[k].count, 1, __ATOMIC_RELAXED);
	if (r != 0)
		__atomic_add_fetch(&run->stats[k].errors, 1, __ATOMIC_RELAXED);
	if (fc.injected != 0)
		__atomic_add_fetch(&run->stats[k].injected, 1,
		                   __ATOMIC_RELAXED);
	__atomic_add_fetch(&run->done_ops, 1, __ATOMIC_RELAXED);
	if (fc.injected == 0 && !op_ok(&lt_ops[k], r))
		fail(w, &rec, "unexpected result");
	else if (fc.injected == 0 && w->verdict != NULL)
		fail(w, &rec, w->verdict);
}

static uint32_t
worker_budget(const struct lt_run *run, int id)
{
	if (run->p.script)
		return lt_scripts[id].n;
	uint32_t n = run->p.ops / (uint32_t)run->p.workers;

	return n + ((uint32_t)id < run->p.ops % (uint32_t)run->p.workers);
}

static void
worker_main(void *arg)
{
	struct lt_worker *w = arg;
	struct lt_run *run = w->run;
	uint32_t budget = worker_budget(run, w->id);

	if (run->p.pct)
		schedctl_enter(w->id);
	for (uint32_t i = 0; !run->stop; i++) {
		schedctl_op(i);
		schedctl_point(); /* between ops: nothing unless pct */
		if (run->p.ops != 0 && run->p.cycles == 0 && i >= budget)
			break;
		if (run->p.secs != 0 && now_ms() >= run->deadline_ms)
			break;
		if (run->p.cycles != 0 &&
		    __atomic_load_n(&run->cycles, __ATOMIC_SEQ_CST) >=
		        run->p.cycles)
			break;
		one_op(w, i);
	}
	__atomic_store_n(&w->done, true, __ATOMIC_SEQ_CST);
	thread_exit();
}

/* ---- parameters -----------------------------------------------------------
 */

static int
set_mix(struct lt_params *p, char *s)
{
	char preset[256];

	if (strcmp(s, "cycles") == 0) {
		ASSERT(strlen(mix_cycles) < sizeof(preset));
		memcpy(preset, mix_cycles, strlen(mix_cycles) + 1);
		s = preset;
	}
	/* "only,OP:W,..": the ops named and no other (the console line is
	 * too short to set every other weight to 0). */
	if (strncmp(s, "only,", 5) == 0) {
		for (unsigned k = 0; k < lt_nops; k++)
			p->weight[k] = 0;
		s += 5;
	}
	while (*s != '\0') {
		char *colon = strchr(s, ':'), *end;
		unsigned long v;
		int k;

		if (colon == NULL)
			return -EINVAL;
		*colon = '\0';
		end = strchr(colon + 1, ',');
		if (end != NULL)
			*end = '\0';
		k = lt_op_find(s);
		if (k < 0 || parse_ulong(colon + 1, &v) != 0 || v > 1000)
			return -EINVAL;
		p->weight[k] = (unsigned)v;
		s = end != NULL ? end + 1 : colon + 1 + strlen(colon + 1);
	}
	return 0;
}

static int
set_mods(struct lt_run *run, char *s)
{
	char ko[MODULE_NAME_LEN + 4];

	run->nmods = 0;
	while (s != NULL && *s != '\0') {
		char *end = strchr(s, ',');
		if (end != NULL)
			*end++ = '\0';
		snprintf(ko, sizeof(ko), "%s.ko", s);
		if (run->nmods == LT_MODS_MAX || boot_module_find(ko) == NULL)
			return -ENOENT;
		run->mods[run->nmods++] = s;
		s = end;
	}
	return run->nmods > 0 ? 0 : -EINVAL;
}

static void
add_boot_mods(struct lt_run *run, const char *const *names, unsigned n)
{
	char ko[MODULE_NAME_LEN + 4];

	for (unsigned i = 0; i < n; i++) {
		snprintf(ko, sizeof(ko), "%s.ko", names[i]);
		if (boot_module_find(ko) != NULL && run->nmods < LT_MODS_MAX)
			run->mods[run->nmods++] = names[i];
	}
}

/* The default modules among the boot modules; with all, more_mods too. */
static void
default_mod_set(struct lt_run *run, bool all)
{
	run->nmods = 0;
	add_boot_mods(run, default_mods,
	              sizeof(default_mods) / sizeof(*default_mods));
	if (all)
		add_boot_mods(run, more_mods,
		              sizeof(more_mods) / sizeof(*more_mods));
}

static int
online_cpus(void)
{
	int n = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		n += cpus[i].state == CPU_ONLINE;
	return n;
}

/* at=M.OP.PT,M.OP.PT..: a change point's member, op and point */
static int
parse_places(struct lt_params *p, char *val)
{
	p->nat = 0;
	for (char *s = val, *next; s != NULL; s = next) {
		unsigned long f[3];
		char *end = s;

		next = strchr(s, ',');
		if (next != NULL)
			*next++ = '\0';
		if (p->nat == SCHEDCTL_DEPTH - 1)
			return -EINVAL;
		for (int i = 0; i < 3; i++) {
			char *dot = strchr(end, '.');

			if ((dot == NULL) != (i == 2))
				return -EINVAL;
			if (dot != NULL)
				*dot = '\0';
			if (parse_ulong(end, &f[i]) != 0)
				return -EINVAL;
			end = dot != NULL ? dot + 1 : NULL;
		}
		if (f[0] >= SCHEDCTL_MAX || f[1] > 0xffffffffu ||
		    f[2] >= 0xffff)
			return -EINVAL;
		p->at[p->nat++] =
		    (struct schedctl_place){.op = (uint32_t)f[1],
		                            .point = (uint16_t)f[2],
		                            .member = (uint16_t)f[0]};
	}
	return 0;
}

static int
parse(struct lt_run *run, int argc, char **argv)
{
	struct lt_params *p = &run->p;
	unsigned long v;
	bool seeded = false;
	/* depth=, steps=, settle=, at= given */
	const char *pct_knob = NULL;
	bool depth_given = false;

	p->workers = online_cpus();
	p->holdmax_ms = DEFAULT_HOLDMAX_MS;
	p->watchdog_ms = DEFAULT_WATCHDOG_MS;
	p->progress = true;
	p->depth = 3;
	p->settle_ms = 100;
	for (unsigned i = 0; i < lt_nops; i++)
		p->weight[i] = lt_ops[i].weight;
	default_mod_set(run, false);
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i];
		char *val;
		if (eq == NULL)
			return cmd_error("stress", -EINVAL,
			                 "'%s': expected KEY=VALUE", argv[i]);
		*eq = '\0';
		val = eq + 1;
		if (strcmp(k, "mix") == 0) {
			if (set_mix(p, val) != 0)
				return cmd_error(
				    "stress", -EINVAL,
				    "mix: expected OP:WEIGHT,.. with "
				    "weights 0-1000");
			continue;
		}
		if (strcmp(k, "mods") == 0 && strcmp(val, "all") == 0) {
			default_mod_set(run, true);
			continue;
		}
		if (strcmp(k, "mods") == 0) {
			if (set_mods(run, val) != 0)
				return cmd_error("stress", -ENOENT,
				                 "mods: not a list of boot "
				                 "modules");
			continue;
		}
		if (strcmp(k, "at") == 0) {
			if (parse_places(p, val) != 0)
				return cmd_error(
				    "stress", -EINVAL,
				    "at: expected MEMBER.OP.POINT,.. (at most "
				    "%d)",
				    SCHEDCTL_DEPTH - 1);
			pct_knob = k;
			continue;
		}
		if (strcmp(k, "sched") == 0) {
			if (strncmp(val, "pct:", 4) != 0 ||
			    parse_ulong(val + 4, &v) != 0 || v > 0xffffffffu)
				return cmd_error("stress", -EINVAL,
				                 "sched: expected pct:SEED");
			p->pct = true;
			p->sched_seed = (uint32_t)v;
			continue;
		}
		if (parse_ulong(val, &v) != 0)
			return cmd_error("stress", -EINVAL,
			                 "%s: '%s' is not a number", k, val);
		if (strcmp(k, "seed") == 0 && v <= 0xffffffffu) {
			p->seed = (uint32_t)v;
			seeded = true;
		} else if (strcmp(k, "ops") == 0 && v <= MAX_OPS) {
			p->ops = (uint32_t)v;
		} else if (strcmp(k, "cycles") == 0 && v <= MAX_OPS) {
			p->cycles = (uint32_t)v;
		} else if (strcmp(k, "secs") == 0 && v <= MAX_SECS) {
			p->secs = (uint32_t)v;
		} else if (strcmp(k, "workers") == 0 && v >= 1 && v <= 32) {
			p->workers = (int)v;
		} else if (strcmp(k, "holdmax") == 0 && v <= 10000) {
			p->holdmax_ms = (unsigned)v;
		} else if (strcmp(k, "watchdog") == 0 && v >= 1000 &&
		           v <= 600000) {
			p->watchdog_ms = (unsigned)v;
		} else if (strcmp(k, "tcpport") == 0 && v <= 65535) {
			p->tcpport = (unsigned)v;
		} else if (strcmp(k, "udpport") == 0 && v <= 65535) {
			p->udpport = (unsigned)v;
		} else if (strcmp(k, "faults") == 0 && v <= 1000) {
			p->faults = (unsigned)v;
		} else if (strcmp(k, "bg") == 0 && v <= 1) {
			p->bg = v != 0;
		} else if (strcmp(k, "progress") == 0 && v <= 1) {
			p->progress = v != 0;
		} else if (strcmp(k, "script") == 0 && v <= 1) {
			p->script = v != 0;
		} else if (strcmp(k, "oplog") == 0 && v <= 1) {
			p->oplog = v != 0;
		} else if (strcmp(k, "depth") == 0 && v >= 1 && v <= 8) {
			p->depth = (unsigned)v;
			pct_knob = k;
			depth_given = true;
		} else if (strcmp(k, "steps") == 0 && v >= 1 &&
		           v <= 100000000) {
			p->pct_steps = (unsigned)v;
			pct_knob = k;
		} else if (strcmp(k, "settle") == 0 && v <= 1000) {
			p->settle_ms = (unsigned)v;
			pct_knob = k;
		} else {
			return cmd_error("stress", -EINVAL,
			                 "%s=%s: unknown or out of range "
			                 "(see help stress)",
			                 k, val);
		}
	}
	if (p->ops != 0 && p->cycles != 0)
		return cmd_error("stress", -EINVAL,
		                 "ops= and cycles= both given (pick one)");
	if (p->script) {
		uint32_t n = 0;

		p->workers = lt_script_workers();
		for (int i = 0; i < p->workers; i++)
			n += lt_scripts[i].n;
		if (n == 0 || p->secs != 0 || p->cycles != 0)
			return cmd_error(
			    "stress", -EINVAL,
			    "script=1: no ops in `stress script`, or "
			    "secs=/cycles= given");
		p->ops = n;
	}
	if (p->ops == 0 && p->secs == 0 && p->cycles == 0)
		p->ops = DEFAULT_OPS;
	if (pct_knob != NULL && !p->pct)
		return cmd_error("stress", -EINVAL,
		                 "%s= is for sched=pct runs only", pct_knob);
	if (p->pct && p->pct_steps == 0)
		p->pct_steps = (p->ops + p->cycles) * 4;
	if (p->nat > 0 && depth_given)
		return cmd_error("stress", -EINVAL,
		                 "at= and depth= both given (at= sets the "
		                 "change points)");
	for (unsigned i = 0; i < p->nat; i++)
		if (p->at[i].member >= p->workers)
			return cmd_error("stress", -EINVAL,
			                 "at: member %u, but %d worker(s)",
			                 p->at[i].member, p->workers);
	if (p->nat > 0)
		p->depth = p->nat + 1;
	if (p->pct && (p->secs != 0 || p->workers > SCHEDCTL_MAX))
		return cmd_error("stress", -EINVAL,
		                 "sched=pct: the run must end by ops= or "
		                 "cycles= (not secs=), with at most %d workers",
		                 SCHEDCTL_MAX);
	if (!seeded)
		p->seed = (uint32_t)(now_ms() * 2654435761u) | 1;
	for (unsigned i = 0; i < lt_nops; i++)
		run->total_weight += p->weight[i];
	if (run->total_weight == 0)
		return cmd_error("stress", -EINVAL, "mix: every weight is 0");
	if (run->nmods == 0)
		return cmd_error("stress", -ENOENT,
		                 "no module to load (pass them with -initrd)");
	return 0;
}

/* Are p's weights those of mix=cycles (over the defaults)? */
static bool
mix_is_cycles(const struct lt_params *p)
{
	struct lt_params q = {0};
	char name[] = "cycles";

	for (unsigned i = 0; i < lt_nops; i++)
		q.weight[i] = lt_ops[i].weight;
	if (set_mix(&q, name) != 0)
		return false;
	return memcmp(q.weight, p->weight, sizeof(q.weight)) == 0;
}

/* M.OP.PT,..: the form at= takes */
static void
print_places(const struct schedctl_place *at, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		kprintf("%s%u.%u.%u", i ? "," : "", at[i].member,
		        (unsigned)at[i].op, at[i].point);
}

/* The line that runs the same operations again (short enough to type
 * when the mix is a named one). */
static void
print_params(const struct lt_run *run, const char *prefix)
{
	char diff[320] = "", only[320] = "only", mods[160] = "";
	size_t d = 0, o = 4, m = 0;
	const struct lt_params *p = &run->p;

	/* mix= as the changes from the default weights, or as "only," and
	 * the ops that have a weight, whichever is shorter: the line must
	 * fit the console's 255 characters to be typed back */
	for (unsigned i = 0; i < lt_nops; i++) {
		if (p->weight[i] != lt_ops[i].weight)
			d += snprintf(diff + d, sizeof(diff) - d, "%s%s:%u",
			              d ? "," : "", lt_ops[i].name,
			              p->weight[i]);
		if (p->weight[i] != 0)
			o += snprintf(only + o, sizeof(only) - o, ",%s:%u",
			              lt_ops[i].name, p->weight[i]);
	}
	for (int i = 0; i < run->nmods && m < sizeof(mods); i++)
		m += snprintf(mods + m, sizeof(mods) - m, "%s%s", i ? "," : "",
		              run->mods[i]);
	kprintf("%sstress lifetime seed=%u %s=%u workers=%d mods=%s", prefix,
	        (unsigned)p->seed, p->cycles != 0 ? "cycles" : "ops",
	        (unsigned)(p->cycles != 0 ? p->cycles : p->ops), p->workers,
	        mods);
	if (mix_is_cycles(p))
		kprintf(" mix=cycles");
	else if (d != 0)
		kprintf(" mix=%s", o < d ? only : diff);
	/* the rest only where it is not the default */
	if (p->secs != 0)
		kprintf(" secs=%u", (unsigned)p->secs);
	if (p->holdmax_ms != DEFAULT_HOLDMAX_MS)
		kprintf(" holdmax=%u", p->holdmax_ms);
	if (p->watchdog_ms != DEFAULT_WATCHDOG_MS)
		kprintf(" watchdog=%u", p->watchdog_ms);
	if (p->tcpport != 0)
		kprintf(" tcpport=%u", p->tcpport);
	if (p->udpport != 0)
		kprintf(" udpport=%u", p->udpport);
	if (p->faults != 0)
		kprintf(" faults=%u", p->faults);
	if (p->script)
		kprintf(" script=1");
	if (p->pct && p->nat == 0)
		kprintf(" sched=pct:%u depth=%u steps=%u settle=%u",
		        (unsigned)p->sched_seed, p->depth, p->pct_steps,
		        p->settle_ms);
	if (p->pct && p->nat > 0) {
		kprintf(" sched=pct:%u settle=%u at=", (unsigned)p->sched_seed,
		        p->settle_ms);
		print_places(p->at, p->nat);
	}
	kprintf("\n");
}

/* ---- the run ------------------------------------------------------------ */

static void
progress(struct lt_run *run)
{
	uint64_t el = now_ms() - run->start_ms;
	uint32_t done = run->done_ops, cycles = run->cycles;
	unsigned rate = el > 0 ? (unsigned)(done * 1000ull / el) : 0;
	unsigned crate = el > 0 ? (unsigned)(cycles * 1000ull / el) : 0;
	unsigned eta;

	if (run->p.cycles != 0)
		eta = crate > 0 && cycles < run->p.cycles
		          ? (run->p.cycles - cycles) / crate
		          : 0;
	else if (run->p.ops != 0)
		eta = rate > 0 ? (run->p.ops - done) / rate : 0;
	else
		eta = (unsigned)((run->deadline_ms > now_ms()
		                      ? run->deadline_ms - now_ms()
		                      : 0) /
		                 1000);
	if (run->p.cycles != 0)
		kprintf("stress: lifetime: %u/%u load/unload cycles, %u "
		        "cycles/s, %u ops, %u ops/s, %u failures, %u s "
		        "elapsed, ETA %u s\n",
		        (unsigned)cycles, (unsigned)run->p.cycles, crate,
		        (unsigned)done, rate, (unsigned)run->failures,
		        (unsigned)(el / 1000), eta);
	else
		kprintf("stress: lifetime: %u%s%u ops, %u ops/s, %u failures, "
		        "%u s elapsed, ETA %u s\n",
		        (unsigned)done, run->p.ops ? "/" : "",
		        (unsigned)run->p.ops, rate, (unsigned)run->failures,
		        (unsigned)(el / 1000), eta);
}

static bool
all_done(struct lt_run *run)
{
	for (int i = 0; i < run->p.workers; i++)
		if (!run->w[i].done)
			return false;
	return true;
}

/* The shell thread while the workers run. */
/* The background run (bg=1): at most one; `stress wait` collects its
 * verdict, `stress stop` ends it first.  bg_state: BG_NONE, BG_RUNNING,
 * BG_DONE (bg_result valid). */
enum { BG_NONE, BG_RUNNING, BG_DONE };
static volatile int bg_state;
static volatile bool bg_stop;
static int bg_result;
static char bg_line[512];
static char *bg_argv[32];

static void
supervise(struct lt_run *run)
{
	uint64_t next_progress = now_ms() + PROGRESS_MS;
	uint64_t next_check = now_ms() + CHECK_MS;

	while (!all_done(run)) {
		if (msleep_interruptible(50) != 0) {
			kprintf("stress: lifetime: interrupted, stopping "
			        "the workers\n");
			run->stop = true;
			clear_signal();
		}
		if (bg_stop && !run->stop) {
			kprintf("stress: lifetime: stop requested, stopping "
			        "the workers\n");
			run->stop = true;
		}
		if (now_ms() >= next_check) {
			if (invariants_check("during the run") != 0) {
				__atomic_add_fetch(&run->failures, 1,
				                   __ATOMIC_SEQ_CST);
				run->stop = true;
				lt_ring_dump(run);
			}
			next_check = now_ms() + CHECK_MS;
		}
		if (run->p.progress && now_ms() >= next_progress) {
			progress(run);
			next_progress += PROGRESS_MS;
		}
	}
}

static void
sort_u32(uint32_t *v, uint32_t n)
{
	for (uint32_t gap = n / 2; gap > 0; gap /= 2)
		for (uint32_t i = gap; i < n; i++)
			for (uint32_t j = i; j >= gap && v[j - gap] > v[j];
			     j -= gap) {
				uint32_t t = v[j];
				v[j] = v[j - gap];
				v[j - gap] = t;
			}
}

static void
report(struct lt_run *run)
{
	uint32_t n = run->nwaits < LT_WAITS ? run->nwaits : LT_WAITS;

	kprintf("stress: lifetime: %-10s %8s %8s %8s %8s\n", "op", "count",
	        "errors", "injected", "failures");
	for (unsigned i = 0; i < lt_nops; i++)
		kprintf("stress: lifetime: %-10s %8u %8u %8u %8u\n",
		        lt_ops[i].name, (unsigned)run->stats[i].count,
		        (unsigned)run->stats[i].errors,
		        (unsigned)run->stats[i].injected,
		        (unsigned)run->stats[i].fails);
	for (int i = 0; i < run->nmods; i++)
		kprintf("stress: lifetime: module %-10s %8u loads %8u "
		        "unloads\n",
		        run->mods[i], (unsigned)run->loads[i],
		        (unsigned)run->unloads[i]);
	kprintf("stress: lifetime: cycles: %u load/unload cycles of %d "
	        "module(s) in %u ops\n",
	        (unsigned)run->cycles, run->nmods, (unsigned)run->done_ops);
	sort_u32(run->waits, n);
	/* The sample is drawn from every wait: inside [min, max]. */
	ASSERT(n == 0 || (run->wait_min <= run->waits[0] &&
	                  run->waits[n - 1] <= run->wait_max));
	/* median and p99 of the sample, min and max of every wait */
	if (n > 0)
		kprintf("stress: lifetime: rmmod wait (refmode=%s, modref=%s): "
		        "%u unloads, min %u us, median %u us, p99 %u us, max "
		        "%u us\n",
		        netdev_refmode_name(), module_default_refops()->name,
		        (unsigned)run->nwaits, (unsigned)run->wait_min,
		        (unsigned)run->waits[n / 2],
		        (unsigned)run->waits[(n * 99) / 100],
		        (unsigned)run->wait_max);
	else
		kprintf("stress: lifetime: rmmod wait (refmode=%s, modref=%s): "
		        "no unloads\n",
		        netdev_refmode_name(), module_default_refops()->name);
	kprintf("stress: lifetime: rmmod tcp: %u wait(s) for TCP peers "
	        "stopped by the watchdog\n",
	        (unsigned)run->tcp_peer_waits);
	kprintf("stress: lifetime: traffic: %u udp datagram(s) sent to "
	        "10.0.2.2:%u, %u tcp echo(es) from 10.0.2.2:%u%s\n",
	        (unsigned)run->udp_sent, run->p.udpport,
	        (unsigned)run->tcp_echoed, run->p.tcpport,
	        run->p.udpport == 0 || run->p.tcpport == 0
	            ? " (a port of 0: that op only opens sockets)"
	            : "");
	if (netdev_refmode == REFMODE_LEGACY)
		kprintf("stress: lifetime: refmode=legacy: %u destructor "
		        "call(s) into an unloaded module caught%s\n",
		        legacy_caught - run->legacy_caught0,
		        legacy_catch ? "" : " (legacy_catch=0: none can be)");
	print_params(run, "stress: lifetime: replay: ");
}

static int
start_workers(struct lt_run *run)
{
	int ncpu = online_cpus();

	for (int i = 0; i < run->p.workers; i++) {
		struct lt_worker *w = &run->w[i];
		char name[16];
		w->id = i;
		w->cpu = run->p.pct ? 0 : i % ncpu; /* pct: one CPU */
		w->run = run;
		w->rng = run->p.seed ^ ((uint64_t)(i + 1) << 32);
		timer_init(&w->intr_timer, lt_intr_fire, w);
		snprintf(name, sizeof(name), "stress-w%d", i);
		w->thread = thread_create(name, worker_main, w, w->cpu);
		if (w->thread == NULL) {
			run->stop = true;
			for (int j = i; j < run->p.workers; j++)
				run->w[j].done = true;
			return -ENOMEM;
		}
	}
	return 0;
}

static int run_and_free(struct lt_run *run, struct lt_snapshot *snap);

/* sched=pct: the schedule's figures and its hash, and whether the last
 * run with the same parameters had the same (a reproduction must). */
static void
schedule_report(struct lt_run *run, int started)
{
	/* the pct runs of this boot, the last ones: what each ran and the
	 * schedule it got */
	static struct {
		struct lt_params p;
		const char *mods[LT_MODS_MAX];
		uint32_t hash;
	} seen[8];
	static unsigned nseen;
	struct schedctl_stats st;
	struct lt_params p = run->p;
	const char *verdict = "first run with these parameters, a new "
	                      "schedule";

	if (started != 0 && !schedctl_active)
		return;
	schedctl_end(&st);
	p.progress = p.bg = false; /* how it ran, not what */
	for (unsigned i = 0; i < nseen && i < 8; i++) {
		bool same =
		    memcmp(&p, &seen[i].p, sizeof(p)) == 0 &&
		    memcmp(run->mods, seen[i].mods, sizeof(seen[i].mods)) == 0;

		if (same && seen[i].hash == st.hash) {
			verdict = "the same as an earlier run with these "
			          "parameters";
			break;
		}
		if (same) {
			verdict = "DIFFERS from an earlier run with these "
			          "parameters";
			break;
		}
		if (seen[i].hash == st.hash)
			verdict = "first run with these parameters, the "
			          "schedule of an earlier run";
	}
	kprintf("stress: lifetime: schedule: pct seed %u depth %u settle %u "
	        "ms: %u points, %u switches, %u priority changes, %u "
	        "settles, %u timed decisions (%u settles ran out), %u "
	        "wakes, hash %08x (%s)\n",
	        (unsigned)run->p.sched_seed, run->p.depth, run->p.settle_ms,
	        st.points, st.switches, st.changes, st.settles, st.timed,
	        st.timed_settle, st.wakes, (unsigned)st.hash, verdict);
	/* where the change points fell: with at= they stay with their ops
	 * when other ops go (make repro) */
	if (st.changes > 0) {
		kprintf("stress: lifetime: schedule: change points at ");
		print_places(st.changed, st.changes < SCHEDCTL_DEPTH - 1
		                             ? st.changes
		                             : SCHEDCTL_DEPTH - 1);
		kprintf("\n");
	}
	seen[nseen % 8].p = p;
	memcpy(seen[nseen % 8].mods, run->mods, sizeof(run->mods));
	seen[nseen % 8].hash = st.hash;
	nseen++;
}

/* bg=1: the run in its own thread; the shell is free. */
static void
bg_main(void *arg)
{
	struct lt_run *run = arg;
	struct lt_snapshot *snap = run->bg_snap;

	bg_result = run_and_free(run, snap);
	__atomic_store_n(&bg_state, BG_DONE, __ATOMIC_SEQ_CST);
	thread_exit();
}

static int
lifetime(int argc, char **argv)
{
	struct lt_snapshot *snap;
	struct lt_run *run;
	int r;

	run = kzalloc(sizeof(*run), "stress");
	if (run == NULL)
		return cmd_error("stress", -ENOMEM, "no memory for the run");
	run->wait_min = UINT32_MAX; /* no wait yet */
	r = parse(run, argc, argv);
	if (r != 0)
		goto out;
	run->w = kzalloc(sizeof(*run->w) * (size_t)run->p.workers, "stress");
	snap = lt_snapshot_take();
	if (run->w == NULL || snap == NULL) {
		lt_snapshot_free(snap);
		r = cmd_error("stress", -ENOMEM, "no memory for the workers");
		goto out;
	}
	if (!run->p.bg)
		return run_and_free(run, snap);
	run->bg_snap = snap;
	bg_stop = false;
	bg_state = BG_RUNNING;
	if (thread_create("stress-bg", bg_main, run, cpu_id()) == NULL) {
		bg_state = BG_NONE;
		lt_snapshot_free(snap);
		r = cmd_error("stress", -ENOMEM, "no thread for the run");
		goto out;
	}
	kprintf("stress: lifetime: running in the background (stress wait, "
	        "stress stop)\n");
	return 0;
out:
	kfree(run->w);
	kfree(run);
	return r;
}

/* The run proper, in the shell thread or (bg=1) its own; frees run. */
static int
run_and_free(struct lt_run *run, struct lt_snapshot *snap)
{
	int r, settled;

	kprintf("stress: lifetime: refmode=%s modref=%s cpus=%d\n",
	        netdev_refmode_name(), module_default_refops()->name,
	        online_cpus());
	print_params(run, "stress: lifetime: run: ");
	run->start_ms = now_ms();
	run->legacy_caught0 = legacy_caught;
	run->deadline_ms = run->start_ms + run->p.secs * 1000ull;
	r = run->p.pct ? schedctl_begin(&(struct schedctl_config){
	                     .seed = run->p.sched_seed,
	                     .depth = run->p.depth,
	                     .steps = run->p.pct_steps,
	                     .n = run->p.workers,
	                     .cpu = 0,
	                     .settle_ms = run->p.settle_ms,
	                     .at = run->p.at,
	                     .nat = run->p.nat,
	                     .log = run->p.oplog})
	               : 0;
	if (r == 0)
		r = start_workers(run);
	supervise(run);
	if (run->p.pct)
		schedule_report(run, r);
	if (run->p.progress)
		progress(run);
	settled = lt_settle(run, snap);
	lt_snapshot_free(snap);
	report(run);
	/* a run whose end state differs: its timeline (a failed op's was
	 * printed at the failure, which stopped the ring) */
	if (trace_on && (r != 0 || settled != 0))
		trace_dump();
	if (r != 0)
		r = cmd_error("stress", r, "could not start the workers");
	else if (run->failures != 0 || settled != 0)
		r = cmd_error("stress", -EIO,
		              "lifetime: %u failures%s (seed %u)",
		              (unsigned)run->failures,
		              settled != 0 ? ", end state differs" : "",
		              (unsigned)run->p.seed);
	else
		kprintf("stress: lifetime: PASS: %u ops, %u load/unload "
		        "cycles, 0 failures, start state restored (seed %u)\n",
		        (unsigned)run->done_ops, (unsigned)run->cycles,
		        (unsigned)run->p.seed);
	kfree(run->w);
	kfree(run);
	return r;
}

/* bg=1: the arguments must outlive the command (mods= points into
 * them), so they are copied into bg_line first. */
static int
lifetime_cmd(int argc, char **argv)
{
	bool bg = false;
	size_t n = 0;

	/* two runs at once would settle each other's modules */
	if (bg_state != BG_NONE)
		return cmd_error("stress", -EBUSY,
		                 "a background run is going (stress wait)");
	for (int i = 2; i < argc; i++)
		bg |= strcmp(argv[i], "bg=1") == 0;
	if (!bg)
		return lifetime(argc, argv);
	if (argc > (int)(sizeof(bg_argv) / sizeof(*bg_argv)))
		return cmd_error("stress", -E2BIG, "too many arguments");
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;
		if (n + len > sizeof(bg_line))
			return cmd_error("stress", -E2BIG,
			                 "arguments too long");
		memcpy(bg_line + n, argv[i], len);
		bg_argv[i] = bg_line + n;
		n += len;
	}
	return lifetime(argc, bg_argv);
}

/* `stress wait`: the background run's verdict (its report and PASS or
 * error line are printed by the run); `stress stop` stops it first.
 * Ctrl-C ends the wait, not the run. */
static int
bg_wait(bool stop)
{
	int r;

	if (bg_state == BG_NONE)
		return cmd_error("stress", -ESRCH, "no background run");
	if (stop)
		bg_stop = true;
	while (__atomic_load_n(&bg_state, __ATOMIC_SEQ_CST) != BG_DONE)
		if (msleep_interruptible(50) != 0)
			return cmd_error("stress", -EINTR,
			                 "wait interrupted; the run goes on");
	r = bg_result;
	bg_state = BG_NONE;
	if (r != 0)
		return cmd_error("stress", r, "the background run failed");
	kprintf("stress: wait: the background run passed\n");
	return 0;
}

static int
cmd_stress(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "lifetime") == 0)
		return lifetime_cmd(argc, argv);
	if (argc == 2 && strcmp(argv[1], "wait") == 0)
		return bg_wait(false);
	if (argc == 2 && strcmp(argv[1], "stop") == 0)
		return bg_wait(true);
	if (argc >= 2 && strcmp(argv[1], "faultsweep") == 0)
		return lt_faultsweep(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "script") == 0)
		return lt_script_cmd(argc, argv);
	if (argc == 2 && strcmp(argv[1], "check") == 0)
		return invariants_check("on request") == 0
		           ? (kprintf("stress: check: every invariant "
		                      "holds\n"),
		              0)
		           : cmd_error("stress", -EIO,
		                       "check: invariants broken (above)");
	return cmd_usage("stress");
}
COMMAND(stress,
        "stress lifetime [seed=N] [ops=N|cycles=N] [secs=N] [workers=N] "
        "[holdmax=MS] [watchdog=MS] [tcpport=P] [udpport=P] [faults=PERMILLE] "
        "[mods=A,B..|all] [mix=[only,]OP:W,..|cycles] [progress=0|1] [bg=1] "
        "[sched=pct:S [depth=D] [steps=K] [settle=MS] [at=M.OP.PT,..]] "
        "[script=1] [oplog=1] | stress script [clear|W "
        "OP:ARG..] | stress wait | stress stop | stress faultsweep [MODULE..] "
        "[tcpport=P] [listenport=P] [point=KEY:N] | stress check",
        "concurrent module/device/socket lifetime stress; every failure "
        "path of insmod and ip link up; every invariant checker",
        cmd_stress);
