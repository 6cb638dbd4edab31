/*
 * The device table: allocation, registration and unregistration, names
 * and interface indexes, lookups, up/down, and the notifier chain.
 *
 * Locking: rtnl (a mutex) serialises every registration, unregistration,
 * up/down and notifier (un)registration, so notifiers run one at a time
 * and may sleep.  The device list is read locklessly under rcu_read_lock;
 * an unlisted device is freed only after a grace period (unregister
 * waits for one before it waits for the references).
 *
 * unregister_netdev(dev), in order:
 *   begin    close it if up, unlist it (lookups and try_dev_hold fail from
 *            here), NETDEV_UNREGISTER so caches drop their references
 *   wait     netdev_refops->unregister_wait: for most refmodes
 *            netdev_wait_allrefs - until only the base reference is
 *            left, woken by the last dev_put (kernel/drain.h), printing
 *            the holders and re-sending NETDEV_UNREGISTER every second;
 *            Ctrl-C rolls back: listed again under the same name and
 *            index, NETDEV_REGISTER, reopened if it was up
 *   finish   netdev_refops->release drops the base reference; the
 *            destructor runs now (unregister_netdev returns 0), or, if
 *            the refmode let references outlive the unregister, at the
 *            last dev_put (NETDEV_UNREG_HELD)
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/drain.h>
#include <kernel/errno.h>
#include <kernel/initcall.h>
#include <kernel/kmalloc.h>
#include <kernel/module.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/racepoint.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/string.h>
#include <kernel/timer.h>

static DEFINE_MUTEX_RANK(rtnl_mutex, LOCK_RANK_RTNL);
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
dev_get_by_name(const char *name, struct dev_tracker *t, const char *tag)
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
dev_get_by_index(int ifindex, struct dev_tracker *t, const char *tag)
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
	__atomic_store_n(&dev->refcnt, 1, __ATOMIC_SEQ_CST);
	if (dev->track) {
		dev->reg_tracker.tag = "registered";
		dev->reg_tracker.caller =
		    (uintptr_t)__builtin_return_address(0);
		dev->reg_tracker.since_ms = now_ms();
		list_add_tail(&dev->reg_tracker.link, &dev->trackers);
	}
	__atomic_store_n(&dev->reg_state, NETREG_REGISTERED, __ATOMIC_SEQ_CST);
	list_add_tail_rcu(&dev->dev_list, &netdev_list);
	call_netdevice_notifiers(NETDEV_REGISTER, dev);
	rtnl_unlock();
	pr_info("%s: registered (ifindex %d, driver %s)\n", dev->name,
	        dev->ifindex, module_name(dev->owner));
	return 0;
}
EXPORT_SYMBOL(register_netdev);

void
netdev_unregister_begin(struct net_device *dev, bool by_rmmod)
{
	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_REGISTERED);
	dev->unreg_thread = current;
	dev->unreg_by_rmmod = by_rmmod;
	dev->was_up = netif_running(dev);
	__dev_close(dev, true);
	__atomic_store_n(&dev->reg_state, NETREG_UNREGISTERING,
	                 __ATOMIC_SEQ_CST);
	list_del_rcu(&dev->dev_list);
	/* Unlisted first: one grace period from here covers both the
	 * lookups in flight and the per-CPU adds (netdev_wait_allrefs). */
	dev->unreg_gp = rcu_gp_cookie();
	if (dev->pcpu_refs)
		pcpu_counter_kill(&dev->pcpu_refcnt);
	list_add_tail(&dev->unreg_link, &netdev_unreg_list);
	call_netdevice_notifiers(NETDEV_UNREGISTER, dev);
	dev->unreg_start_ms = now_ms();
	dev->unreg_next_msg_ms = dev->unreg_start_ms + 1000;
}

void
netdev_unregister_abort(struct net_device *dev)
{
	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING);
	dev->unreg_thread = NULL;
	list_del_init(&dev->unreg_link);
	if (dev->pcpu_refs)
		pcpu_counter_revive(&dev->pcpu_refcnt);
	list_add_tail_rcu(&dev->dev_list, &netdev_list);
	__atomic_store_n(&dev->reg_state, NETREG_REGISTERED, __ATOMIC_SEQ_CST);
	call_netdevice_notifiers(NETDEV_REGISTER, dev);
	if (dev->was_up && __dev_open(dev, true) < 0)
		pr_warn("%s: could not be reopened after the rollback\n",
		        dev->name);
	pr_info("%s: unregister abandoned, registered again%s\n", dev->name,
	        dev->was_up && netif_running(dev) ? " and up" : "");
}

