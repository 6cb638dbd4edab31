/*
 * Suite "netdev_race": device unregistration racing a second lifetime
 * operation (docs/testing.md, "Race points").  A fake driver built into the
 * kernel, owned by a fake module record so that the rmmod hooks of
 * net/core/driver_unload.c can be run on it by hand: GOING, quiesce, can_unload,
 * resume.  The scenario tests/scenarios/races-netdev.scn runs it with
 * kfence=1, so a device freed too early faults at the first late touch.
 *
 *   resume_spares_foreign_unregister   an rmmod rolled back while another
 *                                      thread unregisters one of the
 *                                      module's devices leaves that
 *                                      device to that thread
 *   second_unregister_refused          two unregister_netdev of one
 *                                      device: the second is EBUSY, the
 *                                      device is finished once
 *   name_reserved_while_unregistering  a device waiting in unregister
 *                                      keeps its name: a new device gets
 *                                      another, and the rollback never
 *                                      lists two of one name
 *   legacy_finish_outlives_last_put    refmode=legacy: the last dev_put
 *                                      on another CPU while unregister is
 *                                      finishing frees the device; the
 *                                      finish must not touch it after
 */
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/module.h>
#include <kernel/debug/racepoint.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"

static struct module *fake_owner;

static int
nop_xmit(struct sk_buff *skb, struct net_device *dev)
{
	(void)skb;
	(void)dev;
	return NETDEV_TX_BUSY;
}

static struct net_device_ops owned_ops = {.ndo_start_xmit = nop_xmit};
static const struct net_device_ops kernel_ops = {.ndo_start_xmit = nop_xmit};

static void
free_dev(struct net_device *dev)
{
	free_netdev(dev);
}

/* A registered device, owned by the fake module if owned. */
static struct net_device *
new_dev(const char *name, bool owned)
{
	struct net_device *dev = alloc_netdev(0, name);

	if (dev == NULL)
		return NULL;
	dev->netdev_ops = owned ? &owned_ops : &kernel_ops;
	dev->destructor = free_dev;
	if (register_netdev(dev) < 0) {
		free_netdev(dev);
		return NULL;
	}
	return dev;
}

/* A module record with only what the device layer reads: its name and
 * state (the cases never take module references on it). */
static bool
make_owner(struct ktest *t)
{
	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return false;
	}
	fake_owner = kzalloc(sizeof(*fake_owner), "ktest");
	KASSERT_TRUE(t, fake_owner != NULL);
	strlcpy(fake_owner->name, "ktest_drv", sizeof(fake_owner->name));
	fake_owner->state = MODULE_STATE_LIVE;
	owned_ops.owner = fake_owner;
	return true;
}

static void
drop_owner(void)
{
	owned_ops.owner = NULL;
	kfree(fake_owner);
	fake_owner = NULL;
}

static int
do_unregister(void *dev)
{
	return unregister_netdev(dev);
}

static struct kt_async *
start_unreg(struct net_device *dev)
{
	return kt_async_start("ktest-unreg", do_unregister, dev);
}

static void
resume_spares_foreign_unregister(struct ktest *t)
{
	struct net_device *dev;
	struct kt_async *a;
	char why[128];
	int ifindex;

	if (!make_owner(t))
		return;
	dev = new_dev("ktst%d", true);
	KASSERT_TRUE(t, dev != NULL);
	ifindex = dev->ifindex;
	dev_hold(dev);
	/* Thread D unregisters it and waits for our reference. */
	a = start_unreg(dev);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t,
	             kt_poll(READ_ONCE(dev->reg_state) == NETREG_UNREGISTERING,
	                     KT_SOON_MS));
	/* Meanwhile an rmmod of its module starts, waits, and is rolled
	 * back (Ctrl-C). */
	fake_owner->state = MODULE_STATE_GOING;
	netdev_module_quiesce(fake_owner);
	KEXPECT_EQ(t, netdev_module_can_unload(fake_owner, why, sizeof(why)),
	           -EBUSY);
	netdev_module_resume(fake_owner);
	fake_owner->state = MODULE_STATE_LIVE;
	/* The device is D's to finish: still unlisted, still waiting. */
	KEXPECT_EQ(t, dev->reg_state, NETREG_UNREGISTERING);
	rcu_read_lock();
	KEXPECT_TRUE(t, dev_get_by_index_rcu(ifindex) == NULL);
	rcu_read_unlock();
	KEXPECT_TRUE(t, !READ_ONCE(a->done));
	dev_put(dev);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, 0);
	/* Nothing freed may be left on the list. */
	rcu_read_lock();
	KEXPECT_TRUE(t, dev_get_by_index_rcu(ifindex) == NULL);
	rcu_read_unlock();
	kt_shared_put(a);
	drop_owner();
}

