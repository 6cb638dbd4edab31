/*
 * `stress faultsweep [MODULE..]`: every failure path of what a user does
 * with a module, one at a time.  For each command and N = 1, 2, ... the
 * command runs with its Nth call at an injection site failing (fault.h),
 * until a run injects nothing.  The commands, per module M:
 *   insmod M; for each device of M: ip link set DEV up, devhold DEV 1;
 *   netsim add (netsim); then rmmod M, the unload path (its notifiers,
 *   quiesce hooks and threads) with M loaded afresh after each point;
 * and once: udpecho 7 and udpecho -t 7 (sockets, a service thread).
 * After each injected failure:
 *   - the command failed with exactly one line, "CMD: ... ENAME: reason"
 *     (or it absorbed the failure and succeeded: then it is undone),
 *   - nothing is half-done: after insmod the module is not loaded, after
 *     rmmod it is loaded and LIVE, the device is down, the holder gone,
 *     no device added, no service left; and every memory tag (meminfo)
 *     and every reference count is back where it was.
 * A command that waits (an rmmod whose quiesce could not start what it
 * waits for) is interrupted after WAIT_MS, as Ctrl-C would, and must then
 * come back the same way.  At the end one line per site: the failures
 * injected there and how many were bad.
 * Modules given must not be loaded; default: every boot module that
 * loads without injection (those built to be refused are skipped, said
 * so).
 *
 * Each FAIL line is followed by the command that replays that one point,
 * `stress faultsweep [MODULE] point=KEY:N`: KEY names a command of the
 * sweep (its line, commas for spaces: rmmod,selfput) or a context and
 * its workload (context,net_rx,tcpbulk), N the failing call (or A-B:
 * the points A to B, as many as there are, each with its checks).  With
 * point=, modules default to none, every command of the sweep before the
 * point runs once without injection (so the state the point met is
 * there: the module loaded, its device up), contexts and groups the key
 * is not in are left out, the point runs with its checks and then its
 * command once without injection (the sweep's last run of it, which
 * must work again), and the rest of the sweep is left out.  make repro
 * writes its reproducer with it (docs/repro.md).
 */
#include "lifetime/lifetime.h"
#include "modloader/module_internal.h"
#include <net/core/netdevice.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/fault.h>
#include <kernel/mm/memtag.h>
#include <kernel/bootmod.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

#define SWEEP_MAX 5000 /* calls at the sites of one command */
#define SETTLE_MS 2000 /* deferred frees (RCU, timers) */
#define WAIT_MS   5000 /* a command still running is interrupted */
#define NAME_LEN  32
#define MAX_MODS  32

struct memsnap {
	int32_t objs[MAX_MEMTAGS], bytes[MAX_MEMTAGS], pages[MAX_MEMTAGS];
	int n;
};

struct sweep {
	const char *cmd;  /* "insmod", "ip", ... */
	char line[64];    /* the command line */
	const char *name; /* the module or device it is about */
	int base;         /* the device's count before (devhold) */
	unsigned points;  /* failures injected */
	unsigned absorbed;
	unsigned bad;
	unsigned by_site[FAULT_NSITES];
	uint32_t last_n; /* the last point that injected, 0: none yet */
	int last_site;   /* ... and its site */
};

/* point=KEY:N: only that point (see the top); KEY "" for the whole sweep. */
static char point_key[64];
static uint32_t point_n, point_last; /* the calls: N, or A-B */
static char point_calls[24];         /* ... as given */
static bool point_missed;            /* ... where call N injected nothing */
static unsigned point_cmds;          /* commands run before the point */
static bool point_done;              /* the point ran: the rest is left out */
static const char *sweep_mod;        /* the module being swept, or NULL */
/* tcpport=P: a host TCP echo server at 10.0.2.2:P for the TCP workload
 * (tcp.ko's timers and delayed ACKs run in kworker); listenport=P: where
 * a host peer connects again and again, for tcplisten. */
static unsigned sweep_tcpport, sweep_listenport;

/* KEY for a sweep's line or context: spaces become commas. */
static void
point_key_of(const char *what, char *key, size_t size)
{
	strlcpy(key, what, size);
	for (char *p = key; *p != '\0'; p++)
		if (*p == ' ')
			*p = ',';
}

static bool
point_is(const char *what)
{
	char key[64];

	point_key_of(what, key, sizeof(key));
	return strcmp(key, point_key) == 0;
}

/* Is a group of the sweep (its keys begin with one of PREFIXES, a
 * NULL-ended list) in the point's reach? */
static bool
point_in(const char *const *prefixes)
{
	if (point_key[0] == '\0')
		return true;
	for (; *prefixes != NULL; prefixes++)
		if (strncmp(point_key, *prefixes, strlen(*prefixes)) == 0)
			return true;
	return false;
}

/* Before the point: how much of the sweep ran to get there (make repro
 * counts it in its reproducer's size). */
