/*
 * refmode=legacy: Linux 2.5.68, the code the 2003 dev->destructor thread
 * was about.  Unregister does not wait for references; whoever drops the
 * last one runs dev->destructor - possibly after rmmod freed the driver
 * module that the destructor lives in.  What it changes from wait:
 *
 *   counts    always one atomic (devref= is ignored): dev_put itself
 *             must see the count reach zero
 *   put       the put that takes an unregistered device to zero calls
 *             its destructor, wherever that is (timer, another CPU)
 *   unregister  waits only for a grace period (lookups in flight), not
 *             for references
 *   release   drops the base; frees the device only if that was the
 *             last reference, else says how many are left
 *   rmmod     does not wait for its devices' counts: the bug
 *
 * With legacy_catch=1 the destructor call into a freed module is caught
 * and counted instead of crashing (dev_legacy.c).
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/console/printk.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/lib/string.h>

static void
legacy_put(struct net_device *dev, struct module *owner, int left)
{
	(void)owner;
	/* left == 0: ours was the last reference, dev is ours alone. */
	if (left == 0 && dev->reg_state == NETREG_UNREGISTERED)
		netdev_run_destructor(dev);
}

static int
legacy_unregister_wait(struct net_device *dev, bool interruptible)
{
	(void)dev;
	(void)interruptible;
	synchronize_rcu_expedited();
	return 0;
}

static bool
legacy_release(struct net_device *dev)
{
	char name[IFNAMSIZ];
	int n;

	/* Drop the base and return at once; whoever drops the last
	 * reference runs the destructor - maybe on another CPU right after
	 * our decrement, so dev is not touched after it. */
	strlcpy(name, dev->name, sizeof(name));
	trace_base_ref(dev, -1);
	n = refcount_dec_return(pcpu_counter_shared(&dev->refs), "device");
	race_point("netdev-finish-put");
	if (n == 0) {
		netdev_run_destructor(dev);
		return true;
	}
	pr_warn("%s: refmode=legacy: unregistered with %d reference(s) left; "
	        "the destructor runs at the last dev_put\n",
	        name, n);
	return false;
}

const struct netdev_refmode_ops refmode_legacy = {
    .name = "legacy",
    .percpu = false,
    .put = legacy_put,
    .unregister_wait = legacy_unregister_wait,
    .release = legacy_release,
    .unload_waits = false,
};
