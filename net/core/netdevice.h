/*
 * Network devices: the objects the 2003 dev->destructor thread was about.
 * docs/netdev.md explains the model; this is the API.
 *
 * Life of a device:
 *   alloc_netdev()      zeroed, private area after it, not visible
 *   register_netdev()   named (eth0, ...), given an ifindex, listed, one
 *                       base reference held by the registration
 *   ... dev_hold/dev_put from caches, sockets, skbs ...
 *   unregister_netdev() closed, unlisted, NETDEV_UNREGISTER sent; then,
 *                       by refmode: waits for the count to fall to the
 *                       base (wait, owner, pinned) or does not (legacy)
 *   destructor / free_netdev()
 *
 * Rules for holders:
 *  - A reference is taken from one you already have (dev_hold) or by a
 *    lookup (dev_get_by_name/index, try_dev_hold), which fails once the
 *    device is being unregistered.  Every reference is dropped with the
 *    matching dev_put; caches drop theirs on NETDEV_UNREGISTER.
 *  - Pass a struct ref_tracker (embedded in the holder's object) and a
 *    tag, so `refs eth0` can name you: tag, call site, age.  NULL is
 *    allowed and counted as "untracked".
 *  - Calls through dev->netdev_ops are made by this core only, with a
 *    reference on ops->owner taken first (try_module_get).
 *
 * Rules for drivers:
 *  - Fill netdev_ops (with .owner = THIS_MODULE) and the MAC before
 *    register_netdev(); set dev->destructor to a function that frees
 *    whatever must live as long as the device, then calls free_netdev.
 *  - Hand received frames up with netif_receive_skb() from the NAPI poll
 *    function (napi_schedule() from the interrupt handler); never from
 *    IRQ context.
 *  - Put NETDEV_MODULE_HOOKS() in the module so rmmod can wait for its
 *    devices (and roll back on Ctrl-C) before the module's exit runs.
 */
#ifndef NET_NETDEVICE_H
#define NET_NETDEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/arch/cpu.h>
#include <kernel/locking/pcpu_counter.h>
#include <kernel/lib/list.h>
#include <kernel/locking/ref_tracker.h>
#include <kernel/locking/refcount.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/spinlock.h>

#define IFNAMSIZ      16
#define ETH_ALEN      6
#define ETH_HLEN      14
#define ETH_ZLEN      60   /* shortest frame without FCS */
#define ETH_DATA_LEN  1500 /* default MTU */
#define ETH_FRAME_LEN 1514 /* longest frame without FCS */
#define ETH_MAX_MTU   9000

/* dev->flags */
#define IFF_UP 0x1

enum netdev_reg_state {
	NETREG_UNINITIALIZED,
	NETREG_REGISTERED,
	NETREG_UNREGISTERING, /* unlisted, waiting for references */
	NETREG_UNREGISTERED,
};

/* The refcount strategy's name (boot parameter refmode=, docs/netdev.md;
 * net/core/refmode.h).  Drivers do not ask it: unregister_netdev tells them. */
const char *netdev_refmode_name(void);

/* Notifier events, in the order a device sees them. */
enum netdev_event {
	NETDEV_REGISTER,
	NETDEV_UP,
	NETDEV_CHANGE, /* carrier */
	NETDEV_DOWN,
	NETDEV_UNREGISTER,
};

struct net_device;
struct sk_buff;
struct module;

#define NETDEV_TX_OK   0
#define NETDEV_TX_BUSY 1

struct net_device_ops {
	struct module *owner;
	int (*ndo_open)(struct net_device *dev);
	int (*ndo_stop)(struct net_device *dev);
	/* Takes the skb (frees it, now or on completion) unless it returns
	 * NETDEV_TX_BUSY (ring full: the core frees it and counts a drop). */
	int (*ndo_start_xmit)(struct sk_buff *skb, struct net_device *dev);
};

