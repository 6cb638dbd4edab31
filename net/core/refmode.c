/*
 * refmode= (net/core/refmode.h): the boot parameter and the table it picks.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/bootparam.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>

int netdev_refmode;
BOOTPARAM_ENUM(refmode, netdev_refmode, "wait|owner|pinned|legacy",
               "netdevice refcount strategy (docs/netdev.md)", 0);
EXPORT_SYMBOL(netdev_refmode);

static const struct netdev_refmode_ops *const modes[] = {
    [REFMODE_WAIT] = &refmode_wait,
    [REFMODE_OWNER] = &refmode_owner,
    [REFMODE_PINNED] = &refmode_pinned,
    [REFMODE_LEGACY] = &refmode_legacy,
};

const struct netdev_refmode_ops *netdev_refops = &refmode_wait;

void
netdev_refmode_select(void)
{
	ASSERT(netdev_refmode >= 0 && netdev_refmode < 4);
	netdev_refops = modes[netdev_refmode];
}

const char *
netdev_refmode_name(void)
{
	return netdev_refops->name;
}
EXPORT_SYMBOL(netdev_refmode_name);
