/*
 * refmode=wait (the default): what Linux did from 2.6 on, after the 2003
 * dev->destructor thread (Miller, Kuznetsov).
 *
 *   hold, try-hold, put   only the device's own count (per-CPU or
 *                         atomic, devref=); nothing else is pinned
 *   unregister            unlists the device, sends NETDEV_UNREGISTER,
 *                         then waits - printing the holders and
 *                         re-sending the event each second - until only
 *                         the registration's base reference is left;
 *                         Ctrl-C rolls it back while rmmod can
 *   release               drops the base: the destructor runs right
 *                         there, in the unregistering thread, while the
 *                         driver module is certainly still loaded
 *   rmmod of a driver     waits for its devices' counts (net/core/driver_unload.c)
 *
 * The cost: an unregister can wait forever for a leaked reference; the
 * benefit: no destructor ever runs after its module is gone.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"

const struct netdev_refmode_ops refmode_wait = {
    .name = "wait",
    .percpu = true,
    .unregister_wait = netdev_wait_allrefs,
    .release = netdev_release_base,
    .unload_waits = true,
};
