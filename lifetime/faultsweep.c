/*
 * `stress faultsweep [MODULE..]`: every failure path of loading each
 * module and of bringing each of its devices up, one at a time.  For
 * N = 1, 2, ... the command (insmod M, then ip link set DEV up) runs with
 * its Nth call at an injection site failing (fault.h), until a run
 * injects nothing.  After each injected failure:
 *   - the command failed with exactly one line, "CMD: ... ENAME: reason"
 *     (or it absorbed the failure and succeeded: then it is undone),
 *   - nothing is half-done: the module is not loaded (the device is
 *     down), and every memory tag (meminfo) and every reference count is
 *     back where it was.
 * Modules given must not be loaded; default: every tree module that is a
 * boot module.
 */
#include "lifetime/lifetime.h"
#include "modloader/module_internal.h"
#include <net/core/netdevice.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/memtag.h>
#include <kernel/bootmod.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/string.h>

#define SWEEP_MAX 5000 /* calls at the sites of one command */
#define SETTLE_MS 2000 /* deferred frees (RCU, timers) */
#define NAME_LEN  32

struct memsnap {
	int32_t objs[MAX_MEMTAGS], bytes[MAX_MEMTAGS], pages[MAX_MEMTAGS];
	int n;
};

struct sweep {
	const char *cmd; /* "insmod" or "ip" */
	char line[64];   /* the command line */
	unsigned points; /* failures injected */
	unsigned absorbed;
	unsigned bad;
	unsigned by_site[FAULT_NSITES];
};

