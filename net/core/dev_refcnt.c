/*
 * Device references: dev_hold/dev_put, the two counter implementations,
 * holder tracking, and what refmode= changes about them.
 *
 *   devref=atomic   one counter (what Linux 2.5 had)
 *   devref=percpu   each CPU counts its own holds and puts with interrupts
 *                   off; only the sum means anything, and the sum is exact
 *                   only while nobody can change it, so unregister
 *                   switches the counter to one atomic (pcpu_counter_kill
 *                   at begin, settled after a grace period) before its
 *                   final "has it reached the base?" check
 *                   (netdev_refcnt_settled).  A refmode whose ops say
 *                   !percpu (legacy: dev_put must see zero) gets atomic.
 *
 * Tracking (kernel/locking/ref_tracker.h, dev->holders): with netdev_track=1 a
 * hold that passes a struct ref_tracker is put on the device's list with
 * its tag, call site and time; holds without one are counted as
 * "untracked".  netdev_track=2 (the default) also saves the hold stack
 * and, at the put, the release stack (up to 16 frames, 4 bytes in the
 * tracker), groups holders by the signature of their hold stack, and a
 * put through a tracker that holds nothing (a double put, a put after
 * free) is reported with the stacks and not applied to the count.
 * netdev_track=0 (for benchmarks) skips the list and the lock; the
 * counts stay exact.
 *
 * What a refmode adds to a hold, try-hold or put is its ops' business
 * (net/core/refmode.h; owner takes module references, legacy runs the
 * destructor from the last put).  Every put kicks the drain
 * (kernel/locking/drain.h), so an unregister or rmmod waiting for this count
 * wakes at the last put instead of polling.
 */
#include <kernel/debug/fault.h>
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/bootparam.h>
#include <kernel/locking/drain.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/debug/racepoint.h>
#include <kernel/arch/smp.h>
#include <kernel/debug/stackdepot.h>
#include <kernel/debug/trace.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

static int devref_mode; /* 0 percpu, 1 atomic */
BOOTPARAM_ENUM(devref, devref_mode, "percpu|atomic",
               "device refcount implementation (for devices allocated later)",
               1);
int netdev_track = 2;
BOOTPARAM_INT(netdev_track, netdev_track, 0, 2,
              "tracked dev_hold records: 0 nothing, 1 tag and call site, 2 "
              "also the hold and release stacks",
              0);

void
netdev_refcnt_init(struct net_device *dev)
{
	if (devref_mode == 0 && netdev_refops->percpu)
		pcpu_counter_init(&dev->refs);
	else
		pcpu_counter_init_atomic(&dev->refs, 0);
	ref_tracker_dir_init(&dev->holders, netdev_track, "dev_put", dev->name,
	                     "dev->holders.lock");
}

static void
count_add(struct net_device *dev, int delta)
{
	if (!pcpu_counter_is_atomic(&dev->refs))
		pcpu_counter_add(&dev->refs, delta);
	else if (delta > 0) /* ordered before a try-hold's state check */
		refcount_inc_full(pcpu_counter_shared(&dev->refs), "device");
	else
		(void)refcount_dec_return(pcpu_counter_shared(&dev->refs),
		                          "device");
}

int
netdev_refcnt_read(const struct net_device *dev)
{
	return pcpu_counter_sum(&dev->refs);
}
EXPORT_SYMBOL(netdev_refcnt_read);

int
netdev_refcnt_settled(struct net_device *dev)
{
	int n = netdev_refcnt_read(dev);

	/* Only a sum that looks final needs the exact look.  An
	 * unregistering device's counter was killed at begin: settling it
	 * costs one grace period (shared with the lookups' one), once; a
	 * registered device (a test) is summed with the CPUs stopped. */
	if (pcpu_counter_is_atomic(&dev->refs) || n > 1)
		return n;
	if (dev->refs.dead) {
		pcpu_counter_settle(&dev->refs);
		return netdev_refcnt_read(dev);
	}
	return pcpu_counter_sum_exact(&dev->refs);
}

__attribute__((noinline)) void
__dev_hold(struct net_device *dev, struct ref_tracker *t, const char *tag,
           uintptr_t caller)
{
	if (netdev_refops->hold != NULL)
		netdev_refops->hold(dev);
	count_add(dev, 1);
	ref_tracker_add(&dev->holders, t, tag, caller, REF_CALLER_FRAME());
	TRACE(TRACE_DEV_HOLD, dev, dev->name, t, tag, caller, 1,
	      netdev_refcnt_read(dev));
}
EXPORT_SYMBOL(__dev_hold);

__attribute__((noinline)) bool
__try_dev_hold(struct net_device *dev, struct ref_tracker *t, const char *tag,
               uintptr_t caller)
{
	if (fault_should_fail(FAULT_DEVHOLD))
		return false;
	if (netdev_refops->try_hold != NULL && !netdev_refops->try_hold(dev))
		return false;
	/* Checked after the count is up: unregister unlists, then waits for
	 * the count, so either it sees our hold or we see its state. */
	count_add(dev, 1);
	if (__atomic_load_n(&dev->reg_state, __ATOMIC_SEQ_CST) !=
	    NETREG_REGISTERED) {
		count_add(dev, -1);
		if (netdev_refops->put != NULL)
			netdev_refops->put(dev, dev->owner, -1);
		drain_kick();
		return false;
	}
	ref_tracker_add(&dev->holders, t, tag, caller, REF_CALLER_FRAME());
	TRACE(TRACE_DEV_HOLD, dev, dev->name, t, tag, caller, 1,
	      netdev_refcnt_read(dev));
	return true;
}
EXPORT_SYMBOL(__try_dev_hold);

__attribute__((noinline)) void
dev_put_track(struct net_device *dev, struct ref_tracker *t)
{
	/* Everything we need after the decrement is read before it: once
	 * the count is down, the device may be freed under us - by another
	 * CPU's last put, in legacy mode too - unless ours was the last. */
	struct module *owner = dev->owner;
	uintptr_t site = (uintptr_t)__builtin_return_address(0);
	int n = -1;

	if (!ref_tracker_del(&dev->holders, t, site, REF_CALLER_FRAME()))
		return;
	/* recorded before the drop: after it, dev may be gone */
	TRACE(TRACE_DEV_PUT, dev, dev->name, t, t != NULL ? t->tag : NULL, site,
	      -1, netdev_refcnt_read(dev) - 1);
	if (!pcpu_counter_is_atomic(&dev->refs)) {
		count_add(dev, -1);
	} else {
		/* one put too many is reported there, reading nothing
		 * of dev: whoever reached zero may have freed it already,
		 * and nothing below may read it either */
		n = refcount_dec_return(pcpu_counter_shared(&dev->refs),
		                        "device");
		if (n < 0)
			race_point("dev-put-underflow");
	}
	if (netdev_refops->put != NULL)
		netdev_refops->put(dev, owner, n);
	drain_kick();
}
EXPORT_SYMBOL(dev_put_track);

/* `refs DEV` and the unregister wait both print this: each holder, then
 * the holders grouped by the signature of their hold stack (module
 * relative: the same leak gives the same signature in every run of the
 * same build; netdev_track=1 hashes the call site alone). */
void
netdev_print_holders(struct net_device *dev, const char *prefix)
{
	ref_tracker_print(&dev->holders, prefix);
	if (!dev->holders.level)
		kprintf("%s(holder tracking off: netdev_track=0)\n", prefix);
}
