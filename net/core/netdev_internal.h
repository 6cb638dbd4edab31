/*
 * What the files of the device layer share; not for drivers.
 *
 *   dev.c         register/unregister, names and indexes, lookups,
 *                 up/down, notifiers
 *   dev_refcnt.c  dev_hold/dev_put, tracking
 *   refmode*.c    the refmode= strategies (net/core/refmode.h)
 *   dev_xmit.c    dev_queue_xmit, netif_receive_skb, packet types
 *   napi.c        the net_rx polling thread
 *   driver_unload.c  rmmod of a driver module: quiesce, wait, roll back
 *   net/cmd/cmd_ip.c ip link, refs DEV;  cmd_pkt.c  raw frames for tests
 *
 * Lock order (a lock may be taken while holding those above it, never
 * one above while holding one below; ranks in kernel/locking/lockorder.h,
 * checked at run time):
 *
 *   module_mutex       rmmod calls quiesce/can_unload/resume without it,
 *                      but a driver's init/exit may register under it
 *   rtnl               registration, unregister steps, up/down,
 *                      notifiers (which may drop references)
 *   neigh_lock         (net/ipv4/arp.c) drops its entries' device
 *                      references with it held
 *   dev->xmit_lock     ndo_start_xmit, interrupts off
 *   dev->holders.lock  a leaf: taken by every tracked hold and put
 *
 * Not held while sleeping in the unregister wait: rtnl (holders may need
 * it to let go; netdev_wait_allrefs asserts it is free).  napi_lock,
 * ptype_mutex and holders_lock nest nothing.
 */
#ifndef NET_NETDEV_INTERNAL_H
#define NET_NETDEV_INTERNAL_H

#include <net/core/netdevice.h>
#include <kernel/arch/cpu.h>
#include <kernel/debug/ksyms.h>
#include <kernel/debug/panic.h>
#include <kernel/debug/trace.h>

#define NETDEV_TAG "netdev"

/* The timeline (kernel/debug/trace.h): a phase of dev with its count,
 * and the base reference (the registration) taken and dropped. */
#define trace_dev_phase(dev, phase)                                            \
	TRACE(TRACE_DEV_PHASE, dev, (dev)->name, NULL, phase, REF_THIS_IP, 0,  \
	      netdev_refcnt_read(dev))
#define trace_base_ref(dev, delta)                                             \
	TRACE((delta) > 0 ? TRACE_DEV_HOLD : TRACE_DEV_PUT, dev, (dev)->name,  \
	      &(dev)->reg_tracker, "registered", REF_THIS_IP, delta,           \
	      netdev_refcnt_read(dev) + ((delta) < 0 ? -1 : 0))

extern int netdev_track;

/* dev_refcnt.c */
void netdev_refcnt_init(struct net_device *dev);
/* The count, exact (per-CPU sums are taken with other CPUs stopped when
 * they look final).  Sleeps for that; thread context only. */
int netdev_refcnt_settled(struct net_device *dev);
void netdev_print_holders(struct net_device *dev, const char *prefix);

/* bounce.c: true if skb was bounced (and is gone); dev->bounce set. */
bool netif_bounce(struct sk_buff *skb);
struct args;
int cmd_bench_bounce(const struct args *a);

/* dev.c */
void netdev_run_destructor(struct net_device *dev);
void call_netdevice_notifiers(unsigned long event, struct net_device *dev);
/* The steps of unregister_netdev, for driver_unload.c (rtnl held). */
/* begin: the calling thread owns the unregister from here on (it alone
 * finishes it); by_rmmod: rmmod's quiesce, which resume may roll back. */
void netdev_unregister_begin(struct net_device *dev, bool by_rmmod);
void netdev_unregister_abort(struct net_device *dev);
/* Print the waiting line and re-send NETDEV_UNREGISTER if a second has
 * passed since the last time. */
void netdev_wait_report(struct net_device *dev);
/* true if the device was freed (see netdev_refops->release). */
bool netdev_unregister_finish(struct net_device *dev);
int __dev_open(struct net_device *dev, bool owner_pinned);
int __dev_close(struct net_device *dev, bool owner_pinned);
extern struct list_head netdev_list;       /* RCU; changed under rtnl */
extern struct list_head netdev_unreg_list; /* unregistering, under rtnl */
bool rtnl_is_locked(void);
/* Panics unless the caller holds rtnl (ASSERT_RTNL). */
void rtnl_assert_held(void) ASSERT_CAPABILITY(rtnl_mutex);
/* The lock contracts of this layer, as assertions. */
#define ASSERT_RTNL()    rtnl_assert_held()
#define ASSERT_NO_RTNL() ASSERT(!rtnl_is_locked())

/* dev_xmit.c */
void dev_xmit_disable(struct net_device *dev);

/* The device lists use kernel/lib/list.h's RCU helpers: writers hold rtnl,
 * readers rcu_read_lock. */

/* dev_legacy.c: refmode=legacy with legacy_catch=1: true if dev's
 * destructor lives in an unloaded module (reported, counted, dev freed). */
bool netdev_destructor_gone(struct net_device *dev);
extern int legacy_catch;
extern volatile unsigned legacy_caught;

#endif