struct net_device_stats {
	uint64_t rx_packets, tx_packets;
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_errors, tx_errors;
	uint64_t rx_dropped, tx_dropped;
};

/* NAPI: the interrupt handler schedules, the net_rx thread polls. */
struct napi_struct {
	struct list_head poll_link; /* on the poll list while scheduled */
	struct list_head dev_link;  /* in dev->napi_list */
	struct net_device *dev;
	/* Process up to budget frames; return how many.  Fewer than
	 * budget means "done": napi_complete() re-enables interrupts. */
	int (*poll)(struct napi_struct *napi, int budget);
	int weight;
	volatile int state; /* NAPI_* bits */
};

/* What a device does for the stack (net_device.features). */
/* Fills in the TCP or UDP checksum over IPv4 on transmit: an skb with
 * csum_partial set carries the pseudo-header's sum in the field, and the
 * device sums from csum_start to the end (docs/inet.md). */
#define NETIF_F_L4_CSUM (1u << 0)

/* Registration, unregister steps, up/down, notifiers (rtnl_lock);
 * named here for the legend below (kernel/locking/lockcheck.h). */
extern struct mutex rtnl_mutex;

/* The legend: which lock guards each field (GUARDED_BY ones checked by
 * make lint).  "immutable": set by the driver or register_netdev before
 * the device is listed, not changed after; "atomic": the __atomic
 * builtins or kernel/locking/refcount.h; "RCU": readers under rcu_read_lock,
 * writers under the lock named. */
struct net_device {
	/* set at register (under rtnl); a name is reserved until the
	 * device is freed, so both are immutable once listed */
	char name[IFNAMSIZ];
	int ifindex;
	uint8_t dev_addr[ETH_ALEN]; /* immutable */
	unsigned mtu;               /* immutable */
	volatile unsigned flags;    /* atomic (IFF_UP changed under rtnl) */
	volatile bool carrier;      /* atomic: the driver's link state */
	volatile int reg_state;     /* atomic: enum netdev_reg_state */
	const struct net_device_ops *netdev_ops; /* immutable */
	struct module *owner; /* immutable: netdev_ops->owner at register */
	/* immutable: called once the last reference is gone */
	void (*destructor)(struct net_device *dev);
	struct net_device_stats stats; /* the driver's, racy counters */
	unsigned features; /* immutable: NETIF_F_*, set before register */

	/* References (net/core/dev_refcnt.c): one counter, its mode (per-CPU
	 * or atomic) chosen at alloc_netdev; the base reference is in its
	 * shared count in both modes. */
	struct pcpu_counter refs;
	/* tracked holders (kernel/locking/ref_tracker.h), at the netdev_track
	 * level of the device's allocation: 0, 1 site, 2 stacks */
	struct ref_tracker_dir holders;
	struct ref_tracker reg_tracker; /* the registration's base ref */

	spinlock_t xmit_lock; /* held around ndo_start_xmit */
	/* bench bounce (net/core/bounce.c): received UDP goes straight
	 * back; atomic flag, a racy counter */
	volatile bool bounce;
	unsigned long bounced;
	/* RCU: all registered devices; writers hold rtnl */
	struct list_head dev_list;
	/* while NETREG_UNREGISTERING (netdev_unreg_list) */
	struct list_head unreg_link GUARDED_BY(rtnl_mutex);
	struct list_head napi_list; /* napi.c's napi_lock */
	/* The unregister in progress: the thread that began it and will
	 * finish it, and whether that is rmmod's quiesce (whose resume may
	 * roll it back, and whose thread finishes it from the exit). */
	struct thread *unreg_thread GUARDED_BY(rtnl_mutex);
	bool unreg_by_rmmod GUARDED_BY(rtnl_mutex);
	/* open when an rmmod began (for the rollback) */
	bool was_up GUARDED_BY(rtnl_mutex);
	/* the unregister's own, one thread: rcu_gp_cookie() when unlisted,
	 * and its wait's clock */
	unsigned long unreg_gp;
	uint64_t unreg_start_ms;
	uint64_t unreg_next_msg_ms;
	void *priv; /* the driver's */
};