static void
second_unregister_refused(struct ktest *t)
{
	struct net_device *dev;
	struct kt_async *a, *b;
	bool b_returned;

	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return;
	}
	dev = new_dev("ktst%d", false);
	KASSERT_TRUE(t, dev != NULL);
	dev_hold(dev);
	a = start_unreg(dev);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t,
	             kt_poll(READ_ONCE(dev->reg_state) == NETREG_UNREGISTERING,
	                     KT_SOON_MS));
	b = start_unreg(dev);
	KASSERT_TRUE(t, b != NULL);
	b_returned = kt_poll(READ_ONCE(b->done), KT_SOON_MS);
	KEXPECT_MSG(t, b_returned,
	            "the second unregister_netdev waits as well");
	KEXPECT_EQ(t, b->result, -EBUSY);
	KEXPECT_TRUE(t, !READ_ONCE(a->done));
	dev_put(dev);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, 0);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(b->done), KT_SOON_MS));
	kt_shared_put(a);
	kt_shared_put(b);
}

static int
listed_named(const char *name)
{
	int n = 0;

	rcu_read_lock();
	for (struct net_device *d = netdev_first_rcu(); d != NULL;
	     d = netdev_next_rcu(d))
		n += strcmp(d->name, name) == 0;
	rcu_read_unlock();
	return n;
}

static void
name_reserved_while_unregistering(struct ktest *t)
{
	struct net_device *a_dev, *b_dev, *c_dev;
	struct kt_async *a;
	char name[IFNAMSIZ];

	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return;
	}
	a_dev = new_dev("ktst%d", false);
	KASSERT_TRUE(t, a_dev != NULL);
	strlcpy(name, a_dev->name, sizeof(name));
	dev_hold(a_dev);
	a = start_unreg(a_dev);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(
	    t, kt_poll(READ_ONCE(a_dev->reg_state) == NETREG_UNREGISTERING,
	               KT_SOON_MS));
	/* Unlisted but not gone: its name is still taken. */
	b_dev = new_dev("ktst%d", false);
	KASSERT_TRUE(t, b_dev != NULL);
	KEXPECT_MSG(t, strcmp(b_dev->name, name) != 0,
	            "a new device got %s, the name of one being "
	            "unregistered",
	            b_dev->name);
	c_dev = new_dev(name, false);
	KEXPECT_TRUE(t, c_dev == NULL);
	/* Ctrl-C: the first is listed again, under its own name. */
	thread_signal(a->thread);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, -EINTR);
	KEXPECT_EQ(t, listed_named(name), 1);
	dev_put(a_dev);
	KEXPECT_EQ(t, unregister_netdev(b_dev), 0);
	KEXPECT_EQ(t, unregister_netdev(a_dev), 0);
	if (c_dev != NULL)
		unregister_netdev(c_dev);
	kt_shared_put(a);
}

/* A 2003-style destructor: frees the memory itself, without
 * free_netdev's "still referenced?" check. */
static void
kfree_destructor(struct net_device *dev)
{
	kfree(dev);
}

static bool
need_legacy(struct ktest *t)
{
	if (netdev_refmode != REFMODE_LEGACY)
		ktest_skip(t, "needs refmode=legacy");
	return netdev_refmode == REFMODE_LEGACY;
}

/* unregister drops the base reference with one left; the holder's last
 * dev_put (on another CPU) frees the device before unregister prints
 * its "unregistered with 1 reference(s) left" line. */
static void
legacy_finish_outlives_last_put(struct ktest *t)
{
	struct net_device *dev;
	struct kt_async *a;

	if (!need_legacy(t))
		return;
	dev = new_dev("ktst%d", false);
	KASSERT_TRUE(t, dev != NULL);
	dev_hold(dev);
	KASSERT_TRUE(t, race_arm("netdev-finish-put") == 0);
	a = start_unreg(dev);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	dev_put(dev); /* the last: the destructor frees it here */
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	/* Its base was not the last reference: the device outlived it. */
	KEXPECT_EQ(t, a->result, NETDEV_UNREG_HELD);
	kt_shared_put(a);
}

static int
do_put(void *dev)
{
	dev_put((struct net_device *)dev);
	return 0;
}

/* Two puts of the last reference: the first to reach zero frees the
 * device; the second, one too many, must report the underflow and
 * finish its put without reading the freed device.  The first put is
 * done here by hand, split where it is racy: decremented, then (after
 * the second one decremented and reported too) the destructor. */
static void
legacy_underflow_report_outlives_free(struct ktest *t)
{
	struct net_device *dev;
	struct kt_async *a;

	if (!need_legacy(t))
		return;
	dev = new_dev("ktst%d", false);
	KASSERT_TRUE(t, dev != NULL);
	dev->destructor = kfree_destructor;
	dev_hold(dev);
	KEXPECT_EQ(t, unregister_netdev(dev), NETDEV_UNREG_HELD); /* one left */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	KEXPECT_EQ(
	    t, refcount_dec_return(pcpu_counter_shared(&dev->refs), "ktest"),
	    0);
	KASSERT_TRUE(t, race_arm("dev-put-underflow") == 0);
	a = kt_async_start("ktest-put", do_put, dev);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	netdev_run_destructor(dev);
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	kt_shared_put(a);
}

KTEST_SUITE(netdev_race, KTEST_CASE(resume_spares_foreign_unregister),
            KTEST_CASE(second_unregister_refused),
            KTEST_CASE(name_reserved_while_unregistering),
            KTEST_CASE(legacy_finish_outlives_last_put),
            KTEST_CASE(legacy_underflow_report_outlives_free));
