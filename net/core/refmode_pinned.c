/*
 * refmode=pinned: the 2002 kernel summit's answer - a driver module that
 * has created devices is never unloaded, so no device can outlive its
 * code.  What it changes from refmode=wait: rmmod of any module is
 * refused at once (module_unload_policy):
 *
 *   rmmod: e1000: EPERM: refmode=pinned: modules are never unloaded
 *
 * Device references, unregister (`netsim del`, a driver's own remove)
 * and its wait are refmode=wait's.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/lib/errno.h>
#include <kernel/lib/string.h>

static int
pinned_unload_policy(struct module *mod, char *why, size_t size)
{
	(void)mod;
	snprintf(why, size,
	         "refmode=pinned: modules are never unloaded (boot with "
	         "refmode=wait, owner or legacy to unload)");
	return -EPERM;
}

const struct netdev_refmode_ops refmode_pinned = {
    .name = "pinned",
    .percpu = true,
    .unregister_wait = netdev_wait_allrefs,
    .release = netdev_release_base,
    .unload_waits = true,
    .unload_policy = pinned_unload_policy,
};