/* ---- life ---------------------------------------------------------------- */

/* name may hold one "%d" (e.g. "eth%d"); priv_size bytes follow. */
struct net_device *alloc_netdev(size_t priv_size, const char *name);
struct net_device *alloc_etherdev(size_t priv_size);
void free_netdev(struct net_device *dev);
int register_netdev(struct net_device *dev);
/* 0 once the device is gone (its destructor ran); NETDEV_UNREG_HELD if
 * it is unregistered but the refmode let references outlive that (the
 * destructor runs at the last dev_put: touch nothing the destructor
 * frees, and leave the hardware as it is); -EINTR if Ctrl-C interrupted
 * the wait, and then the device is registered again exactly as before;
 * -EBUSY at once if another thread is unregistering it (that thread
 * finishes it; the device may be gone when this returns). */
#define NETDEV_UNREG_HELD 1
int unregister_netdev(struct net_device *dev);

static inline void *
netdev_priv(const struct net_device *dev)
{
	return dev->priv;
}

/* ---- references (net/core/dev_refcnt.c) ----------------------------------- */

/* The address of the call site itself (Linux's _THIS_IP_), recorded by
 * the tracking macros so `refs` names the line that took the reference. */
#define dev_hold_track(dev, t, tag) __dev_hold(dev, t, tag, REF_THIS_IP)
#define dev_hold(dev)               dev_hold_track(dev, NULL, NULL)
#define try_dev_hold(dev, t, tag)   __try_dev_hold(dev, t, tag, REF_THIS_IP)
void __dev_hold(struct net_device *dev, struct ref_tracker *t, const char *tag,
                uintptr_t caller);
bool __try_dev_hold(struct net_device *dev, struct ref_tracker *t,
                    const char *tag, uintptr_t caller);
void dev_put_track(struct net_device *dev, struct ref_tracker *t);
#define dev_put(dev) dev_put_track(dev, NULL)
/* Sum of the counts (exact for atomic; a snapshot for per-CPU). */
int netdev_refcnt_read(const struct net_device *dev);

/* Lookups: a held reference, or NULL (also once unregistering). */
struct net_device *dev_get_by_name(const char *name, struct ref_tracker *t,
                                   const char *tag);
struct net_device *dev_get_by_index(int ifindex, struct ref_tracker *t,
                                    const char *tag);
/* Without a reference, under rcu_read_lock only. */
struct net_device *dev_get_by_name_rcu(const char *name);
struct net_device *dev_get_by_index_rcu(int ifindex);
/* Iterate registered devices under rcu_read_lock. */
struct net_device *netdev_first_rcu(void);
struct net_device *netdev_next_rcu(struct net_device *dev);

/* ---- state ------------------------------------------------------------- */

int dev_open(struct net_device *dev);
int dev_close(struct net_device *dev);
void netif_carrier_on(struct net_device *dev);
void netif_carrier_off(struct net_device *dev);
static inline bool
netif_running(const struct net_device *dev)
{
	return (dev->flags & IFF_UP) != 0;
}

/* ---- notifiers ---------------------------------------------------------- */

struct notifier_block {
	void (*notifier_call)(struct notifier_block *nb, unsigned long event,
	                      struct net_device *dev);
	struct module *owner;
	struct list_head link;
};
/* Registering replays NETDEV_REGISTER (and NETDEV_UP) for existing
 * devices; unregistering replays NETDEV_DOWN/NETDEV_UNREGISTER. */
int register_netdevice_notifier(struct notifier_block *nb);
void unregister_netdevice_notifier(struct notifier_block *nb);
const char *netdev_event_name(unsigned long event);

/* ---- packets (net/core/dev_xmit.c, net/core/napi.c) ------------------------------- */

