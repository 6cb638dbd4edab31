/*
 * The device table: allocation, registration, names and interface
 * indexes, lookups, up/down, and the notifier chain.
 *
 * Locking: rtnl (a mutex) serialises every registration, unregistration,
 * up/down and notifier (un)registration, so notifiers run one at a time
 * and may sleep.  The device list is read locklessly under rcu_read_lock;
 * an unlisted device is freed only after a grace period (unregister
 * waits for one before it waits for the references).
 *
 * unregister_netdev() and its wait: net/core/unregister.c.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/lib/errno.h>
#include <kernel/initcall.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

DEFINE_MUTEX_RANK(rtnl_mutex, LOCK_RANK_RTNL);
LIST_HEAD(netdev_list);
LIST_HEAD(netdev_unreg_list);
static LIST_HEAD(notifiers);
static int next_ifindex = 1;

void
rtnl_lock(void)
{
	mutex_lock(&rtnl_mutex);
}
EXPORT_SYMBOL(rtnl_lock);

void
rtnl_assert_held(void)
{
	mutex_assert_held(&rtnl_mutex);
}

void
rtnl_unlock(void)
{
	mutex_unlock(&rtnl_mutex);
}
EXPORT_SYMBOL(rtnl_unlock);

bool
rtnl_is_locked(void)
{
	return mutex_held(&rtnl_mutex);
}

const char *
netdev_event_name(unsigned long event)
{
	static const char *const names[] = {"NETDEV_REGISTER", "NETDEV_UP",
	                                    "NETDEV_CHANGE", "NETDEV_DOWN",
	                                    "NETDEV_UNREGISTER"};
	return event < 5 ? names[event] : "NETDEV_?";
}
EXPORT_SYMBOL(netdev_event_name);

/* ---- allocation ---------------------------------------------------------- */

struct net_device *
alloc_netdev(size_t priv_size, const char *name)
{
	struct net_device *dev;

	if (priv_size > (1u << 20) || name == NULL || strlen(name) >= IFNAMSIZ)
		return NULL;
	dev = kzalloc(sizeof(*dev) + priv_size, NETDEV_TAG);
	if (dev == NULL)
		return NULL;
	strlcpy(dev->name, name, sizeof(dev->name));
	dev->mtu = ETH_DATA_LEN;
	dev->reg_state = NETREG_UNINITIALIZED;
	dev->priv = priv_size != 0 ? (void *)(dev + 1) : NULL;
	dev->reg_tracker.link.next = NULL;
	INIT_LIST_HEAD(&dev->dev_list);
	INIT_LIST_HEAD(&dev->unreg_link);
	INIT_LIST_HEAD(&dev->napi_list);
	spin_init_rank(&dev->xmit_lock, "dev->xmit_lock", LOCK_RANK_XMIT);
	netdev_refcnt_init(dev);
	return dev;
}
EXPORT_SYMBOL(alloc_netdev);

struct net_device *
alloc_etherdev(size_t priv_size)
{
	return alloc_netdev(priv_size, "eth%d");
}
EXPORT_SYMBOL(alloc_etherdev);

void
free_netdev(struct net_device *dev)
{
	int n;

	if (dev == NULL)
		return;
	n = netdev_refcnt_read(dev);
	if ((dev->reg_state != NETREG_UNINITIALIZED &&
	     dev->reg_state != NETREG_UNREGISTERED) ||
	    n != 0) {
		/* Freeing a device someone can still reach would turn into
		 * a use-after-free far from here: leak it and say so. */
		pr_err("free_netdev: %s: still %s with %d reference(s); "
		       "leaking it\n",
		       dev->name,
		       dev->reg_state == NETREG_REGISTERED ? "registered"
		                                           : "in use",
		       n);
		return;
	}
	trace_dev_phase(dev, "free");
	kfree(dev);
}
EXPORT_SYMBOL(free_netdev);

void
netdev_run_destructor(struct net_device *dev)
{
	if (dev->destructor != NULL && !netdev_destructor_gone(dev))
		dev->destructor(dev);
}

/* ---- names and lookups ----------------------------------------------------
 */

struct net_device *
netdev_first_rcu(void)
{
	struct list_head *p = list_next_rcu(&netdev_list);

	return p == &netdev_list ? NULL
	                         : list_entry(p, struct net_device, dev_list);
}
EXPORT_SYMBOL(netdev_first_rcu);

struct net_device *
netdev_next_rcu(struct net_device *dev)
{
	struct list_head *p = list_next_rcu(&dev->dev_list);

	return p == &netdev_list ? NULL
	                         : list_entry(p, struct net_device, dev_list);
}
EXPORT_SYMBOL(netdev_next_rcu);

struct net_device *
dev_get_by_name_rcu(const char *name)
{
	for (struct net_device *d = netdev_first_rcu(); d != NULL;
	     d = netdev_next_rcu(d))
		if (strncmp(d->name, name, IFNAMSIZ) == 0)
			return d;
	return NULL;
}
EXPORT_SYMBOL(dev_get_by_name_rcu);

