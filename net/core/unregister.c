/*
 * Unregistering a device: taking it off the table, waiting for its
 * references, and the Ctrl-C rollback.  The refmode decides how the wait
 * and the release behave (net/core/refmode.h); this file only sequences
 * them.  unregister_netdev() takes rtnl itself and drops it while
 * waiting, so holders can take it to let go; the steps it is made of
 * (begin, abort, finish, also run by rmmod's quiesce through
 * net/core/driver_unload.c) expect rtnl held and assert it.
 *
 * unregister_netdev(dev), in order:
 *   begin    close it if up, unlist it (lookups and try_dev_hold fail from
 *            here), NETDEV_UNREGISTER so caches drop their references
 *   wait     netdev_refops->unregister_wait: for most refmodes
 *            netdev_wait_allrefs - until only the base reference is
 *            left, woken by the last dev_put (kernel/locking/drain.h), printing
 *            the holders and re-sending NETDEV_UNREGISTER every second;
 *            Ctrl-C rolls back: listed again under the same name and
 *            index, NETDEV_REGISTER, reopened if it was up
 *   finish   netdev_refops->release drops the base reference; the
 *            destructor runs now (unregister_netdev returns 0), or, if
 *            the refmode let references outlive the unregister, at the
 *            last dev_put (NETDEV_UNREG_HELD)
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/locking/drain.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/debug/panic.h>
#include <kernel/debug/trace.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>

void
netdev_unregister_begin(struct net_device *dev, bool by_rmmod)
{
	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_REGISTERED);
	dev->unreg_thread = current;
	dev->unreg_by_rmmod = by_rmmod;
	dev->was_up = netif_running(dev);
	__dev_close(dev, true);
	__atomic_store_n(&dev->reg_state, NETREG_UNREGISTERING,
	                 __ATOMIC_SEQ_CST);
	list_del_rcu(&dev->dev_list);
	/* Unlisted first: one grace period from here covers both the
	 * lookups in flight and the per-CPU adds (netdev_wait_allrefs). */
	dev->unreg_gp = rcu_gp_cookie();
	pcpu_counter_kill(&dev->refs); /* per-CPU mode only */
	list_add_tail(&dev->unreg_link, &netdev_unreg_list);
	call_netdevice_notifiers(NETDEV_UNREGISTER, dev);
	dev->unreg_start_ms = now_ms();
	dev->unreg_next_msg_ms = dev->unreg_start_ms + 1000;
	trace_dev_phase(dev, by_rmmod ? "unreg-begin-rmmod" : "unreg-begin");
}

void
netdev_unregister_abort(struct net_device *dev)
{
	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING);
	dev->unreg_thread = NULL;
	list_del_init(&dev->unreg_link);
	pcpu_counter_revive(&dev->refs);
	list_add_tail_rcu(&dev->dev_list, &netdev_list);
	__atomic_store_n(&dev->reg_state, NETREG_REGISTERED, __ATOMIC_SEQ_CST);
	call_netdevice_notifiers(NETDEV_REGISTER, dev);
	if (dev->was_up && __dev_open(dev, true) < 0)
		pr_warn("%s: could not be reopened after the rollback\n",
		        dev->name);
	trace_dev_phase(dev, "unreg-abort");
	pr_info("%s: unregister abandoned, registered again%s\n", dev->name,
	        dev->was_up && netif_running(dev) ? " and up" : "");
}

void
netdev_wait_report(struct net_device *dev)
{
	uint64_t now = now_ms();

	ASSERT_RTNL();
	if (now < dev->unreg_next_msg_ms)
		return;
	dev->unreg_next_msg_ms = now + 1000;
	trace_dev_phase(dev, "waiting-report");
	kprintf("unregister_netdev: waiting for %s to become free. Usage "
	        "count = %d\n",
	        dev->name, netdev_refcnt_read(dev));
	netdev_print_holders(dev, "    ");
	/* Caches that missed it, or took a reference since: again. */
	call_netdevice_notifiers(NETDEV_UNREGISTER, dev);
}

static bool
allrefs_gone(void *dev)
{
	return netdev_refcnt_settled(dev) <= 1;
}

static void
allrefs_report(void *dev, unsigned seconds)
{
	(void)seconds; /* the device keeps its own clock (begin) */
	/* Notifiers run under rtnl, also the re-sent ones. */
	rtnl_lock();
	netdev_wait_report(dev);
	rtnl_unlock();
}