void
netdev_wait_report(struct net_device *dev)
{
	uint64_t now = now_ms();

	ASSERT_RTNL();
	if (now < dev->unreg_next_msg_ms)
		return;
	dev->unreg_next_msg_ms = now + 1000;
	kprintf("unregister_netdev: waiting for %s to become free. Usage "
	        "count = %d\n",
	        dev->name, netdev_refcnt_read(dev));
	netdev_print_holders(dev, "    ");
	/* Caches that missed it, or took a reference since: again. */
	call_netdevice_notifiers(NETDEV_UNREGISTER, dev);
}

static bool
allrefs_gone(void *dev)
{
	return netdev_refcnt_settled(dev) <= 1;
}

static void
allrefs_report(void *dev, unsigned seconds)
{
	(void)seconds; /* the device keeps its own clock (begin) */
	/* Notifiers run under rtnl, also the re-sent ones. */
	rtnl_lock();
	netdev_wait_report(dev);
	rtnl_unlock();
}

/* The unregister wait of the refmodes that wait (net/core/refmode.h). */
int
netdev_wait_allrefs(struct net_device *dev, bool interruptible)
{
	struct drain d = {allrefs_gone, allrefs_report, dev, interruptible};

	ASSERT_NO_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING &&
	       dev->unreg_thread == current);
	/* Lookups that found the device before it was unlisted may still
	 * be taking references: wait for them before we count (no wait if
	 * a grace period has passed since, e.g. rmmod's can_unload). */
	rcu_gp_wait(dev->unreg_gp);
	return drain_wait(&d);
}

/* Drop the base reference, the last one: nobody else can see dev. */
bool
netdev_release_base(struct net_device *dev)
{
	int n = __atomic_sub_fetch(&dev->refcnt, 1, __ATOMIC_SEQ_CST);

	BUG_ON(n != 0 && !dev->pcpu_refs);
	netdev_run_destructor(dev);
	return true;
}

bool
netdev_unregister_finish(struct net_device *dev)
{
	struct module *owner = dev->owner;

	ASSERT_RTNL();
	ASSERT(dev->reg_state == NETREG_UNREGISTERING &&
	       dev->unreg_thread == current);
	list_del_init(&dev->unreg_link);
	dev->unreg_thread = NULL;
	__atomic_store_n(&dev->reg_state, NETREG_UNREGISTERED,
	                 __ATOMIC_SEQ_CST);
	if (dev->track) {
		uint32_t f = spin_lock_irqsave(&dev->track_lock);
		list_del_init(&dev->reg_tracker.link);
		spin_unlock_irqrestore(&dev->track_lock, f);
		dev->reg_tracker.link.next = NULL;
	}
	pr_info("%s: unregistered (driver %s)\n", dev->name,
	        module_name(owner));
	return netdev_refops->release(dev);
}

int
unregister_netdev(struct net_device *dev)
{
	int r = 0;

	rtnl_lock();
	if (dev->reg_state == NETREG_REGISTERED) {
		netdev_unregister_begin(dev, false);
	} else if (dev->reg_state == NETREG_UNREGISTERING &&
	           dev->unreg_thread == current) {
		/* rmmod's quiesce began it; this is the module's exit, on
		 * rmmod's thread: finish it here. */
		dev->unreg_by_rmmod = false;
	} else if (dev->reg_state == NETREG_UNREGISTERING) {
		/* Another thread began it and will finish it (and free it):
		 * not ours to wait for or finish. */
		pr_warn("unregister_netdev: %s: already being unregistered by "
		        "%s\n",
		        dev->name,
		        dev->unreg_by_rmmod ? "rmmod" : "another thread");
		rtnl_unlock();
		return -EBUSY;
	} else {
		rtnl_unlock();
		return -EINVAL;
	}
	/* rtnl is dropped while waiting, so holders can take it to let go
	 * (a notifier, `ip link`).  The device is unlisted and ours: nobody
	 * else can start an unregister, an open or a rollback of it. */
	rtnl_unlock();
	/* Interruptible unless the driver module is going: its exit is
	 * past the point where rmmod can be rolled back (rmmod waits in the
	 * module's can_unload hook instead). */
	r = netdev_refops->unregister_wait(
	    dev, dev->owner == NULL || dev->owner->state == MODULE_STATE_LIVE);
	rtnl_lock();
	if (r < 0) {
		netdev_unregister_abort(dev);
		rtnl_unlock();
		return r;
	}
	r = netdev_unregister_finish(dev) ? 0 : NETDEV_UNREG_HELD;
	rtnl_unlock();
	return r;
}
EXPORT_SYMBOL(unregister_netdev);

static void
netdev_init(void)
{
	extern void napi_init(void);
	extern void netdev_unload_init(void);
	netdev_refmode_select();
	napi_init();
	netdev_unload_init();
}
subsys_initcall(netdev_init);
