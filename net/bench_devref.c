/*
 * bench devref [PAIRS]: what each refcount strategy costs on the packet
 * fast path, measured side by side in one run.  Every packet (skb) in
 * flight holds its device, so a dev_hold/dev_put pair per packet is the
 * cost the 2003 thread argued about.  On a private, unregistered device:
 *
 *   wait/atomic    dev_hold + dev_put, one atomic counter (also what
 *                  pinned and legacy cost: they differ only at unload)
 *   wait/percpu    the same with per-CPU counters
 *   tracked        with a dev_tracker (holder tracking on, as in tests)
 *   owner          __module_get + dev_hold + dev_put + module_put on a
 *                  loaded driver module: Rusty's patch, every hold also
 *                  a module reference (module refcount as booted, modref=)
 *
 * Rounds alternate between the variants so that a drifting emulator
 * speed hits all of them alike; each variant reports the median of its
 * rounds in TSC cycles per pair, and its ratio to wait/atomic.  Under
 * QEMU TCG the absolute numbers say little about hardware; the ratios
 * are the result (docs/bench.md).
 */
#include <net/netdevice.h>
#include "net/netdev_internal.h"
#include <kernel/args.h>
#include <kernel/bootparam.h>
#include <kernel/clock.h>
#include <kernel/errno.h>
#include <kernel/module.h>
#include <kernel/printk.h>
#include <kernel/shell.h>
#include <kernel/string.h>
#include <kernel/x86.h>

#define ROUNDS    7
#define NVARIANTS 4

enum variant { V_ATOMIC, V_PERCPU, V_TRACKED, V_OWNER };

static const char *const variant_names[NVARIANTS] = {
    "wait/atomic", "wait/percpu", "tracked", "owner"};

static uint64_t
run_round(struct net_device *dev, enum variant v, unsigned pairs,
          struct module *owner)
{
	struct dev_tracker tr;
	uint64_t t0, t1;

	dev->pcpu_refs = v == V_PERCPU;
	dev->track = v == V_TRACKED;
	t0 = rdtsc();
	for (unsigned i = 0; i < pairs; i++) {
		switch (v) {
		case V_ATOMIC:
		case V_PERCPU:
			dev_hold(dev);
			dev_put(dev);
			break;
		case V_TRACKED:
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
booted_with(const char *name)
{
	static char buf[48];
	char v[24];
	const struct bootparam *p = bootparam_find(name);

	if (p == NULL)
		return "";
	bootparam_format(p, v, sizeof(v));
	snprintf(buf, sizeof(buf), "%s=%s", name, v);
	return buf;
}

static int
bench_devref(unsigned pairs)
{
	uint64_t samples[NVARIANTS][ROUNDS], med[NVARIANTS];
	struct net_device *dev = alloc_netdev(0, "bench0");
	struct module *owner = pick_owner();
	int nv = owner != NULL ? NVARIANTS : V_OWNER;

	if (dev == NULL) {
		if (owner != NULL)
			module_put(owner);
		return cmd_error("bench", -ENOMEM, "no device");
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int v = 0; v < nv; v++)
			samples[v][r] = run_round(dev, v, pairs, owner);
	dev->pcpu_refs = false;
	dev->track = false;
	kprintf("bench: devref: %u hold/put pairs per round, %d rounds, "
	        "median TSC cycles and ns per pair (ratio to wait/atomic); "
	        "%s\n",
	        pairs, ROUNDS, booted_with("modref"));
	for (int v = 0; v < nv; v++)
		med[v] = median(samples[v], ROUNDS);
	for (int v = 0; v < nv; v++) {
		uint64_t ns10 = tsc_to_ns(med[v] * 10);

		kprintf("bench: devref: %-12s %6u cycles %6u.%u ns  %u.%02ux\n",
		        variant_names[v], (unsigned)med[v],
		        (unsigned)(ns10 / 10), (unsigned)(ns10 % 10),
		        (unsigned)(med[v] * 100 / (med[0] ? med[0] : 1) / 100),
		        (unsigned)(med[v] * 100 / (med[0] ? med[0] : 1) % 100));
	}
	if (owner == NULL)
		kprintf("bench: devref: owner skipped: no driver module "
		        "loaded\n");
	else
		kprintf("bench: devref: owner variant used module %s "
		        "(modref as booted)\n",
		        module_name(owner));
	if (owner != NULL)
		module_put(owner);
	free_netdev(dev);
	return 0;
}

static int
cmd_bench(int argc, char **argv)
{
	unsigned long pairs = 100000;
	struct args a;

	if (args_parse(&a, "bench", argc, argv, "", 1, 2) < 0)
		return -EINVAL;
	if (strcmp(a.pos[0], "devref") != 0)
		return args_refuse(&a, "unknown benchmark '%s'", a.pos[0]);
	if (a.npos == 2 &&
	    args_num(&a, "PAIRS", a.pos[1], 1, 10000000, &pairs) < 0)
		return -EINVAL;
	return bench_devref((unsigned)pairs);
}
COMMAND(bench, "bench devref [PAIRS]",
        "cost of dev_hold/dev_put under each refcount strategy", cmd_bench);
