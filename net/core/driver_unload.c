/*
 * rmmod of a driver module whose devices are still referenced.
 *
 * A driver module puts NETDEV_MODULE_HOOKS() in its source, which wires
 * the module's quiesce, can_unload and resume hooks to the functions
 * below.  rmmod (modloader/unload.c) then does, for the module's devices:
 *
 *   quiesce     the first half of unregister_netdev: close, unlist,
 *               NETDEV_UNREGISTER (caches drop their references)
 *   can_unload  called while rmmod waits (at each put): -EBUSY while a
 *               device has references beyond its base; prints
 *               "unregister_netdev: waiting for eth0 to become free.
 *               Usage count = N" with the holders once a second, and
 *               re-sends NETDEV_UNREGISTER
 *   resume      Ctrl-C: the rollback - every device listed again under
 *               its name and index, NETDEV_REGISTER, reopened if it was
 *               up.  The module is LIVE again and fully working.
 *
 * Only once every device is free does the module's exit run; its remove
 * path calls unregister_netdev, which finds the device already unlisted
 * and free and just finishes.  So an unregister is either completed or
 * rolled back, never left half done.
 *
 * What the refmode changes (net/core/refmode.h): whether can_unload waits for
 * the devices' counts at all (ops->unload_waits; legacy does not: the
 * 2.5.68 bug), and whether rmmod may start (ops->unload_policy, asked
 * through the module loader's unload policy list; pinned says EPERM).
 * Under owner the module's own count also holds rmmod back.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/lib/string.h>

void
netdev_module_quiesce(struct module *mod)
{
	rtnl_lock();
	for (struct list_head *p = netdev_list.next; p != &netdev_list;) {
		struct net_device *d =
		    list_entry(p, struct net_device, dev_list);
		p = p->next;
		if (d->owner == mod && d->reg_state == NETREG_REGISTERED)
			netdev_unregister_begin(d, true);
	}
	rtnl_unlock();
}
EXPORT_SYMBOL(netdev_module_quiesce);

int
netdev_module_can_unload(struct module *mod, char *why, size_t size)
{
	struct net_device *d;
	int busy = 0, off = 0;

	rtnl_lock();
	/* A device of the module that another thread is unregistering
	 * (`netsim del`) is that thread's to finish, and its destructor
	 * is module code: wait for it, whatever the counts (also in
	 * refmode=legacy, where that unregister does not wait for them). */
	list_for_each_entry(d, &netdev_unreg_list, unreg_link) {
		if (d->owner != mod || d->unreg_by_rmmod)
			continue;
		busy++;
		if ((size_t)off < size)
			off += snprintf(why + off, size - (size_t)off,
			                "%s%s being unregistered by another "
			                "thread",
			                busy > 1 ? ", " : "", d->name);
	}
	if (!netdev_refops->unload_waits) {
		rtnl_unlock();
		return busy ? -EBUSY : 0;
	}
	/* Still registered: `rmmod -n` (no quiesce).  Busy if held. */
	list_for_each_entry(d, &netdev_list, dev_list) {
		int n = d->owner == mod ? netdev_refcnt_read(d) : 0;
		if (n <= 1)
			continue;
		busy++;
		if ((size_t)off < size)
			off += snprintf(why + off, size - (size_t)off,
			                "%s%s usage count %d",
			                busy > 1 ? ", " : "", d->name, n);
	}
	list_for_each_entry(d, &netdev_unreg_list, unreg_link) {
		int n;

		if (d->owner != mod || !d->unreg_by_rmmod)
			continue;
		n = netdev_refcnt_settled(d);
		if (n <= 1)
			continue;
		netdev_wait_report(d);
		busy++;
		if ((size_t)off < size)
			off += snprintf(why + off, size - (size_t)off,
			                "%s%s usage count %d",
			                busy > 1 ? ", " : "", d->name, n);
	}
	rtnl_unlock();
	return busy ? -EBUSY : 0;
}
EXPORT_SYMBOL(netdev_module_can_unload);

void
netdev_module_resume(struct module *mod)
{
	struct net_device *d, *n;

	rtnl_lock();
	/* Only what rmmod's quiesce began: an unregister another thread
	 * owns is left to that thread, which finishes it. */
	list_for_each_entry_safe(d, n, &netdev_unreg_list, unreg_link) {
		if (d->owner == mod && d->unreg_by_rmmod)
			netdev_unregister_abort(d);
	}
	rtnl_unlock();
}
EXPORT_SYMBOL(netdev_module_resume);

/* An unload policy (kernel/module.h): the refmode's say. */
static int
netdev_unload_policy(struct module *mod, char *why, size_t size)
{
	if (netdev_refops->unload_policy == NULL)
		return 0;
	return netdev_refops->unload_policy(mod, why, size);
}

static struct module_unload_policy netdev_policy = {
    .check = netdev_unload_policy,
};
static struct refs_show_hook netdev_refs = {
    .show = netdev_refs_show,
};

void
netdev_unload_init(void)
{
	module_unload_policy_register(&netdev_policy);
	refs_show_hook_register(&netdev_refs);
}
