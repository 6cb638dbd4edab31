/*
 * bench devref [PAIRS]: what each refcount strategy costs on the packet
 * fast path, measured side by side in one run.  Every packet (skb) in
 * flight holds its device, so a dev_hold/dev_put pair per packet is the
 * cost the 2003 thread argued about.  On a private, unregistered device:
 *
 *   wait/atomic    dev_hold + dev_put, one atomic counter (also what
 *                  pinned and legacy cost: they differ only at unload)
 *   wait/percpu    the same with per-CPU counters
 *   tracked        with a ref_tracker: tag and call site (netdev_track=1)
 *   stacks         with a ref_tracker: also the hold and release stacks
 *                  (netdev_track=2, the default)
 *   owner          __module_get + dev_hold + dev_put + module_put on a
 *                  loaded driver module: Rusty's patch, every hold also
 *                  a module reference (module refcount as booted, modref=)
 *
 * Rounds alternate between the variants so that a drifting emulator
 * speed hits all of them alike; each variant reports the median of its
 * rounds in TSC cycles per pair, and its ratio to wait/atomic.  Under
 * QEMU TCG the absolute numbers say little about hardware; the ratios
 * are the result (docs/bench.md).
 *
 * bench devref contended [PAIRS]: the same variants with 1, 2, 4 and 8
 * CPUs (as many as are online) taking and dropping references on ONE
 * device at once, each CPU PAIRS pairs per round: one thread per CPU
 * (threads never migrate), released together; the round's time is from
 * the first start to the last finish.  Reports the median of the rounds:
 * cycles per pair on each CPU, the total rate, and the speedup over one
 * CPU (ideal: the number of CPUs).  The tracked variants are left out:
 * they measure a spinlock, and with more vCPUs than host cores a preempted
 * lock holder makes every other CPU spin for a host time slice.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include <kernel/console/args.h>
#include <kernel/bootparam.h>
#include <kernel/sched/clock.h>
#include "kernel/bench/bench_jumps.h"
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/arch/smp.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

#define ROUNDS    7
#define NVARIANTS 5

enum variant { V_ATOMIC, V_PERCPU, V_TRACKED, V_STACKS, V_OWNER };

static const char *const variant_names[NVARIANTS] = {
    "wait/atomic", "wait/percpu", "tracked", "stacks", "owner"};

/* The pairs themselves; the device's flags are set by the caller. */
static void
run_pairs(struct net_device *dev, enum variant v, unsigned pairs,
          struct module *owner)
{
	struct ref_tracker tr;

	for (unsigned i = 0; i < pairs; i++) {
		switch (v) {
		case V_ATOMIC:
		case V_PERCPU:
			dev_hold(dev);
			dev_put(dev);
			break;
		case V_TRACKED:
		case V_STACKS:
			dev_hold_track(dev, &tr, "bench");
			dev_put_track(dev, &tr);
			break;
		case V_OWNER:
			__module_get(owner);
			dev_hold(dev);
			dev_put(dev);
			module_put(owner);
			break;
		}
	}
}

static void
set_variant(struct net_device *dev, enum variant v)
{
	/* a private device between rounds: nothing counted, so its counter
	 * can start again in the variant's mode */
	ASSERT(netdev_refcnt_read(dev) == 0);
	pcpu_counter_init_mode(&dev->refs, v != V_PERCPU, 0);
	dev->holders.level = v == V_TRACKED ? 1 : v == V_STACKS ? 2 : 0;
}

static uint64_t
run_round(struct net_device *dev, enum variant v, unsigned pairs,
          struct module *owner)
{
	uint64_t t0, t1;

	set_variant(dev, v);
	t0 = rdtsc();
	run_pairs(dev, v, pairs, owner);
	t1 = rdtsc();
	return (t1 - t0) / pairs;
}

static uint64_t
median(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[n / 2];
}

/* A loaded module to stand in for the driver in the owner variant: the
 * owner of the first registered device.  Held for the whole run. */
static struct module *
pick_owner(void)
{
	struct net_device *d;
	struct module *m = NULL;

	rcu_read_lock();
	for (d = netdev_first_rcu(); d != NULL; d = netdev_next_rcu(d))
		if (d->owner != NULL && try_module_get(d->owner)) {
			m = d->owner;
			break;
		}
	rcu_read_unlock();
	return m;
}

/* "modref=atomic": how a parameter was set, for the report. */
static const char *
booted_with(const char *name, char *buf, size_t size)
{
	char v[24];
	const struct bootparam *p = bootparam_find(name);

	if (p == NULL)
		return "";
	bootparam_format(p, v, sizeof(v));
	snprintf(buf, size, "%s=%s", name, v);
	return buf;
}