struct net_device *
dev_get_by_index_rcu(int ifindex)
{
	for (struct net_device *d = netdev_first_rcu(); d != NULL;
	     d = netdev_next_rcu(d))
		if (d->ifindex == ifindex)
			return d;
	return NULL;
}
EXPORT_SYMBOL(dev_get_by_index_rcu);

/* Not inlined: the tracked call site is our caller. */
__attribute__((noinline)) struct net_device *
dev_get_by_name(const char *name, struct ref_tracker *t, const char *tag)
{
	struct net_device *d;

	rcu_read_lock();
	d = dev_get_by_name_rcu(name);
	if (d != NULL &&
	    !__try_dev_hold(d, t, tag, (uintptr_t)__builtin_return_address(0)))
		d = NULL;
	rcu_read_unlock();
	return d;
}
EXPORT_SYMBOL(dev_get_by_name);

__attribute__((noinline)) struct net_device *
dev_get_by_index(int ifindex, struct ref_tracker *t, const char *tag)
{
	struct net_device *d;

	rcu_read_lock();
	d = dev_get_by_index_rcu(ifindex);
	if (d != NULL &&
	    !__try_dev_hold(d, t, tag, (uintptr_t)__builtin_return_address(0)))
		d = NULL;
	rcu_read_unlock();
	return d;
}
EXPORT_SYMBOL(dev_get_by_index);

/* Taken by a listed device or by one being unregistered, which a
 * rollback may list again under its name (rtnl held). */
static bool
name_taken(const char *name)
{
	struct net_device *d;

	ASSERT_RTNL();
	if (dev_get_by_name_rcu(name) != NULL)
		return true;
	list_for_each_entry(d, &netdev_unreg_list, unreg_link)
		if (strncmp(d->name, name, IFNAMSIZ) == 0)
			return true;
	return false;
}

/* "eth%d" -> the lowest free eth<N>; a plain name must be free. */
static int
assign_name(struct net_device *dev)
{
	const char *pct = strchr(dev->name, '%');
	char prefix[IFNAMSIZ], cand[IFNAMSIZ];

	ASSERT_RTNL();
	if (pct == NULL)
		return name_taken(dev->name) ? -EEXIST : 0;
	if (pct[1] != 'd' || strchr(pct + 1, '%') != NULL)
		return -EINVAL;
	strlcpy(prefix, dev->name, (size_t)(pct - dev->name) + 1);
	for (int i = 0; i < 100; i++) {
		snprintf(cand, sizeof(cand), "%s%d%s", prefix, i, pct + 2);
		if (!name_taken(cand)) {
			strlcpy(dev->name, cand, sizeof(dev->name));
			return 0;
		}
	}
	return -ENOSPC;
}

/* ---- notifiers --------------------------------------------------------------
 */

void
call_netdevice_notifiers(unsigned long event, struct net_device *dev)
{
	struct notifier_block *nb;

	ASSERT_RTNL();
	list_for_each_entry(nb, &notifiers, link)
		nb->notifier_call(nb, event, dev);
}

int
register_netdevice_notifier(struct notifier_block *nb)
{
	struct net_device *d;

	if (nb == NULL || nb->notifier_call == NULL)
		return -EINVAL;
	rtnl_lock();
	list_add_tail(&nb->link, &notifiers);
	list_for_each_entry(d, &netdev_list, dev_list) {
		nb->notifier_call(nb, NETDEV_REGISTER, d);
		if (netif_running(d))
			nb->notifier_call(nb, NETDEV_UP, d);
	}
	rtnl_unlock();
	return 0;
}
EXPORT_SYMBOL(register_netdevice_notifier);

void
unregister_netdevice_notifier(struct notifier_block *nb)
{
	struct net_device *d;

	rtnl_lock();
	list_del_init(&nb->link);
	list_for_each_entry(d, &netdev_list, dev_list) {
		if (netif_running(d))
			nb->notifier_call(nb, NETDEV_DOWN, d);
		nb->notifier_call(nb, NETDEV_UNREGISTER, d);
	}
	rtnl_unlock();
}
EXPORT_SYMBOL(unregister_netdevice_notifier);

/* ---- up and down ----------------------------------------------------------
 */

/* owner_pinned: the caller is the driver module itself or rmmod running
 * its hooks, so the module cannot go away during the call and a GOING
 * module must still be callable.  Everyone else takes a reference. */
int
__dev_open(struct net_device *dev, bool owner_pinned)
{
	const struct net_device_ops *ops = dev->netdev_ops;
	int r = 0;

	ASSERT_RTNL();
	if (netif_running(dev))
		return 0;
	if (dev->reg_state != NETREG_REGISTERED)
		return -ENODEV;
	if (!owner_pinned && !try_module_get(dev->owner))
		return -ENODEV;
	if (ops->ndo_open != NULL)
		r = ops->ndo_open(dev);
	if (!owner_pinned)
		module_put(dev->owner);
	if (r < 0)
		return r;
	__atomic_or_fetch(&dev->flags, IFF_UP, __ATOMIC_SEQ_CST);
	call_netdevice_notifiers(NETDEV_UP, dev);
	return 0;
}

