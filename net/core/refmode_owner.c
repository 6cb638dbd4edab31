/*
 * refmode=owner: refmode=wait, and every device reference is also a
 * reference on the driver module (dev->owner), as if devices were
 * module objects.  What it changes:
 *
 *   hold      __module_get(owner): legal, because the holder already
 *             holds the device and so, transitively, the module
 *   try-hold  try_module_get(owner) first: fails once the module is
 *             GOING, so nothing new reaches a module being unloaded
 *   put       module_put(owner) after the device count went down
 *   rmmod     is also held back by the module count itself: rmmod
 *             waits for the devices' users (and says "refcount N")
 *
 * Unregister, release and the rmmod wait are refmode=wait's.  The cost
 * is a second counter per reference (the benchmark's "owner" variant).
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/module.h>

static void
owner_hold(struct net_device *dev)
{
	__module_get(dev->owner);
}

static bool
owner_try_hold(struct net_device *dev)
{
	return try_module_get(dev->owner);
}

static void
owner_put(struct net_device *dev, struct module *owner, int left)
{
	(void)dev; /* may be gone already */
	(void)left;
	module_put(owner);
}

static const char *
owner_refused(struct net_device *dev)
{
	if (dev->owner != NULL && dev->owner->state != MODULE_STATE_LIVE)
		return "refmode=owner: its driver module is GOING";
	return NULL;
}

const struct netdev_refmode_ops refmode_owner = {
    .name = "owner",
    .percpu = true,
    .hold = owner_hold,
    .try_hold = owner_try_hold,
    .put = owner_put,
    .refused = owner_refused,
    .unregister_wait = netdev_wait_allrefs,
    .release = netdev_release_base,
    .unload_waits = true,
};