static void
point_say(const char *what)
{
	char key[64];

	point_key_of(what, key, sizeof(key));
	kprintf("stress: faultsweep: point %s:%s after %u command(s) of the "
	        "sweep\n",
	        key, point_calls, point_cmds);
}

/* The command replaying the point of a FAIL line (what: its line or
 * "context NAME WORK"). */
static void
print_replay(const char *what, uint32_t n)
{
	char key[64], ports[48] = "";

	point_key_of(what, key, sizeof(key));
	if (sweep_tcpport != 0)
		snprintf(ports, sizeof(ports), " tcpport=%u", sweep_tcpport);
	if (sweep_listenport != 0)
		snprintf(ports + strlen(ports), sizeof(ports) - strlen(ports),
		         " listenport=%u", sweep_listenport);
	printk(LOG_ERR,
	       "stress: faultsweep: replay: stress faultsweep%s%s%s "
	       "point=%s:%u\n",
	       sweep_mod != NULL ? " " : "", sweep_mod != NULL ? sweep_mod : "",
	       ports, key, (unsigned)n);
}

/* Over the whole sweep, per site: failures injected, and bad ones. */
static struct {
	unsigned hits, bad;
} site_stats[FAULT_NSITES];

static void
mem_take(struct memsnap *m)
{
	memset(m, 0, sizeof(*m)); /* comparable whole (mem_take_settled) */
	m->n = memtag_count();
	for (int i = 0; i < m->n; i++) {
		struct memtag *t = memtag_at(i);
		m->objs[i] = t->objs;
		m->bytes[i] = t->bytes;
		m->pages[i] = t->pages;
	}
}

/* A snapshot once nothing moves for 250 ms (a TIME_WAIT or an RCU
 * callback of the run before still going), or after SETTLE_MS. */
static void
mem_take_settled(struct memsnap *m)
{
	struct memsnap again;
	uint64_t deadline = now_ms() + SETTLE_MS;

	mem_take(m);
	while (now_ms() < deadline) {
		msleep(250);
		mem_take(&again);
		if (memcmp(&again, m, sizeof(again)) == 0)
			return;
		*m = again;
	}
}

/* The first tag that differs (slab pages are kept for reuse: not
 * compared, as in meminfo -d; a tag first used since must be back at
 * zero), waiting a little for deferred frees. */
static const char *
mem_changed(const struct memsnap *a, char *buf, size_t size)
{
	uint64_t deadline = now_ms() + SETTLE_MS;

	for (;;) {
		int i, n = memtag_count();
		for (i = 0; i < n; i++) {
			struct memtag *t = memtag_at(i);
			bool old = i < a->n;
			if (strcmp(t->name, "kmalloc-slab") == 0)
				continue;
			if (t->objs != (old ? a->objs[i] : 0) ||
			    t->bytes != (old ? a->bytes[i] : 0) ||
			    t->pages != (old ? a->pages[i] : 0))
				break;
		}
		if (i == n)
			return NULL;
		if (now_ms() >= deadline) {
			struct memtag *t = memtag_at(i);
			bool old = i < a->n;
			snprintf(buf, size,
			         "%s: objects %d -> %d, bytes %d -> %d, pages "
			         "%d -> %d",
			         t->name, old ? a->objs[i] : 0, t->objs,
			         old ? a->bytes[i] : 0, t->bytes,
			         old ? a->pages[i] : 0, t->pages);
			return buf;
		}
		msleep(20);
	}
}

/* "CMD: ... ENAME: reason": the contract's error line (an uppercase name
 * starting with E between ": " and ": ", and a reason after it). */
static bool
clear_line(const char *cmd, const char *line)
{
	size_t n = strlen(cmd);

	if (strncmp(line, cmd, n) != 0 || line[n] != ':')
		return false;
	for (const char *p = line + n; *p != '\0'; p++) {
		const char *q = p + 3;
		if (p[0] != ':' || p[1] != ' ' || p[2] != 'E')
			continue;
		while (*q >= 'A' && *q <= 'Z')
			q++;
		if (q > p + 3 && q[0] == ':' && q[1] == ' ' && q[2] != '\0')
			return true;
	}
	return false;
}

static bool
module_loaded(const char *name)
{
	bool r;

	mutex_lock(&module_mutex);
	r = module_find(name) != NULL;
	mutex_unlock(&module_mutex);
	return r;
}

/* Run a command line (formatted: shell_exec splits its line in place),
 * its output kept off the console: an undo or a check. */
