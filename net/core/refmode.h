/*
 * refmode=: the device reference strategy, one ops table per mode, chosen
 * once at boot (like modref= chooses module_refops).  The device core
 * (dev.c, dev_refcnt.c, driver_unload.c) calls through netdev_refops and never
 * asks which mode it is in; each mode is one file:
 *
 *   refmode_wait.c    (default) unregister waits for the references
 *   refmode_owner.c   wait, and every device reference is also a
 *                     reference on the driver module
 *   refmode_pinned.c  wait, and driver modules are never unloaded
 *   refmode_legacy.c  Linux 2.5.68: unregister does not wait; the last
 *                     dev_put runs the destructor, wherever that is
 *
 * Not for drivers: a driver learns what happened from the return of
 * unregister_netdev (0: freed; NETDEV_UNREG_HELD: references remain).
 * Tests name a mode through enum netdev_refmode.
 */
#ifndef NET_REFMODE_H
#define NET_REFMODE_H

#include <stdbool.h>
#include <stddef.h>

struct net_device;
struct module;

enum netdev_refmode {
	REFMODE_WAIT,
	REFMODE_OWNER,
	REFMODE_PINNED,
	REFMODE_LEGACY,
};
extern int netdev_refmode; /* the boot parameter */

struct netdev_refmode_ops {
	const char *name;
	/* Devices may count per CPU (devref=percpu); else one atomic. */
	bool percpu;
	/* dev_hold, after the count went up.  The caller already held a
	 * reference on dev (so, transitively, on its driver module). */
	void (*hold)(struct net_device *dev);
	/* try_dev_hold, before the count goes up: false refuses. */
	bool (*try_hold)(struct net_device *dev);
	/* Every dev_put after the decrement, and a try_dev_hold undone.
	 * owner was read before the decrement; left is the count after it
	 * (-1: per-CPU or an undone try, not known).  dev may be freed
	 * already unless left == 0. */
	void (*put)(struct net_device *dev, struct module *owner, int left);
	/* Why try_dev_hold refused, if it was this mode's doing (NULL: the
	 * device is unregistering). */
	const char *(*refused)(struct net_device *dev);
	/* unregister_netdev between begin and finish (rtnl not held):
	 * 0, or -EINTR if interruptible and Ctrl-C came. */
	int (*unregister_wait)(struct net_device *dev, bool interruptible);
	/* Drop the base reference at the end of unregister (rtnl held):
	 * true if dev was freed (its destructor ran). */
	bool (*release)(struct net_device *dev);
	/* rmmod of a driver module waits for its devices' references. */
	bool unload_waits;
	/* rmmod's first question (module_unload_policy): 0 or -errno with
	 * a reason in why.  NULL: always 0. */
	int (*unload_policy)(struct module *mod, char *why, size_t size);
};

extern const struct netdev_refmode_ops *netdev_refops;
extern const struct netdev_refmode_ops refmode_wait, refmode_owner,
    refmode_pinned, refmode_legacy;
/* Select the ops from refmode= (netdev_init, once). */
void netdev_refmode_select(void);

/* The shared pieces the modes are built from (dev.c, dev_refcnt.c). */
int netdev_wait_allrefs(struct net_device *dev, bool interruptible);
bool netdev_release_base(struct net_device *dev);

#endif