static void
mem_take(struct memsnap *m)
{
	m->n = memtag_count();
	for (int i = 0; i < m->n; i++) {
		struct memtag *t = memtag_at(i);
		m->objs[i] = t->objs;
		m->bytes[i] = t->bytes;
		m->pages[i] = t->pages;
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

static void
complain(struct sweep *s, uint32_t n, const struct fault_ctx *c,
         const char *what)
{
	s->bad++;
	printk(LOG_ERR,
	       "stress: faultsweep: FAIL: '%s' with call %u failing "
	       "(%s): %s\n",
	       s->line, (unsigned)n,
	       c->last_site >= 0 ? fault_site_names[c->last_site] : "-", what);
}

/* Run the line with call n failing; 0 done (nothing injected), 1 go on,
 * -errno the command failed by itself. */
static int
sweep_one(struct sweep *s, uint32_t n, int (*undo)(struct sweep *),
          bool (*undone)(struct sweep *))
{
	struct fault_ctx ctx = {.sites = FAULT_ALL, .nth = n};
	struct out_capture out;
	struct memsnap before;
	char line[64], why[160];
	const char *leak;
	int r;

	mem_take(&before);
	strlcpy(line, s->line, sizeof(line));
	out_capture_begin(&out);
	fault_set(&ctx);
	r = shell_exec(line);
	fault_set(NULL);
	out_capture_end();
	if (ctx.injected == 0) {
		if (r != 0)
			printk(LOG_ERR,
			       "stress: faultsweep: '%s' fails "
			       "without injection: %s\n",
			       s->line, out.last);
		return r != 0 ? r : 0;
	}
	s->points++;
	s->by_site[ctx.last_site]++;
	if (r == 0) {
		s->absorbed++;
		undo(s);
	} else {
		if (out.lines != 1 || !clear_line(s->cmd, out.last)) {
			snprintf(why, sizeof(why),
			         "%u lines of output, last '%s'", out.lines,
			         out.last);
			complain(s, n, &ctx, why);
		}
		if (!undone(s))
			complain(s, n, &ctx, "left half-done");
	}
	leak = mem_changed(&before, why, sizeof(why));
	if (leak != NULL)
		complain(s, n, &ctx, leak);
	return 1;
}

static int
sweep(struct sweep *s, int (*undo)(struct sweep *),
      bool (*undone)(struct sweep *))
{
	int r = 1;
	uint32_t n;

	for (n = 1; n <= SWEEP_MAX && r == 1; n++) {
		if (signal_pending())
			return -EINTR;
		r = sweep_one(s, n, undo, undone);
	}
	if (r < 0)
		return r;
	kprintf("stress: faultsweep: %s: %u failure points (kmalloc %u, "
	        "pages %u, modget %u, devhold %u, irq %u, sock %u, thread "
	        "%u; %u absorbed), %u bad\n",
	        s->line, s->points, s->by_site[FAULT_KMALLOC],
	        s->by_site[FAULT_PAGES], s->by_site[FAULT_MODGET],
	        s->by_site[FAULT_DEVHOLD], s->by_site[FAULT_IRQ],
	        s->by_site[FAULT_SOCK], s->by_site[FAULT_THREAD], s->absorbed,
	        s->bad);
	return r == 1 ? -E2BIG : 0;
}

/* ---- insmod M -------------------------------------------------------------
 */

static const char *
line_arg(const struct sweep *s)
{
	const char *p = strrchr(s->line, ' ');

	return p != NULL ? p + 1 : s->line;
}

static int
undo_insmod(struct sweep *s)
{
	return module_unload(line_arg(s), RMMOD_QUIET | RMMOD_FORCE);
}

static bool
insmod_undone(struct sweep *s)
{
	return !module_loaded(line_arg(s));
}

/* ---- ip link set DEV up ------------------------------------------------- */

static char up_dev[IFNAMSIZ];

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
undo_up(struct sweep *s)
{
	char line[48];

	snprintf(line, sizeof(line), "ip link set %s down", up_dev);
	return shell_exec(line);
}

static bool
up_undone(struct sweep *s)
{
	return !dev_is_up(up_dev);
}

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

static int
sweep_module(const char *mod, unsigned *bad)
{
	struct sweep s = {.cmd = "insmod"};
	char names[4][IFNAMSIZ];
	int r, n;

	snprintf(s.line, sizeof(s.line), "insmod %s", mod);
	r = sweep(&s, undo_insmod, insmod_undone);
	*bad += s.bad;
	if (r != 0)
		return r;
	/* Loaded without injection: now its devices' up. */
	n = devs_of(mod, names, 4);
	for (int i = 0; i < n && r == 0; i++) {
		struct sweep u = {.cmd = "ip"};
		strlcpy(up_dev, names[i], sizeof(up_dev));
		snprintf(u.line, sizeof(u.line), "ip link set %s up", up_dev);
		r = sweep(&u, undo_up, up_undone);
		*bad += u.bad;
		undo_up(&u);
	}
	if (module_unload(mod, RMMOD_QUIET | RMMOD_FORCE) != 0 && r == 0)
		r = -EBUSY;
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
sweep_with_deps(const char *mod, unsigned *bad)
{
	char deps[48], *d[4], err[160], *p;
	int nd = 0, r = 0;

	strlcpy(deps, deps_of(mod), sizeof(deps));
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
	if (r == 0)
		r = sweep_module(mod, bad);
	for (int i = nd - 1; i >= 0; i--)
		module_unload(d[i], RMMOD_QUIET);
	return r;
}

int
lt_faultsweep(int argc, char **argv)
{
	static const char *const all[] = {
	    "netsim",  "e1000",   "virtio_net", "tcp",   "sockproto",
	    "chain_a", "chain_b", "chain_c",    "hello", "params"};
	const char *mods[16];
	char ko[NAME_LEN + 4];
	unsigned bad = 0;
	int n = 0, r = 0;

	if (argc > 2 + 16)
		return cmd_usage("stress");
	for (int i = 2; i < argc; i++)
		mods[n++] = argv[i];
	if (n == 0) {
		for (unsigned i = 0; i < sizeof(all) / sizeof(*all); i++) {
			snprintf(ko, sizeof(ko), "%s.ko", all[i]);
			if (boot_module_find(ko) != NULL)
				mods[n++] = all[i];
		}
	}
	for (int i = 0; i < n; i++)
		if (module_loaded(mods[i]))
			return cmd_error("stress", -EBUSY,
			                 "faultsweep: %s is loaded (rmmod it "
			                 "first)",
			                 mods[i]);
	for (int i = 0; i < n && r == 0; i++)
		r = sweep_with_deps(mods[i], &bad);
	if (r == -EINTR)
		return cmd_error("stress", r, "faultsweep: interrupted");
	if (r != 0)
		return cmd_error("stress", r, "faultsweep: stopped");
	if (bad != 0)
		return cmd_error("stress", -EIO,
		                 "faultsweep: %u bad failure path(s) (above)",
		                 bad);
	kprintf("stress: faultsweep: PASS: every failure path of %d "
	        "module(s) is clean\n",
	        n);
	return 0;
}