static int quiet_exec(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static int
quiet_exec(const char *fmt, ...)
{
	struct out_capture out;
	char line[64];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	out_capture_begin(&out);
	r = shell_exec(line);
	out_capture_end();
	return r;
}

static void
complain(struct sweep *s, uint32_t n, const struct fault_ctx *c,
         const char *what)
{
	s->bad++;
	if (c->last_site >= 0)
		site_stats[c->last_site].bad++;
	printk(LOG_ERR,
	       "stress: faultsweep: FAIL: '%s' with call %u failing "
	       "(%s): %s\n",
	       s->line, (unsigned)n,
	       c->last_site >= 0 ? fault_site_names[c->last_site] : "-", what);
	print_replay(s->line, n);
}

static bool
prints_progress(const char *cmd)
{
	return strcmp(cmd, "rmmod") == 0 || strcmp(cmd, "tcplisten") == 0;
}

/* A command still running after WAIT_MS gets what Ctrl-C gives it. */
struct sweep_intr {
	struct timer timer;
	struct thread *thread;
	volatile bool fired;
};

static void
intr_fire(struct timer *t)
{
	struct sweep_intr *in = t->data;

	in->fired = true;
	thread_signal(in->thread);
}

static void
intr_arm(struct sweep_intr *in)
{
	in->thread = current;
	in->fired = false;
	timer_init(&in->timer, intr_fire, in);
	timer_add(&in->timer, now_ms() + WAIT_MS);
}

static void
intr_disarm(struct sweep_intr *in)
{
	timer_del(&in->timer); /* waits for a running intr_fire */
	if (in->fired)
		clear_signal(); /* ours; a user's Ctrl-C stops the sweep */
}

/* Run the line with call n failing; 0 done (nothing injected), 1 go on,
 * -errno the command failed by itself.  undo and undone may be NULL:
 * nothing to undo or to check beyond memory. */
static int
sweep_one(struct sweep *s, uint32_t n, int (*undo)(struct sweep *),
          bool (*undone)(struct sweep *))
{
	struct fault_ctx ctx = {.sites = FAULT_ALL, .nth = n};
	struct sweep_intr intr;
	struct out_capture out;
	struct memsnap before;
	char line[64], why[320];
	const char *leak;
	int r;

	mem_take(&before);
	strlcpy(line, s->line, sizeof(line));
	intr_arm(&intr);
	out_capture_begin(&out);
	fault_set(&ctx);
	r = shell_exec(line);
	fault_set(NULL);
	out_capture_end();
	intr_disarm(&intr);
	if (ctx.injected == 0) {
		if (r != 0 && s->last_n != 0) {
			/* the last point left it broken: that point's FAIL */
			struct fault_ctx last = {.last_site = s->last_site};

			snprintf(why, sizeof(why),
			         "then it fails without injection: '%s'",
			         out.last);
			complain(s, s->last_n, &last, why);
		} else if (r != 0) {
			printk(LOG_ERR,
			       "stress: faultsweep: '%s' fails "
			       "without injection: %s\n",
			       s->line, out.last);
		}
		return r != 0 ? r : 0;
	}
	s->last_n = n;
	s->last_site = ctx.last_site;
	s->points++;
	s->by_site[ctx.last_site]++;
	site_stats[ctx.last_site].hits++;
	if (r == 0) {
		s->absorbed++;
		if (undo != NULL)
			undo(s);
	} else {
		/* One line besides the kernel's log lines (a link going up
		 * and down again); a command that says how far it got
		 * (rmmod that waited, tcplisten) ends with the error. */
		if ((out.lines - out.logged != 1 && !prints_progress(s->cmd)) ||
		    !clear_line(s->cmd, out.last)) {
			snprintf(why, sizeof(why),
			         "%u lines of output (%u logged), first '%s', "
			         "last '%s'",
			         out.lines, out.logged, out.first, out.last);
			complain(s, n, &ctx, why);
		}
		if (undone != NULL && !undone(s)) {
			snprintf(why, sizeof(why),
			         "left half-done (its last line: '%s')",
			         out.last);
			complain(s, n, &ctx, why);
		}
	}
	leak = mem_changed(&before, why, sizeof(why));
	if (leak != NULL)
		complain(s, n, &ctx, leak);
	return 1;
}

/* point=: the one point of the command KEY names, then the command once
 * without injection as the sweep's last run; any other command only the
 * latter. */
static int
sweep_point(struct sweep *s, int (*undo)(struct sweep *),
            bool (*undone)(struct sweep *))
{
	int r;

	if (point_done)
		return 0;
	if (point_is(s->line)) {
		point_done = true;
		point_say(s->line);
		for (uint32_t n = point_n; n <= point_last; n++) {
			unsigned bad = s->bad;

			r = sweep_one(s, n, undo, undone);
			if (r < 0)
				return r;
			if (r == 0) {
				point_missed |= n == point_n;
				return 0; /* it ran whole: the state goes on */
			}
			kprintf("stress: faultsweep: %s: point %u (%s), %u "
			        "bad\n",
			        s->line, (unsigned)n,
			        fault_site_names[s->last_site], s->bad - bad);
		}
	}
	point_cmds++;
	r = sweep_one(s, UINT32_MAX, NULL, NULL); /* injects nothing */
	return r < 0 ? r : 0;
}

static int
sweep(struct sweep *s, int (*undo)(struct sweep *),
      bool (*undone)(struct sweep *))
{
	int r = 1;
	uint32_t n;

	if (point_key[0] != '\0')
		return sweep_point(s, undo, undone);
	for (n = 1; n <= SWEEP_MAX && r == 1; n++) {
		if (signal_pending())
			return -EINTR;
		r = sweep_one(s, n, undo, undone);
	}
	if (r < 0)
		return r;
	{
		char sites[160];
		size_t len = 0;

		sites[0] = '\0';
		for (int i = 0; i < FAULT_NSITES; i++)
			if (s->by_site[i] != 0 && len < sizeof(sites))
				len += snprintf(
				    sites + len, sizeof(sites) - len, "%s%s %u",
				    len ? ", " : "", fault_site_names[i],
				    s->by_site[i]);
		kprintf("stress: faultsweep: %s: %u failure points (%s%s%u "
		        "absorbed), %u bad\n",
		        s->line, s->points, sites, len ? "; " : "", s->absorbed,
		        s->bad);
	}
	return r == 1 ? -E2BIG : 0;
}

/* ---- insmod M, rmmod M ---------------------------------------------------
 */

static int
undo_insmod(struct sweep *s)
{
	return module_unload(s->name, RMMOD_QUIET | RMMOD_FORCE);
}

/* After a failed insmod: not loaded. */
static bool
insmod_undone(struct sweep *s)
{
	return !module_loaded(s->name);
}

static int
undo_rmmod(struct sweep *s)
{
	char err[160];

	return module_load(s->name, 0, NULL, NULL, err, sizeof(err));
}

/* After a failed rmmod: loaded and LIVE again, so it can still be used
 * and unloaded (a quiesce it could not start must not leave it GOING). */
static bool
rmmod_undone(struct sweep *s)
{
	struct module *m;
	bool live;

	mutex_lock(&module_mutex);
	m = module_find(s->name);
	live = m != NULL && m->state == MODULE_STATE_LIVE;
	mutex_unlock(&module_mutex);
	return live;
}

/* ---- ip link set DEV up, devhold DEV 1 ---------------------------------- */

static bool
dev_is_up(const char *name)
{
	struct net_device *dev;
	bool up;

	rcu_read_lock();
	dev = dev_get_by_name_rcu(name);
	up = dev != NULL && netif_running(dev);
	rcu_read_unlock();
	return up;
}

static int
dev_refs(const char *name)
{
	struct net_device *dev;
	int n;

	rcu_read_lock();
	dev = dev_get_by_name_rcu(name);
	n = dev != NULL ? netdev_refcnt_read(dev) : -1;
	rcu_read_unlock();
	return n;
}

static int
undo_up(struct sweep *s)
{
	return quiet_exec("ip link set %s down", s->name);
}

static bool
up_undone(struct sweep *s)
{
	return !dev_is_up(s->name);
}

/* The 1 ms holder's timer drops what it took: wait for the count. */
static int
undo_devhold(struct sweep *s)
{
	uint64_t deadline = now_ms() + SETTLE_MS;

	while (dev_refs(s->name) != s->base && now_ms() < deadline)
		msleep(5);
	return 0;
}

static bool
devhold_undone(struct sweep *s)
{
	undo_devhold(s);
	return dev_refs(s->name) == s->base;
}

/* ---- netsim add, udpecho ------------------------------------------------ */

/* The devices module M registered. */
static int
devs_of(const char *mod, char names[][IFNAMSIZ], int max)
{
	struct net_device *dev;
	int n = 0;

	rcu_read_lock();
	for (dev = netdev_first_rcu(); dev != NULL && n < max;
	     dev = netdev_next_rcu(dev))
		if (dev->owner != NULL && strcmp(dev->owner->name, mod) == 0)
			strlcpy(names[n++], dev->name, IFNAMSIZ);
	rcu_read_unlock();
	return n;
}

/* netsim add: the devices netsim had before it (nsim0, made at load). */
static char nsim_before[4][IFNAMSIZ];
static int nsim_nbefore;

static bool
nsim_was_there(const char *name)
{
	for (int i = 0; i < nsim_nbefore; i++)
		if (strcmp(nsim_before[i], name) == 0)
			return true;
	return false;
}

static int
undo_nsim_add(struct sweep *s)
{
	char names[8][IFNAMSIZ];
	int n = devs_of(s->name, names, 8);

	for (int i = 0; i < n; i++) {
		if (nsim_was_there(names[i]))
			continue;
		quiet_exec("netsim del %s", names[i]);
	}
	return 0;
}

static bool
nsim_add_undone(struct sweep *s)
{
	char names[8][IFNAMSIZ];
	int n = devs_of(s->name, names, 8);

	for (int i = 0; i < n; i++)
		if (!nsim_was_there(names[i]))
			return false;
	return n == nsim_nbefore;
}

/* udpecho 7: after a failure no service may be left on the port, so
 * stopping it must fail. */
static int
undo_udpecho(struct sweep *s)
{
	(void)s;
	return quiet_exec("udpecho stop 7");
}

static bool
udpecho_undone(struct sweep *s)
{
	return undo_udpecho(s) != 0;
}

/* ---- per module ---------------------------------------------------------- */

static int
sweep_cmd(const char *cmd, const char *name, int (*undo)(struct sweep *),
          bool (*undone)(struct sweep *), unsigned *bad, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int
sweep_cmd(const char *cmd, const char *name, int (*undo)(struct sweep *),
          bool (*undone)(struct sweep *), unsigned *bad, const char *fmt, ...)
{
	struct sweep s = {.cmd = cmd, .name = name};
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(s.line, sizeof(s.line), fmt, ap);
	va_end(ap);
	s.base = dev_refs(name); /* -1 where name is no device */
	r = sweep(&s, undo, undone);
	*bad += s.bad;
	return r;
}

static int
sweep_module(const char *mod, unsigned *bad)
{
	char names[4][IFNAMSIZ];
	int r, n;

	r = sweep_cmd("insmod", mod, undo_insmod, insmod_undone, bad,
	              "insmod %s", mod);
	if (r != 0)
		return r;
	/* Loaded without injection: now its devices. */
	n = devs_of(mod, names, 4);
	for (int i = 0; i < n && r == 0; i++) {
		r = sweep_cmd("ip", names[i], undo_up, up_undone, bad,
		              "ip link set %s up", names[i]);
		undo_up(&(struct sweep){.name = names[i]});
		if (r == 0) {
			struct sweep h = {.name = names[i],
			                  .base = dev_refs(names[i])};

			r = sweep_cmd("devhold", names[i], undo_devhold,
			              devhold_undone, bad, "devhold %s 1",
			              names[i]);
			undo_devhold(&h); /* the last run's holder too */
		}
	}
	if (r == 0 && strcmp(mod, "netsim") == 0) {
		nsim_nbefore = devs_of(mod, nsim_before, 4);
		r = sweep_cmd("netsim", mod, undo_nsim_add, nsim_add_undone,
		              bad, "netsim add");
		undo_nsim_add(&(struct sweep){.name = mod});
	}
	/* Last, the unload path: each point that unloaded it loads it
	 * again, and the run that injects nothing unloads it for good. */
	if (r == 0)
		r = sweep_cmd("rmmod", mod, undo_rmmod, rmmod_undone, bad,
		              "rmmod %s", mod);
	if (module_loaded(mod)) {
		struct sweep_intr intr;
		int u;

		intr_arm(&intr); /* its unload may wait for ever too */
		u = module_unload(mod, RMMOD_QUIET | RMMOD_FORCE);
		intr_disarm(&intr);
		if (u != 0 && r == 0)
			r = -EBUSY;
	}
	return r;
}

/* Modules of the tree that need others loaded first. */
static const char *
deps_of(const char *mod)
{
	if (strcmp(mod, "chain_b") == 0)
		return "chain_a";
	if (strcmp(mod, "chain_c") == 0)
		return "chain_a chain_b";
	return "";
}

static int
load_deps(const char *mod, char *deps, char **d)
{
	char err[160], *p;
	int nd = 0, r = 0;

	strlcpy(deps, deps_of(mod), 48);
	for (p = deps; *p != '\0' && nd < 4;) {
		d[nd++] = p;
		while (*p != '\0' && *p != ' ')
			p++;
		if (*p == ' ')
			*p++ = '\0';
	}
	for (int i = 0; i < nd && r == 0; i++)
		if (!module_loaded(d[i]))
			r = module_load(d[i], 0, NULL, NULL, err, sizeof(err));
	return r < 0 ? r : nd;
}

static void
unload_deps(char **d, int nd)
{
	for (int i = nd - 1; i >= 0; i--)
		module_unload(d[i], RMMOD_QUIET);
}

static int
sweep_with_deps(const char *mod, unsigned *bad)
{
	char deps[48], *d[4];
	int nd = load_deps(mod, deps, d), r;

	if (nd < 0)
		return nd;
	sweep_mod = mod;
	r = sweep_module(mod, bad);
	sweep_mod = NULL;
	unload_deps(d, nd);
	return r;
}

/* Does mod load (its dependencies first) without injection?  Left as
 * found either way; why not in err. */
static bool
loads_cleanly(const char *mod, char *err, size_t size)
{
	char deps[48], *d[4];
	int nd = load_deps(mod, deps, d), r;
	struct out_capture out;

	if (nd < 0) {
		snprintf(err, size, "a dependency does not load");
		return false;
	}
	out_capture_begin(&out);
	r = module_load(mod, 0, NULL, NULL, err, size);
	out_capture_end();
	if (r == 0)
		module_unload(mod, RMMOD_QUIET | RMMOD_FORCE);
	unload_deps(d, nd);
	return r == 0;
}

/* Every boot module "NAME.ko" that loads without injection. */
static int
default_mods(char names[][NAME_LEN], int max)
{
	int n = 0;
	char err[160];

	for (int i = 0; i < boot_module_count() && n < max; i++) {
		const char *f = boot_module_at(i)->name;
		size_t len = strlen(f);

		if (len < 4 || len - 3 >= NAME_LEN ||
		    strcmp(f + len - 3, ".ko") != 0)
			continue;
		memcpy(names[n], f, len - 3);
		names[n][len - 3] = '\0';
		if (module_loaded(names[n]))
			continue; /* the user's: not ours to unload */
		if (loads_cleanly(names[n], err, sizeof(err)))
			n++;
		else
			kprintf("stress: faultsweep: %s skipped: it does not "
			        "load without injection (%s)\n",
			        names[n], err);
	}
	return n;
}

/* ---- service contexts ----------------------------------------------------
 * What a command only causes runs elsewhere: frames in net_rx, tcp.ko's
 * timers and echo service in kworker, RCU callbacks in rcu, timer
 * callbacks in interrupt context, ARP's timers in inet.  With the e1000
 * up at 10.0.2.15/24 (QEMU's user network) and tcp.ko loaded, each
 * context's workload (pings of the gateway; with tcpport=, a TCP echo
 * through the host) runs with the Nth call *in that context* failing,
 * until a run injects nothing there.  After each point the workload must
 * work again without injection (the path recovers: a ring with a hole
 * is refilled, a lost segment retransmitted) and every memory tag must
 * be back where it was.
 */
struct ctx_sweep {
	const char *name;   /* as printed */
	const char *thread; /* NULL: interrupt context */
	bool tcp;           /* the TCP workload, else ping */
};

static const struct ctx_sweep ctx_sweeps[] = {
    {"net_rx", "net_rx", false},  {"net_rx", "net_rx", true},
    {"kworker", "kworker", true}, {"inet", "inet", false},
    {"rcu", "rcu", false},        {"timer", NULL, true},
};

static void
workload(const struct ctx_sweep *cs, char *line, size_t size, const char **ok)
{
	if (cs->tcp) {
		/* the echo comes back in bulk too: ACKs deferred to
		 * tcp.ko's work, in kworker */
		snprintf(line, size, "tcpbulk 10.0.2.2 %u 64K", sweep_tcpport);
		*ok = "tcpbulk: sent";
	} else {
		snprintf(line, size, "ping -c 3 -i 20 10.0.2.2");
		*ok = "rtt min/avg/max";
	}
}

/* Read by the target after we let go of it: never on our stack. */
static struct fault_ctx ctx_fault;

struct find_thread {
	const char *name;
	struct thread *found;
};

static void
match_thread(struct thread *t, void *arg)
{
	struct find_thread *f = arg;

	if (f->found == NULL && strcmp(t->name, f->name) == 0)
		f->found = t;
}

/* The workload, quietly; true if its last line says it worked. */
static bool
workload_ok(const struct ctx_sweep *cs)
{
	struct out_capture out;
	const char *ok;
	char line[64];

	workload(cs, line, sizeof(line), &ok);
	out_capture_begin(&out);
	shell_exec(line);
	out_capture_end();
	return strncmp(out.last, ok, strlen(ok)) == 0;
}

/* Up to 5 tries a second apart: what a failure cost (a lost frame, an
 * unanswered ARP) may take a retransmission to mend. */
static bool
recovers(const struct ctx_sweep *cs)
{
	for (int i = 0; i < 5; i++) {
		if (workload_ok(cs))
			return true;
		msleep(1000);
	}
	return false;
}

static int
sweep_context(const struct ctx_sweep *cs, unsigned *bad)
{
	struct find_thread f = {cs->thread, NULL};
	struct memsnap before;
	char why[160], work[64], what[48];
	const char *leak, *ok;
	unsigned points = 0, nbad = 0;
	uint32_t n = 1, last = SWEEP_MAX;

	workload(cs, work, sizeof(work), &ok);
	/* its key: "context NAME WORK" (WORK the workload's command) */
	snprintf(what, sizeof(what), "context %s %s", cs->name,
	         cs->tcp ? "tcpbulk" : "ping");
	if (point_key[0] != '\0' && (point_done || !point_is(what)))
		return 0;
	if (cs->tcp && sweep_tcpport == 0) {
		kprintf("stress: faultsweep: context %s (%s): skipped, no "
		        "tcpport=\n",
		        cs->name, "tcpbulk");
		return 0;
	}
	if (cs->thread != NULL) {
		for_each_thread(match_thread, &f)
			;
		if (f.found == NULL)
			return cmd_error("stress", -ESRCH,
			                 "faultsweep: no thread %s",
			                 cs->thread);
	}
	if (!recovers(cs))
		return cmd_error("stress", -EIO,
		                 "faultsweep: '%s' fails without injection",
		                 work);
	if (point_key[0] != '\0') {
		point_done = true;
		point_say(what);
		n = point_n;
		last = point_last;
	}
	for (; n <= last; n++) {
		if (signal_pending())
			return -EINTR;
		mem_take_settled(&before);
		ctx_fault = (struct fault_ctx){.sites = FAULT_ALL, .nth = n};
		fault_set_on(f.found, &ctx_fault);
		workload_ok(cs);
		fault_set_on(f.found, NULL);
		if (ctx_fault.injected == 0) {
			point_missed |= point_key[0] != '\0' && n == point_n;
			break;
		}
		points++;
		site_stats[ctx_fault.last_site].hits++;
		why[0] = '\0';
		if (!recovers(cs))
			snprintf(why, sizeof(why), "'%s' does not work again",
			         work);
		else if ((leak = mem_changed(&before, why, sizeof(why))) ==
		         NULL)
			continue;
		nbad++;
		site_stats[ctx_fault.last_site].bad++;
		printk(LOG_ERR,
		       "stress: faultsweep: FAIL: context %s with call %u "
		       "failing (%s): %s\n",
		       cs->name, (unsigned)n,
		       fault_site_names[ctx_fault.last_site], why);
		print_replay(what, n);
	}
	kprintf("stress: faultsweep: context %s (%s): %u failure points, %u "
	        "bad\n",
	        cs->name, work, points, nbad);
	*bad += nbad;
	return 0;
}

/* ---- dhcp, tcpconnect, tcplisten -----------------------------------------
 * Commands that need the network, with the e1000 as below.  `dhcp eth0`
 * from a down link and no client: after a failure the link is down
 * again, no client runs and eth0's count is back; an absorbed failure's
 * lease is given up (dhcp -x) and the link taken down.  Neither a failed
 * nor an absorbed tcpconnect or tcplisten has anything to undo (a pcb
 * left would show in the memory check); tcplisten needs a host peer
 * connecting to listenport= again and again (tcp-bulk send -r). */

static int
undo_dhcp(struct sweep *s)
{
	quiet_exec("dhcp -x %s", s->name);
	return quiet_exec("ip link set %s down", s->name);
}

static bool
dhcp_undone(struct sweep *s)
{
	return !dev_is_up(s->name) && dev_refs(s->name) == s->base &&
	       quiet_exec("dhcp -x %s", s->name) == -ENOENT;
}

static int
sweep_net_cmds(unsigned *bad)
{
	struct memsnap still;
	int r = 0;

	if (sweep_tcpport != 0)
		r = sweep_cmd("tcpconnect", "eth0", NULL, NULL, bad,
		              "tcpconnect 10.0.2.2 %u sweep", sweep_tcpport);
	if (r == 0 && sweep_listenport != 0) {
		/* The last tcpconnect's connection is in TIME_WAIT: the
		 * first points of tcplisten fail quicker than it ends, and
		 * its end would look like a point's double free. */
		mem_take_settled(&still);
		r = sweep_cmd("tcplisten", "eth0", NULL, NULL, bad,
		              "tcplisten %u", sweep_listenport);
	}
	return r;
}

/* The e1000 at 10.0.2.15/24 and tcp.ko loaded; undone after. */
static int
contexts(unsigned *bad)
{
	static const char *const up[] = {"insmod e1000",
	                                 "ip addr add 10.0.2.15/24 dev eth0",
	                                 "ip link set eth0 up", "insmod tcp"};
	static const char *const down[] = {
	    "rmmod -f tcp", "ip link set eth0 down",
	    "ip addr del 10.0.2.15/24 dev eth0", "rmmod e1000"};
	char line[64];
	int r = 0;

	static const char *const keys[] = {"dhcp,", "context,", "tcpconnect,",
	                                   "tcplisten,", NULL};

	if (boot_module_find("e1000.ko") == NULL ||
	    boot_module_find("tcp.ko") == NULL || !point_in(keys))
		return 0; /* nothing to carry the workloads */
	for (size_t i = 0; i < sizeof(up) / sizeof(*up) && r == 0; i++) {
		strlcpy(line, up[i], sizeof(line));
		point_cmds++;
		r = shell_exec(line);
		if (r == 0 && i == 0) { /* the driver alone, eth0 down */
			r = sweep_cmd("dhcp", "eth0", undo_dhcp, dhcp_undone,
			              bad, "dhcp eth0");
			undo_dhcp(&(struct sweep){.name = "eth0"});
		}
	}
	for (size_t i = 0;
	     i < sizeof(ctx_sweeps) / sizeof(*ctx_sweeps) && r == 0; i++)
		r = sweep_context(&ctx_sweeps[i], bad);
	if (r == 0)
		r = sweep_net_cmds(bad);
	for (size_t i = 0; i < sizeof(down) / sizeof(*down); i++) {
		strlcpy(line, down[i], sizeof(line));
		shell_exec(line);
	}
	return r;
}

/* point='s calls: "N" or "A-B", 1 <= A <= B <= SWEEP_MAX. */
static bool
parse_calls(const char *text)
{
	char buf[sizeof(point_calls)], *dash;
	unsigned long a, b;

	if (strlen(text) >= sizeof(buf))
		return false;
	strlcpy(buf, text, sizeof(buf));
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (parse_ulong(buf, &a) != 0 ||
	    (dash != NULL && parse_ulong(dash + 1, &b) != 0))
		return false;
	if (dash == NULL)
		b = a;
	if (a == 0 || a > b || b > SWEEP_MAX)
		return false;
	point_n = (uint32_t)a;
	point_last = (uint32_t)b;
	strlcpy(point_calls, text, sizeof(point_calls));
	return true;
}

/* point=: did the point run, and inject? */
static int
point_end(void)
{
	if (!point_done) /* KEY named nothing of the sweep */
		return cmd_error("stress", -ENOENT,
		                 "faultsweep: point %s:%s: no command or "
		                 "context of this sweep is %s",
		                 point_key, point_calls, point_key);
	if (point_missed)
		return cmd_error("stress", -ERANGE,
		                 "faultsweep: point %s:%s: call %u is never "
		                 "reached (fewer calls at the sites)",
		                 point_key, point_calls, (unsigned)point_n);
	kprintf("stress: faultsweep: PASS: point %s:%s is clean\n", point_key,
	        point_calls);
	return 0;
}

static void
print_sites(void)
{
	for (int i = 0; i < FAULT_NSITES; i++)
		kprintf("stress: faultsweep: site %s: %u failure(s) injected, "
		        "%u bad\n",
		        fault_site_names[i], site_stats[i].hits,
		        site_stats[i].bad);
}

int
lt_faultsweep(int argc, char **argv)
{
	static char names[MAX_MODS][NAME_LEN];
	const char *mods[MAX_MODS];
	unsigned bad = 0;
	int n = 0, r = 0;

	if (argc > 2 + MAX_MODS)
		return cmd_usage("stress");
	static const char *const udpecho_keys[] = {"udpecho,", NULL};

	memset(site_stats, 0, sizeof(site_stats));
	sweep_tcpport = sweep_listenport = 0;
	point_key[0] = '\0';
	point_cmds = 0;
	point_missed = point_done = false;
	for (int i = 2; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		unsigned long v;

		if (eq == NULL) {
			mods[n++] = argv[i];
			continue;
		}
		if (strncmp(argv[i], "point=", 6) == 0) {
			const char *colon = strrchr(eq, ':');

			if (colon == NULL || colon == eq + 1 ||
			    (size_t)(colon - eq - 1) >= sizeof(point_key) ||
			    !parse_calls(colon + 1))
				return cmd_error("stress", -EINVAL,
				                 "faultsweep: bad point '%s' "
				                 "(KEY:N or KEY:A-B, calls "
				                 "1..%d)",
				                 eq + 1, SWEEP_MAX);
			memcpy(point_key, eq + 1, (size_t)(colon - eq - 1));
			point_key[colon - eq - 1] = '\0';
			continue;
		}
		if (parse_ulong(eq + 1, &v) != 0 || v == 0 || v > 65535)
			return cmd_error("stress", -EINVAL,
			                 "faultsweep: bad port '%s'", eq + 1);
		if (strncmp(argv[i], "tcpport=", 8) == 0)
			sweep_tcpport = (unsigned)v;
		else if (strncmp(argv[i], "listenport=", 11) == 0)
			sweep_listenport = (unsigned)v;
		else
			return cmd_error("stress", -EINVAL,
			                 "faultsweep: unknown '%s'", argv[i]);
	}
	for (int i = 0; i < n; i++)
		if (module_loaded(mods[i]))
			return cmd_error("stress", -EBUSY,
			                 "faultsweep: %s is loaded (rmmod it "
			                 "first)",
			                 mods[i]);
	if (n == 0 && point_key[0] == '\0') {
		n = default_mods(names, MAX_MODS);
		for (int i = 0; i < n; i++)
			mods[i] = names[i];
	}
	for (int i = 0; i < n && r == 0; i++)
		r = sweep_with_deps(mods[i], &bad);
	/* The run that injects nothing leaves the service: stop it. */
	if (r == 0 && point_in(udpecho_keys)) {
		r = sweep_cmd("udpecho", "7", undo_udpecho, udpecho_undone,
		              &bad, "udpecho 7");
		undo_udpecho(NULL);
	}
	if (r == 0 && point_in(udpecho_keys)) {
		r = sweep_cmd("udpecho", "7", undo_udpecho, udpecho_undone,
		              &bad, "udpecho -t 7");
		undo_udpecho(NULL);
	}
	if (r == 0)
		r = contexts(&bad);
	if (point_key[0] == '\0')
		print_sites(); /* a point's line names its site */
	if (r == -EINTR)
		return cmd_error("stress", r, "faultsweep: interrupted");
	if (r != 0)
		return cmd_error("stress", r, "faultsweep: stopped");
	if (bad != 0)
		return cmd_error("stress", -EIO,
		                 "faultsweep: %u bad failure path(s) (above)",
		                 bad);
	if (point_key[0] != '\0')
		return point_end();
	kprintf("stress: faultsweep: PASS: every failure path of %d "
	        "module(s) is clean\n",
	        n);
	return 0;
}
