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
 * Tracking (netdev_track=1): a hold that passes a struct dev_tracker is
 * put on the device's list with its tag, call site and time, under
 * dev->track_lock; holds without one are counted as "untracked".
 * netdev_track=2 (the default) also saves the hold stack and, at the
 * put, the release stack (kernel/stackdepot.h: up to 16 frames, 4 bytes
 * in the tracker), groups holders by the signature of their hold stack,
 * and a second put of one tracker is reported with the three stacks and
 * not applied to the count.  netdev_track=0 (for benchmarks) skips the
 * list and the lock; the counts stay exact.
 *
 * What a refmode adds to a hold, try-hold or put is its ops' business
 * (net/core/refmode.h; owner takes module references, legacy runs the
 * destructor from the last put).  Every put kicks the drain
 * (kernel/drain.h), so an unregister or rmmod waiting for this count
 * wakes at the last put instead of polling.
 */
#include <kernel/fault.h>
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/bootparam.h>
#include <kernel/drain.h>
#include <kernel/module.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/racepoint.h>
#include <kernel/smp.h>
#include <kernel/stackdepot.h>
#include <kernel/string.h>
#include <kernel/timer.h>

static int devref_mode; /* 0 percpu, 1 atomic */
BOOTPARAM_ENUM(devref, devref_mode, "percpu|atomic",
               "device refcount implementation (for devices allocated later)",
               1);
int netdev_track = 2;
BOOTPARAM_INT(netdev_track, netdev_track, 0, 2,
              "tracked dev_hold records: 0 nothing, 1 tag and call site, 2 "
              "also the hold and release stacks",
              0);
unsigned netdev_double_releases;

void
netdev_refcnt_init(struct net_device *dev)
{
	dev->pcpu_refs = devref_mode == 0 && netdev_refops->percpu;
	dev->track = (uint8_t)netdev_track;
	spin_init_rank(&dev->track_lock, "dev->track_lock", LOCK_RANK_TRACK);
	INIT_LIST_HEAD(&dev->trackers);
}

static void
count_add(struct net_device *dev, int delta)
{
	if (dev->pcpu_refs) {
		pcpu_counter_add(&dev->pcpu_refcnt, delta);
	} else {
		__atomic_add_fetch(&dev->refcnt, delta, __ATOMIC_SEQ_CST);
	}
}

int
netdev_refcnt_read(const struct net_device *dev)
{
	int n = __atomic_load_n(&dev->refcnt, __ATOMIC_SEQ_CST);

	if (dev->pcpu_refs)
		n += pcpu_counter_sum(&dev->pcpu_refcnt);
	return n;
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
	if (!dev->pcpu_refs || n > 1)
		return n;
	if (dev->pcpu_refcnt.dead) {
		pcpu_counter_settle(&dev->pcpu_refcnt);
		return netdev_refcnt_read(dev);
	}
	return __atomic_load_n(&dev->refcnt, __ATOMIC_SEQ_CST) +
	       pcpu_counter_sum_exact(&dev->pcpu_refcnt);
}

/* Fill t for a hold at caller, whose function's frame is frame. */
void
netdev_tracker_stamp(struct net_device *dev, struct dev_tracker *t,
                     const char *tag, uintptr_t caller, uintptr_t frame)
{
	t->tag = tag != NULL ? tag : "?";
	t->caller = caller;
	t->since = clock_stamp();
	t->hold_stack = dev->track > 1 ? stack_save_from(caller, frame) : 0;
	t->put_stack = 0;
	t->state = DEV_TRACKER_HELD;
}

