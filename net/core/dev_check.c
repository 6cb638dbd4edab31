/*
 * The netdevice lists' invariants (kernel/debug/invariant.h), under rtnl:
 * every listed device is REGISTERED with a unique name and ifindex and at
 * least its registration's reference; every device waiting on the
 * unregister list is UNREGISTERING and no listed device has its name.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include <kernel/debug/invariant.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>

static const char *
listed_sane(const struct net_device *dev, char *buf, size_t size)
{
	const struct net_device *o;

	if (dev->reg_state != NETREG_REGISTERED || dev->ifindex <= 0 ||
	    netdev_refcnt_read(dev) < 1) {
		snprintf(buf, size,
		         "%s: listed with state %d, ifindex %d, "
		         "refcount %d",
		         dev->name, dev->reg_state, dev->ifindex,
		         netdev_refcnt_read(dev));
		return buf;
	}
	list_for_each_entry(o, &netdev_list, dev_list) {
		if (o == dev)
			break;
		if (strcmp(o->name, dev->name) == 0 ||
		    o->ifindex == dev->ifindex) {
			snprintf(buf, size,
			         "%s (ifindex %d) listed twice or "
			         "with %s's ifindex",
			         dev->name, dev->ifindex, o->name);
			return buf;
		}
	}
	return NULL;
}

static const char *
unreg_sane(const struct net_device *dev, char *buf, size_t size)
{
	const struct net_device *o;

	if (dev->reg_state != NETREG_UNREGISTERING) {
		snprintf(buf, size, "%s: on the unregister list in state %d",
		         dev->name, dev->reg_state);
		return buf;
	}
	list_for_each_entry(o, &netdev_list, dev_list) {
		if (o == dev || strcmp(o->name, dev->name) == 0) {
			snprintf(buf, size, "%s: unregistering and listed%s",
			         dev->name, o == dev ? "" : " by name");
			return buf;
		}
	}
	return NULL;
}

static const char *
netdev_sane(char *buf, size_t size)
{
	const struct net_device *dev;
	const char *why = NULL;

	rtnl_lock();
	list_for_each_entry(dev, &netdev_list, dev_list) {
		if ((why = listed_sane(dev, buf, size)) != NULL)
			break;
	}
	if (why == NULL) {
		list_for_each_entry(dev, &netdev_unreg_list, unreg_link) {
			if ((why = unreg_sane(dev, buf, size)) != NULL)
				break;
		}
	}
	rtnl_unlock();
	return why;
}
INVARIANT(netdev, netdev_sane);
