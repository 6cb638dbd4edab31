/*
 * Start state and end state of a lifetime stress run.  The snapshot
 * records which modules are loaded (and their counts) and which devices
 * exist (up or down, and their counts, less those the route and ARP
 * caches hold: the run's traffic may leave entries, which expire on
 * their own schedule and are no leak).  At the end, lt_settle unloads
 * whatever the run left loaded (rmmod -f, users first), loads again what
 * it unloaded, puts each device's up/down state back, waits for the
 * counts to come back to the snapshot's (timed holders and TIME_WAIT
 * end by themselves) and runs every invariant checker.  Registered
 * devices are not all: in refmode=legacy an unregistered device lives on
 * off every list until a timed holder drops its last reference, so the
 * snapshot also counts the live device and holder objects.  And the
 * live threads: a DHCP client whose device the run removed exits a
 * little after the device has gone, its socket, state and stack with
 * it, and the run has not ended until it has (make stress's meminfo -d
 * after the run once caught one on its way out).  Every difference is
 * reported; none is tolerated.
 */
#include "lifetime/lifetime.h"
#include "modloader/module_internal.h"
#include "net/ipv4/inet.h"
#include <net/core/netdevice.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/memtag.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

#define SNAP_MAX    16
#define SETTLE_MS   30000
#define UNLOAD_TRYS 16

/* Tags whose live objects must come back to the start's count. */
enum { COUNTED_NETDEV, COUNTED_DEVHOLD, COUNTED_THREADS, NCOUNTED };
static const char *const counted_tags[NCOUNTED] = {
    [COUNTED_NETDEV] = "netdev",
    [COUNTED_DEVHOLD] = "devhold",
    [COUNTED_THREADS] = "thread",
};

struct snap_mod {
	char name[MODULE_NAME_LEN];
	int refs;
};

struct snap_dev {
	char name[IFNAMSIZ];
	bool up;
	int refs;   /* held outside the caches: must come back */
	int cached; /* held by route and ARP cache entries: traffic's */
};

struct lt_snapshot {
	struct snap_mod mods[SNAP_MAX];
	int nmods;
	struct snap_dev devs[SNAP_MAX];
	int ndevs;
	/* Live objects of the tags below, unregistered devices included. */
	int32_t objs[NCOUNTED];
};

static void
take(struct lt_snapshot *s)
{
	struct module *mod;
	struct net_device *dev;

	s->nmods = s->ndevs = 0;
	mutex_lock(&module_mutex);
	list_for_each_entry(mod, &modules, list) {
		if (s->nmods == SNAP_MAX)
			break;
		strlcpy(s->mods[s->nmods].name, mod->name, MODULE_NAME_LEN);
		s->mods[s->nmods++].refs =
		    mod->state == MODULE_STATE_LIVE ? module_refcount(mod) : -1;
	}
	mutex_unlock(&module_mutex);
	rcu_read_lock();
	for (dev = netdev_first_rcu(); dev != NULL && s->ndevs < SNAP_MAX;
	     dev = netdev_next_rcu(dev)) {
		struct snap_dev *d = &s->devs[s->ndevs++];
		strlcpy(d->name, dev->name, IFNAMSIZ);
		d->up = netif_running(dev);
		/* The caches hold a device for each entry traffic made (dst
		 * and neighbours, freed by their own timers or at
		 * NETDEV_UNREGISTER); the rest are the holders a run must
		 * give back. */
		d->cached =
		    (int)dst_count_dev(dev) + (int)arp_count_dev(dev->ifindex);
		d->refs = netdev_refcnt_read(dev) - d->cached;
	}
	rcu_read_unlock();
	for (size_t i = 0; i < NCOUNTED; i++)
		s->objs[i] = memtag_at(memtag_index(counted_tags[i]))->objs;
}

struct lt_snapshot *
lt_snapshot_take(void)
{
	struct lt_snapshot *s = kzalloc(sizeof(*s), "stress");

	if (s != NULL)
		take(s);
	return s;
}

void
lt_snapshot_free(struct lt_snapshot *s)
{
	kfree(s);
}

static const struct snap_mod *
find_mod(const struct lt_snapshot *s, const char *name)
{
	for (int i = 0; i < s->nmods; i++)
		if (strcmp(s->mods[i].name, name) == 0)
			return &s->mods[i];
	return NULL;
}

static const struct snap_dev *
find_dev(const struct lt_snapshot *s, const char *name)
{
	for (int i = 0; i < s->ndevs; i++)
		if (strcmp(s->devs[i].name, name) == 0)
			return &s->devs[i];
	return NULL;
}

/* One pass of rmmod -f over the modules the start did not have; returns
 * how many are still loaded. */
static int
unload_extra(const struct lt_snapshot *start)
{
	struct lt_snapshot now;
	int left = 0;

	take(&now);
	for (int i = now.nmods - 1; i >= 0; i--) {
		if (find_mod(start, now.mods[i].name) != NULL)
			continue;
		if (module_unload(now.mods[i].name,
		                  RMMOD_FORCE | RMMOD_QUIET) != 0)
			left++;
	}
	return left;
}