int
__dev_close(struct net_device *dev, bool owner_pinned)
{
	const struct net_device_ops *ops = dev->netdev_ops;

	ASSERT_RTNL();
	if (!netif_running(dev))
		return 0;
	if (!owner_pinned && !try_module_get(dev->owner))
		return -EBUSY;
	/* No new transmit may enter the driver once it is being stopped. */
	__atomic_and_fetch(&dev->flags, ~IFF_UP, __ATOMIC_SEQ_CST);
	dev_xmit_disable(dev);
	if (ops->ndo_stop != NULL)
		ops->ndo_stop(dev);
	if (!owner_pinned)
		module_put(dev->owner);
	call_netdevice_notifiers(NETDEV_DOWN, dev);
	return 0;
}

int
dev_open(struct net_device *dev)
{
	int r;

	rtnl_lock();
	r = __dev_open(dev, false);
	rtnl_unlock();
	return r;
}
EXPORT_SYMBOL(dev_open);

int
dev_close(struct net_device *dev)
{
	int r;

	rtnl_lock();
	r = __dev_close(dev, false);
	rtnl_unlock();
	return r;
}
EXPORT_SYMBOL(dev_close);

void
netif_carrier_on(struct net_device *dev)
{
	if (!__atomic_exchange_n(&dev->carrier, true, __ATOMIC_SEQ_CST))
		pr_info("%s: link up\n", dev->name);
}
EXPORT_SYMBOL(netif_carrier_on);

void
netif_carrier_off(struct net_device *dev)
{
	if (__atomic_exchange_n(&dev->carrier, false, __ATOMIC_SEQ_CST))
		pr_info("%s: link down\n", dev->name);
}
EXPORT_SYMBOL(netif_carrier_off);

/* ---- registration
 * ------------------------------------------------------------ */

int
register_netdev(struct net_device *dev)
{
	int r;

	if (dev == NULL || dev->netdev_ops == NULL ||
	    dev->reg_state != NETREG_UNINITIALIZED)
		return -EINVAL;
	if (dev->mtu < 68 || dev->mtu > ETH_MAX_MTU)
		return -EINVAL;
	rtnl_lock();
	r = assign_name(dev);
	if (r < 0) {
		rtnl_unlock();
		return r;
	}
	dev->ifindex = next_ifindex++;
	dev->owner = dev->netdev_ops->owner;
	/* The base reference: the registration itself.  It is not a module
	 * reference in any mode, or a driver could never be unloaded. */
	refcount_set(pcpu_counter_shared(&dev->refs), 1);
	if (dev->holders.level) {
		ref_tracker_stamp(&dev->holders, &dev->reg_tracker,
		                  "registered",
		                  (uintptr_t)__builtin_return_address(0),
		                  *(uintptr_t *)__builtin_frame_address(0));
		list_add_tail(&dev->reg_tracker.link, &dev->holders.list);
	}
	/* the owner as the phase's holder: the timeline ties the device
	 * to its driver's lifetime by it */
	TRACE(TRACE_DEV_PHASE, dev, dev->name, dev->owner, "register",
	      REF_THIS_IP, 0, 0);
	trace_base_ref(dev, 1);
	__atomic_store_n(&dev->reg_state, NETREG_REGISTERED, __ATOMIC_SEQ_CST);
	list_add_tail_rcu(&dev->dev_list, &netdev_list);
	call_netdevice_notifiers(NETDEV_REGISTER, dev);
	rtnl_unlock();
	pr_info("%s: registered (ifindex %d, driver %s)\n", dev->name,
	        dev->ifindex, module_name(dev->owner));
	return 0;
}
EXPORT_SYMBOL(register_netdev);

/* The timeline's view of the registered devices: recorded with their
 * counts when a trace starts, their counts printed at a dump. */
static void
netdev_trace_snapshot(bool dump)
{
	rcu_read_lock();
	for (struct net_device *d = netdev_first_rcu(); d != NULL;
	     d = netdev_next_rcu(d)) {
		if (dump)
			kprintf("trace: count dev %s %08x %d\n", d->name,
			        (unsigned)(uintptr_t)d, netdev_refcnt_read(d));
		else
			TRACE(TRACE_DEV_PHASE, d, d->name, d->owner, "traced",
			      REF_THIS_IP, 0, netdev_refcnt_read(d));
	}
	rcu_read_unlock();
}

static void
netdev_init(void)
{
	extern void napi_init(void);
	extern void netdev_unload_init(void);
	netdev_refmode_select();
	napi_init();
	netdev_unload_init();
	trace_register_snapshot(netdev_trace_snapshot);
}
subsys_initcall(netdev_init);