/* "1.83x": a / b to two decimals. */
static void
fmt_ratio(char *buf, size_t size, uint64_t a, uint64_t b)
{
	uint64_t x = a * 100 / (b ? b : 1);

	snprintf(buf, size, "%u.%02ux", (unsigned)(x / 100),
	         (unsigned)(x % 100));
}

static void
bench_single(struct net_device *dev, struct module *owner, int nv,
             unsigned pairs)
{
	uint64_t samples[NVARIANTS][ROUNDS], med[NVARIANTS];
	char mr[32];

	for (int r = 0; r < ROUNDS; r++)
		for (int v = 0; v < nv; v++)
			samples[v][r] = run_round(dev, v, pairs, owner);
	kprintf("bench: devref: %u hold/put pairs per round, %d rounds, "
	        "median TSC cycles and ns per pair (ratio to wait/atomic); "
	        "%s\n",
	        pairs, ROUNDS, booted_with("modref", mr, sizeof(mr)));
	for (int v = 0; v < nv; v++)
		med[v] = median(samples[v], ROUNDS);
	for (int v = 0; v < nv; v++) {
		uint64_t ns10 = tsc_to_ns(med[v] * 10);
		char ratio[16];

		fmt_ratio(ratio, sizeof(ratio), med[v], med[0]);
		kprintf("bench: devref: %-12s %6u cycles %6u.%u ns  %s\n",
		        variant_names[v], (unsigned)med[v],
		        (unsigned)(ns10 / 10), (unsigned)(ns10 % 10), ratio);
	}
}

/* ---- contended: every CPU on one device at once ------------------------ */

#define CROUNDS 5

/* One round: the calling thread is worker 0 on its own CPU, one thread on
 * each of n - 1 other CPUs the rest; all wait for go, so the pairs of all
 * CPUs overlap.  Lives on the caller's stack: the caller returns only
 * once every worker has counted itself finished, the last thing a worker
 * does with it. */
struct crowd {
	struct net_device *dev;
	struct module *owner;
	enum variant v;
	unsigned pairs;
	int n;
	volatile int ready, go, finished;
	uint64_t t0[MAX_CPUS], t1[MAX_CPUS];
	int idx[MAX_CPUS];
};

struct crowd_ref {
	struct crowd *c;
	int idx;
};

static void
crowd_pairs(struct crowd *c, int idx)
{
	c->t0[idx] = rdtsc();
	run_pairs(c->dev, c->v, c->pairs, c->owner);
	c->t1[idx] = rdtsc();
}

static void
crowd_worker(void *p)
{
	struct crowd_ref *ref = p;
	struct crowd *c = ref->c;
	int idx = ref->idx;

	__atomic_add_fetch(&c->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&c->go, __ATOMIC_ACQUIRE))
		cpu_relax();
	crowd_pairs(c, idx);
	__atomic_add_fetch(&c->finished, 1, __ATOMIC_RELEASE);
}

/* TSC cycles from the first start to the last finish, or 0 if a worker
 * could not be started. */
static uint64_t
crowd_round(struct net_device *dev, enum variant v, unsigned pairs,
            struct module *owner, const int *cpu, int n)
{
	struct crowd c = {
	    .dev = dev, .owner = owner, .v = v, .pairs = pairs, .n = n};
	struct crowd_ref refs[MAX_CPUS];
	uint64_t first, last;
	int started = 0;

	set_variant(dev, v);
	for (int i = 1; i < n; i++) {
		refs[i].c = &c;
		refs[i].idx = i;
		if (thread_create("bench", crowd_worker, &refs[i], cpu[i]) ==
		    NULL)
			break;
		started++;
	}
	while (__atomic_load_n(&c.ready, __ATOMIC_SEQ_CST) < started)
		thread_yield();
	__atomic_store_n(&c.go, 1, __ATOMIC_RELEASE);
	crowd_pairs(&c, 0);
	while (__atomic_load_n(&c.finished, __ATOMIC_ACQUIRE) < started)
		thread_yield();
	if (started != n - 1)
		return 0;
	first = c.t0[0];
	last = c.t1[0];
	for (int i = 1; i < n; i++) {
		if (c.t0[i] < first)
			first = c.t0[i];
		if (c.t1[i] > last)
			last = c.t1[i];
	}
	return last - first;
}