/* With netsim still loaded (it was there at the start, or refmode=pinned
 * kept it): delete the devices the run added, add back the ones it
 * deleted (a new device takes the lowest free name). */
static void
restore_netsim(const struct lt_snapshot *start)
{
	struct lt_snapshot now;
	char line[48];

	take(&now);
	for (int i = 0; i < now.ndevs; i++) {
		if (strncmp(now.devs[i].name, "nsim", 4) != 0 ||
		    find_dev(start, now.devs[i].name) != NULL)
			continue;
		snprintf(line, sizeof(line), "netsim del %s", now.devs[i].name);
		shell_exec(line);
	}
	for (int i = 0; i < start->ndevs; i++) {
		if (strncmp(start->devs[i].name, "nsim", 4) != 0 ||
		    find_dev(&now, start->devs[i].name) != NULL)
			continue;
		snprintf(line, sizeof(line), "netsim add");
		shell_exec(line);
	}
}

static void
restore(const struct lt_snapshot *start)
{
	struct lt_snapshot now;
	char err[160], line[48];

	for (int i = 0; i < UNLOAD_TRYS && unload_extra(start) > 0; i++)
		msleep(100);
	take(&now);
	for (int i = 0; i < start->nmods; i++)
		if (find_mod(&now, start->mods[i].name) == NULL)
			module_load(start->mods[i].name, 0, NULL, NULL, err,
			            sizeof(err));
	restore_netsim(start);
	take(&now);
	for (int i = 0; i < start->ndevs; i++) {
		const struct snap_dev *d = find_dev(&now, start->devs[i].name);
		if (d == NULL || d->up == start->devs[i].up)
			continue;
		snprintf(line, sizeof(line), "ip link set %s %s", d->name,
		         start->devs[i].up ? "up" : "down");
		shell_exec(line);
	}
}

/* Differences between now and the start, each reported if report;
 * own_threads: threads of the run's own that came after the snapshot
 * and are still running (bg=1: the one settling). */
static int
compare(const struct lt_snapshot *start, int own_threads, bool report)
{
	struct lt_snapshot now;
	int bad = 0;

	take(&now);
	for (int i = 0; i < now.nmods; i++) {
		const struct snap_mod *m = find_mod(start, now.mods[i].name);
		if (m == NULL || m->refs != now.mods[i].refs) {
			bad++;
			if (report)
				printk(LOG_ERR,
				       "stress: end state: module %s: %s "
				       "refcount %d (start: %d)\n",
				       now.mods[i].name,
				       m == NULL ? "left loaded," : "",
				       now.mods[i].refs, m ? m->refs : 0);
		}
	}
	for (int i = 0; i < start->nmods; i++) {
		if (find_mod(&now, start->mods[i].name) == NULL) {
			bad++;
			if (report)
				printk(LOG_ERR,
				       "stress: end state: module %s not "
				       "loaded any more\n",
				       start->mods[i].name);
		}
	}
	for (int i = 0; i < now.ndevs; i++) {
		const struct snap_dev *d = find_dev(start, now.devs[i].name);
		if (d == NULL || d->refs != now.devs[i].refs ||
		    d->up != now.devs[i].up) {
			bad++;
			if (report)
				printk(LOG_ERR,
				       "stress: end state: device %s: %s%s, "
				       "refcount %d and %d cached (start: "
				       "%s, %d)\n",
				       now.devs[i].name,
				       d == NULL ? "left registered, " : "",
				       now.devs[i].up ? "up" : "down",
				       now.devs[i].refs, now.devs[i].cached,
				       d == NULL ? "-"
				       : d->up   ? "up"
				                 : "down",
				       d ? d->refs : 0);
		}
	}
	for (int i = 0; i < start->ndevs; i++) {
		if (find_dev(&now, start->devs[i].name) == NULL) {
			bad++;
			if (report)
				printk(LOG_ERR,
				       "stress: end state: device %s gone\n",
				       start->devs[i].name);
		}
	}
	for (size_t i = 0; i < NCOUNTED; i++) {
		int32_t want =
		    start->objs[i] + (i == COUNTED_THREADS ? own_threads : 0);

		if (now.objs[i] == want)
			continue;
		bad++;
		if (report)
			printk(LOG_ERR,
			       "stress: end state: %d live %s object(s) "
			       "(start: %d)\n",
			       now.objs[i], counted_tags[i], want);
	}
	return bad;
}

int
lt_settle(struct lt_run *run, struct lt_snapshot *start)
{
	int own = run->p.bg ? 1 : 0;
	uint64_t deadline;
	int bad;

	restore(start);
	/* Timed holders, TIME_WAIT, deferred frees and exiting threads
	 * (the workers too) end by themselves. */
	deadline = now_ms() + SETTLE_MS;
	while (compare(start, own, false) != 0 && now_ms() < deadline)
		msleep(50);
	bad = compare(start, own, true);
	bad += invariants_check("at the end");
	return bad == 0 ? 0 : -EIO;
}
