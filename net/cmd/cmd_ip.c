/*
 * ip link [show [DEV]], ip link set DEV up|down, and the device half of
 * `refs` (netdev_refs_show).  Devices are looked up with a counted,
 * tracked reference ("ip"), so a command that sleeps (ndo_open) never
 * runs on a device that is being freed.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

static const char *
reg_state_name(int s)
{
	switch (s) {
	case NETREG_REGISTERED:
		return "registered";
	case NETREG_UNREGISTERING:
		return "unregistering";
	case NETREG_UNREGISTERED:
		return "unregistered";
	}
	return "new";
}

static void
print_link(struct net_device *d)
{
	const uint8_t *m = d->dev_addr;

	kprintf("%d: %s mac %02x:%02x:%02x:%02x:%02x:%02x mtu %u state %s "
	        "carrier %s refcnt %d driver %s\n",
	        d->ifindex, d->name, m[0], m[1], m[2], m[3], m[4], m[5], d->mtu,
	        netif_running(d) ? "UP" : "DOWN", d->carrier ? "on" : "off",
	        netdev_refcnt_read(d), module_name(d->owner));
	kprintf("    rx %llu packets %llu bytes %llu errors %llu dropped; "
	        "tx %llu packets %llu bytes %llu errors %llu dropped\n",
	        (unsigned long long)d->stats.rx_packets,
	        (unsigned long long)d->stats.rx_bytes,
	        (unsigned long long)d->stats.rx_errors,
	        (unsigned long long)d->stats.rx_dropped,
	        (unsigned long long)d->stats.tx_packets,
	        (unsigned long long)d->stats.tx_bytes,
	        (unsigned long long)d->stats.tx_errors,
	        (unsigned long long)d->stats.tx_dropped);
}

static int
link_show(const char *name)
{
	struct net_device *d;
	int n = 0;

	/* Under rcu_read_lock the devices cannot be freed; printing does
	 * not sleep. */
	rcu_read_lock();
	for (d = netdev_first_rcu(); d != NULL; d = netdev_next_rcu(d)) {
		if (name != NULL && strcmp(d->name, name) != 0)
			continue;
		print_link(d);
		n++;
	}
	rcu_read_unlock();
	if (name != NULL && n == 0)
		return cmd_error("ip", -ENODEV,
		                 "no device %s (ip link lists "
		                 "them)",
		                 name);
	if (n == 0)
		kprintf("(no network devices)\n");
	return 0;
}

static int
link_set(const char *name, const char *what)
{
	struct ref_tracker t;
	struct net_device *d;
	bool up;
	int r;

	if (strcmp(what, "up") == 0)
		up = true;
	else if (strcmp(what, "down") == 0)
		up = false;
	else
		return cmd_error("ip", -EINVAL, "'%s': expected up or down",
		                 what);
	d = dev_get_by_name(name, &t, "ip");
	if (d == NULL)
		return cmd_error("ip", -ENODEV, "no device %s", name);
	r = up ? dev_open(d) : dev_close(d);
	dev_put_track(d, &t);
	if (r < 0)
		return cmd_error(
		    "ip", r, "%s: cannot bring it %s%s", name, what,
		    r == -ENODEV ? " (its driver is unloading)" : "");
	return 0;
}

/* `ip link ...`; the `ip` command itself (net/cmd/cmd_inet.c) dispatches
 * here, so there is one `ip` with link, addr and route. */
int
ip_link_command(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "link") != 0) {
		if (argc >= 2)
			return cmd_error("ip", -EINVAL,
			                 "unknown object '%s' (ip link)",
			                 argv[1]);
		return cmd_usage("ip");
	}
	if (argc == 2)
		return link_show(NULL);
	if (strcmp(argv[2], "show") == 0 && argc <= 4)
		return link_show(argc == 4 ? argv[3] : NULL);
	if (strcmp(argv[2], "set") == 0 && argc == 5)
		return link_set(argv[3], argv[4]);
	return cmd_refuse("ip", "expected ip link [show [DEV] | set DEV "
	                        "up|down]");
}

/* Registered or being unregistered (those are on their own list). */
static struct net_device *
find_any(const char *name) REQUIRES(rtnl_mutex)
{
	struct net_device *d;

	list_for_each_entry(d, &netdev_list, dev_list)
		if (strcmp(d->name, name) == 0)
			return d;
	list_for_each_entry(d, &netdev_unreg_list, unreg_link)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

static void
refs_one(struct net_device *d)
{
	kprintf("%s: usage count %d (1 is the registration), %s, refmode %s, "
	        "%s counters, driver %s\n",
	        d->name, netdev_refcnt_read(d), reg_state_name(d->reg_state),
	        netdev_refmode_name(),
	        pcpu_counter_is_atomic(&d->refs) ? "atomic" : "per-CPU",
	        module_name(d->owner));
	netdev_print_holders(d, "    ");
}

/* NULL: every device, registered or being unregistered. */
int
netdev_refs_show(const char *name)
{
	struct net_device *d;

	rtnl_lock();
	if (name == NULL) {
		list_for_each_entry(d, &netdev_list, dev_list)
			refs_one(d);
		list_for_each_entry(d, &netdev_unreg_list, unreg_link)
			refs_one(d);
		rtnl_unlock();
		return 0;
	}
	d = find_any(name);
	if (d != NULL)
		refs_one(d);
	rtnl_unlock();
	return d != NULL ? 0 : -ENOENT;
}
EXPORT_SYMBOL(netdev_refs_show);