static int
bench_contended(struct net_device *dev, struct module *owner, int nv,
                unsigned pairs)
{
	static const int counts[] = {1, 2, 4, 8};
	uint64_t wall[4][NVARIANTS][CROUNDS];
	int cpu[MAX_CPUS], ncpu = 0, nc = 0;
	char mr[32], dr[32];

	/* This CPU first: the calling thread is worker 0. */
	cpu[ncpu++] = cpu_id();
	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && READ_ONCE(cpus[i].state) == CPU_ONLINE)
			cpu[ncpu++] = i;
	while (nc < 4 && counts[nc] <= ncpu)
		nc++;
	for (int r = 0; r < CROUNDS; r++)
		for (int k = 0; k < nc; k++)
			for (int v = 0; v < nv; v++) {
				if (v == V_TRACKED || v == V_STACKS)
					continue;
				wall[k][v][r] = crowd_round(
				    dev, v, pairs, owner, cpu, counts[k]);
				if (wall[k][v][r] == 0)
					return cmd_error(
					    "bench", -ENOMEM,
					    "cannot start a worker "
					    "thread");
			}
	kprintf("bench: devref-contended: %u pairs per CPU per round, %d "
	        "rounds, %d CPUs online, one device; median cycles per pair "
	        "on each CPU, total rate, speedup over 1 CPU; %s %s\n",
	        pairs, CROUNDS, ncpu, booted_with("modref", mr, sizeof(mr)),
	        booted_with("devref", dr, sizeof(dr)));
	for (int v = 0; v < nv; v++) {
		uint64_t one;

		if (v == V_TRACKED || v == V_STACKS)
			continue;
		one = median(wall[0][v], CROUNDS);

		for (int k = 0; k < nc; k++) {
			uint64_t w = median(wall[k][v], CROUNDS);
			uint64_t ns = tsc_to_ns(w),
			         total = (uint64_t)pairs * counts[k];
			char speedup[16];

			fmt_ratio(speedup, sizeof(speedup), one * counts[k], w);
			kprintf("bench: devref-contended: %-12s cpus %d %7u "
			        "cycles/pair %8u kpairs/s speedup %s\n",
			        variant_names[v], counts[k],
			        (unsigned)(w / pairs),
			        (unsigned)(total * 1000000 / (ns ? ns : 1)),
			        speedup);
		}
	}
	return 0;
}

static int
bench_devref(unsigned pairs, bool contended)
{
	struct net_device *dev = alloc_netdev(0, "bench0");
	struct module *owner = pick_owner();
	int nv = owner != NULL ? NVARIANTS : V_OWNER, err = 0;

	if (dev == NULL) {
		if (owner != NULL)
			module_put(owner);
		return cmd_error("bench", -ENOMEM, "no device");
	}
	if (contended)
		err = bench_contended(dev, owner, nv, pairs);
	else
		bench_single(dev, owner, nv, pairs);
	/* Every pair was balanced: no reference is left (set_variant
	 * asserts it). */
	set_variant(dev, V_ATOMIC);
	if (err == 0 && owner == NULL)
		kprintf("bench: devref: owner skipped: no driver module "
		        "loaded\n");
	else if (err == 0)
		kprintf("bench: devref: owner variant used module %s "
		        "(modref as booted)\n",
		        module_name(owner));
	if (owner != NULL)
		module_put(owner);
	free_netdev(dev);
	return err;
}

static int
cmd_bench(int argc, char **argv)
{
	unsigned long pairs = 100000;
	struct args a;
	bool contended;
	int p;

	if (args_parse(&a, "bench", argc, argv, "", 1, 3) < 0)
		return -EINVAL;
	if (strcmp(a.pos[0], "bounce") == 0)
		return cmd_bench_bounce(&a);
	if (strcmp(a.pos[0], "jumps") == 0)
		return a.npos > 1 ? args_refuse(&a, "unexpected argument '%s'",
		                                a.pos[1])
		                  : bench_jumps();
	if (strcmp(a.pos[0], "devref") != 0)
		return args_refuse(&a, "unknown benchmark '%s'", a.pos[0]);
	contended = a.npos >= 2 && strcmp(a.pos[1], "contended") == 0;
	p = contended ? 2 : 1;
	if (a.npos > p + 1)
		return args_refuse(&a, "unexpected argument '%s'",
		                   a.pos[p + 1]);
	if (a.npos == p + 1 &&
	    args_num(&a, "PAIRS", a.pos[p], 1, 10000000, &pairs) < 0)
		return -EINVAL;
	return bench_devref((unsigned)pairs, contended);
}
COMMAND(bench,
        "bench devref [contended] [PAIRS] | bench bounce DEV [on|off] | "
        "bench jumps",
        "cost of dev_hold/dev_put under each refcount strategy, on one CPU "
        "or all at once; the raw bounce loop on DEV; what a call, a return "
        "and a jump to another page cost",
        cmd_bench);