/* Without rtnl: only the thread that began the unregister writes
 * unreg_thread (under rtnl), so if it says us, it is us. */
NO_LOCKCHECK static bool
unregistering_here(const struct net_device *dev)
{
	return dev->unreg_thread == current;
}

/* The unregister wait of the refmodes that wait (net/core/refmode.h). */
int
netdev_wait_allrefs(struct net_device *dev, bool interruptible)
{
	struct drain d = {.done = allrefs_gone,
	                  .report = allrefs_report,
	                  .arg = dev,
	                  .interruptible = interruptible,
	                  .what = "unregister",
	                  .name = dev->name};
	int r;

	ASSERT_NO_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING &&
	       unregistering_here(dev));
	/* Lookups that found the device before it was unlisted may still
	 * be taking references: wait for them before we count (no wait if
	 * a grace period has passed since, e.g. rmmod's can_unload). */
	rcu_gp_wait(dev->unreg_gp);
	trace_dev_phase(dev, "unreg-wait");
	r = drain_wait(&d);
	trace_dev_phase(dev,
	                r == 0 ? "unreg-waited" : "unreg-wait-interrupted");
	return r;
}

/* Drop the base reference, the last one: nobody else can see dev. */
bool
netdev_release_base(struct net_device *dev)
{
	int n;

	trace_base_ref(dev, -1);
	n = refcount_dec_return(pcpu_counter_shared(&dev->refs), "device");
	BUG_ON(n != 0 && pcpu_counter_is_atomic(&dev->refs));
	netdev_run_destructor(dev);
	return true;
}

bool
netdev_unregister_finish(struct net_device *dev)
{
	struct module *owner = dev->owner;

	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING &&
	       dev->unreg_thread == current);
	list_del_init(&dev->unreg_link);
	dev->unreg_thread = NULL;
	__atomic_store_n(&dev->reg_state, NETREG_UNREGISTERED,
	                 __ATOMIC_SEQ_CST);
	if (dev->holders.level) {
		uint32_t f = spin_lock_irqsave(&dev->holders.lock);
		list_del_init(&dev->reg_tracker.link);
		spin_unlock_irqrestore(&dev->holders.lock, f);
		dev->reg_tracker.link.next = NULL;
	}
	trace_dev_phase(dev, "unreg-finish");
	pr_info("%s: unregistered (driver %s)\n", dev->name,
	        module_name(owner));
	return netdev_refops->release(dev);
}

int
unregister_netdev(struct net_device *dev)
{
	int r = 0;

	rtnl_lock();
	if (dev->reg_state == NETREG_REGISTERED) {
		netdev_unregister_begin(dev, false);
	} else if (dev->reg_state == NETREG_UNREGISTERING &&
	           dev->unreg_thread == current) {
		/* rmmod's quiesce began it; this is the module's exit, on
		 * rmmod's thread: finish it here. */
		dev->unreg_by_rmmod = false;
	} else if (dev->reg_state == NETREG_UNREGISTERING) {
		/* Another thread began it and will finish it (and free it):
		 * not ours to wait for or finish. */
		pr_warn("unregister_netdev: %s: already being unregistered by "
		        "%s\n",
		        dev->name,
		        dev->unreg_by_rmmod ? "rmmod" : "another thread");
		rtnl_unlock();
		return -EBUSY;
	} else {
		rtnl_unlock();
		return -EINVAL;
	}
	/* rtnl is dropped while waiting, so holders can take it to let go
	 * (a notifier, `ip link`).  The device is unlisted and ours: nobody
	 * else can start an unregister, an open or a rollback of it. */
	rtnl_unlock();
	/* Interruptible unless the driver module is going: its exit is
	 * past the point where rmmod can be rolled back (rmmod waits in the
	 * module's can_unload hook instead). */
	r = netdev_refops->unregister_wait(
	    dev, dev->owner == NULL || dev->owner->state == MODULE_STATE_LIVE);
	rtnl_lock();
	if (r < 0) {
		netdev_unregister_abort(dev);
		rtnl_unlock();
		return r;
	}
	r = netdev_unregister_finish(dev) ? 0 : NETDEV_UNREG_HELD;
	rtnl_unlock();
	return r;
}
EXPORT_SYMBOL(unregister_netdev);