/* Send a frame; consumes skb.  0, -ENETDOWN, -EINVAL (size), -EBUSY. */
int dev_queue_xmit(struct sk_buff *skb);
/* A driver's received frame; consumes skb.  Thread context only. */
void netif_receive_skb(struct sk_buff *skb);

void netif_napi_add(struct net_device *dev, struct napi_struct *napi,
                    int (*poll)(struct napi_struct *, int), int weight);
void netif_napi_del(struct napi_struct *napi);
void napi_enable(struct napi_struct *napi);
/* Stop polling; waits for a running poll to finish. */
void napi_disable(struct napi_struct *napi);
/* From the IRQ handler: poll soon.  False if already scheduled. */
bool napi_schedule(struct napi_struct *napi);
void napi_complete(struct napi_struct *napi);
/* The CPU the net_rx thread (every driver's poll, and so the stack's
 * receive path) runs on. */
int net_rx_cpu(void);
/* The first online CPU that is not net_rx's (where a reader overlaps the
 * receive path instead of taking turns with it), or -1 with one CPU. */
int net_rx_other_cpu(void);
/*
 * Busy polling: a reader about to sleep for data the receive path will
 * bring spins a while first.  A sleeping reader on another CPU costs the
 * receive path an IPI and, under QEMU, the host's wakeup of a halted
 * vCPU for every batch.  net_busy_poll_until() gives the deadline for
 * one wait (0: do not poll here: polling is off, or this is net_rx's own
 * CPU, where spinning would only keep net_rx from running);
 * net_busy_wait() spins until a counter the receive path bumps moves
 * from seen (true) or the deadline passes (false).
 */
uint64_t net_busy_poll_until(void);
bool net_busy_wait(const volatile uint32_t *events, uint32_t seen,
                   uint64_t until_us);

/* A receiver of frames by EtherType (0: all, a tap). */
struct packet_type {
	uint16_t type; /* host order */
	void (*func)(struct sk_buff *skb, struct net_device *dev,
	             struct packet_type *pt);
	struct module *owner;
	struct list_head link;
};
void dev_add_pack(struct packet_type *pt);
void dev_remove_pack(struct packet_type *pt);

/* ---- rmmod (net/core/driver_unload.c) ------------------------------------------------ */

void netdev_module_quiesce(struct module *mod);
int netdev_module_can_unload(struct module *mod, char *why, size_t size);
void netdev_module_resume(struct module *mod);

/* In a driver module: let rmmod take its devices down first. */
#define NETDEV_MODULE_HOOKS()                                                  \
	static void __netdev_quiesce(void)                                     \
	{                                                                      \
		netdev_module_quiesce(THIS_MODULE);                            \
	}                                                                      \
	MODULE_QUIESCE(__netdev_quiesce);                                      \
	static int __netdev_can_unload(char *why, size_t size)                 \
	{                                                                      \
		return netdev_module_can_unload(THIS_MODULE, why, size);       \
	}                                                                      \
	MODULE_CAN_UNLOAD(__netdev_can_unload);                                \
	static void __netdev_resume(void)                                      \
	{                                                                      \
		netdev_module_resume(THIS_MODULE);                             \
	}                                                                      \
	MODULE_RESUME(__netdev_resume)

/* N references dropped by a kernel timer after ms (net/core/dev_holder.c),
 * deaf to NETDEV_UNREGISTER: a slow holder for tests. */
int netdev_hold_timed(struct net_device *dev, unsigned ms, const char *tag);

/* `refs DEV`: count and holders; -ENOENT if there is no such device. */
int netdev_refs_show(const char *name);

/* The lock over registration and up/down (like Linux's RTNL). */
void rtnl_lock(void) ACQUIRE(rtnl_mutex);
void rtnl_unlock(void) RELEASE(rtnl_mutex);

/* The `ip link` subcommand (net/cmd/cmd_ip.c), called by `ip`. */
int ip_link_command(int argc, char **argv);

#endif