static void
track_add(struct net_device *dev, struct dev_tracker *t, const char *tag,
          uintptr_t caller, uintptr_t frame)
{
	uint32_t f;

	if (t == NULL) {
		__atomic_add_fetch(&dev->untracked, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!dev->track) {
		t->link.next = NULL;
		return;
	}
	netdev_tracker_stamp(dev, t, tag, caller, frame);
	f = spin_lock_irqsave(&dev->track_lock);
	list_add_tail(&t->link, &dev->trackers);
	spin_unlock_irqrestore(&dev->track_lock, f);
}

/* A put of a tracker already put: both stacks and this one, to the
 * console even from a thread whose output is captured. */
static void
report_double_release(struct net_device *dev, struct dev_tracker *t,
                      uintptr_t caller, uintptr_t frame)
{
	struct out_capture *c = out_capture_suspend();

	__atomic_add_fetch(&netdev_double_releases, 1, __ATOMIC_RELAXED);
	pr_err("dev_put: %s: double release of a '%s' reference (tracker "
	       "%p); the count is left alone\n",
	       dev->name, t->tag, (void *)t);
	kprintf("  taken at:\n");
	stack_print(t->hold_stack, "    ");
	kprintf("  released at:\n");
	stack_print(t->put_stack, "    ");
	kprintf("  released again at:\n");
	stack_print(stack_save_from(caller, frame), "    ");
	out_capture_resume(c);
}

/* false: t was put before (reported); the caller must not put again. */
static bool
track_del(struct net_device *dev, struct dev_tracker *t, uintptr_t caller,
          uintptr_t frame)
{
	uint32_t f;

	if (t == NULL) {
		__atomic_sub_fetch(&dev->untracked, 1, __ATOMIC_RELAXED);
		return true;
	}
	if (t->state == DEV_TRACKER_RELEASED && dev->track) {
		report_double_release(dev, t, caller, frame);
		return false;
	}
	if (t->link.next == NULL)
		return true;
	f = spin_lock_irqsave(&dev->track_lock);
	list_del_init(&t->link);
	spin_unlock_irqrestore(&dev->track_lock, f);
	t->link.next = NULL;
	t->put_stack = dev->track > 1 ? stack_save_from(caller, frame) : 0;
	t->state = DEV_TRACKER_RELEASED;
	return true;
}

/* The frame of our caller's function (frame pointers are kept). */
#define CALLER_FRAME() (*(uintptr_t *)__builtin_frame_address(0))

__attribute__((noinline)) void
__dev_hold(struct net_device *dev, struct dev_tracker *t, const char *tag,
           uintptr_t caller)
{
	if (netdev_refops->hold != NULL)
		netdev_refops->hold(dev);
	count_add(dev, 1);
	track_add(dev, t, tag, caller, CALLER_FRAME());
}
EXPORT_SYMBOL(__dev_hold);

__attribute__((noinline)) bool
__try_dev_hold(struct net_device *dev, struct dev_tracker *t, const char *tag,
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
	track_add(dev, t, tag, caller, CALLER_FRAME());
	return true;
}
EXPORT_SYMBOL(__try_dev_hold);

__attribute__((noinline)) void
dev_put_track(struct net_device *dev, struct dev_tracker *t)
{
	/* Everything we need after the decrement is read before it: once
	 * the count is down, the device may be freed under us - by another
	 * CPU's last put, in legacy mode too - unless ours was the last. */
	struct module *owner = dev->owner;
	int ifindex = dev->ifindex, n = -1;

	if (!track_del(dev, t, (uintptr_t)__builtin_return_address(0),
	               CALLER_FRAME()))
		return;
	if (dev->pcpu_refs) {
		count_add(dev, -1);
	} else {
		n = __atomic_sub_fetch(&dev->refcnt, 1, __ATOMIC_SEQ_CST);
		if (n < 0) {
			/* One put too many: whoever reached zero may have
			 * freed dev already; name it by what we read. */
			race_point("dev-put-underflow");
			pr_err("dev_put: device %p (ifindex %d): reference "
			       "count below zero (%d)\n",
			       (void *)dev, ifindex, n);
			backtrace();
		}
	}
	if (netdev_refops->put != NULL)
		netdev_refops->put(dev, owner, n);
	drain_kick();
}
EXPORT_SYMBOL(dev_put_track);

/*
 * A holder's signature: its tag and where it took the reference, module
 * relative (the module's name, the symbol and the offset in it, never
 * the address), hashed.  The same leak gives the same signature in every
 * run of the same build wherever its module was loaded, and holders
 * taken at different sites differ, so two reports of "waiting for eth0"
 * can be told the same leak or not at a glance.  One frame: the call
 * site the tracker records (netdev_track=1); with stacks (2) a holder
 * is grouped by stack_signature() over its whole hold stack instead.
 */
uint32_t
netdev_holder_signature(const char *tag, uintptr_t caller)
{
	return stack_signature_frames(&caller, 1, tag);
}

#define SHOW_MAX 32

/* `refs DEV` and the unregister wait both print this: each holder, then
 * the holders grouped by signature. */
void
netdev_print_holders(struct net_device *dev, const char *prefix)
{
	struct {
		uint32_t sig;
		int n;
		const char *tag;
		uintptr_t caller;
		stack_handle_t stack;
	} g[SHOW_MAX] = {0};
	struct dev_tracker *t;
	char where[64], indent[24];
	uint32_t f, sig;
	int shown = 0, ng = 0, i;

	f = spin_lock_irqsave(&dev->track_lock);
	list_for_each_entry(t, &dev->trackers, link) {
		if (shown++ == SHOW_MAX) {
			kprintf("%s...\n", prefix);
			break;
		}
		ksym_format(t->caller, where, sizeof(where));
		kprintf("%s%-10s %s, held %u ms\n", prefix, t->tag, where,
		        (unsigned)clock_stamp_age_ms(t->since));
		sig = t->hold_stack != 0
		          ? stack_signature(t->hold_stack, t->tag)
		          : netdev_holder_signature(t->tag, t->caller);
		for (i = 0; i < ng && g[i].sig != sig; i++)
			;
		if (i == ng)
			g[ng++].sig = sig;
		if (g[i].n++ == 0) {
			g[i].tag = t->tag;
			g[i].caller = t->caller;
			g[i].stack = t->hold_stack;
		}
	}
	spin_unlock_irqrestore(&dev->track_lock, f);
	snprintf(indent, sizeof(indent), "%s    ", prefix);
	for (i = 0; i < ng; i++) {
		ksym_format(g[i].caller, where, sizeof(where));
		kprintf("%ssignature %08x: %d holder(s), %s at %s\n", prefix,
		        (unsigned)g[i].sig, g[i].n, g[i].tag, where);
		if (g[i].stack != 0) /* its first frame is the site above */
			stack_print(g[i].stack, indent);
	}
	if (dev->untracked != 0)
		kprintf("%suntracked  %d\n", prefix, dev->untracked);
	if (!dev->track)
		kprintf("%s(holder tracking off: netdev_track=0)\n", prefix);
}
