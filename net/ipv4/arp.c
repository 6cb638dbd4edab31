/*
 * The neighbour cache: IPv4 address -> MAC per device, driven by the
 * pure state machine in neigh_fsm.c.  This file supplies what the
 * machine leaves to its caller: the table, the lock, the packets queued
 * on an unresolved entry (as many as the machine counts, oldest first:
 * n->qlen == n->e.queued, asserted), the clock (arp_tick from the inet
 * thread; every reading is now_ms_coarse(), which costs a packet a load,
 * not an rdtsc and a division, and lags by a tick against timeouts of a
 * second and more) and the device reference.
 *
 * References: a live entry holds its device (tag "arp", try_dev_hold,
 * so none is taken once the device is unregistering).  NETDEV_DOWN and
 * NETDEV_UNREGISTER call arp_ifdown(), which unlinks every entry of the
 * device, drops its queued packets and its device reference at once.  An
 * entry somebody still holds (neigh_lookup_hold, or arp_output between
 * its lock sections) survives as a harmless stub, like Linux's
 * neigh_ifdown: dead, no device, output on it is dropped; the last
 * neigh_release frees it.
 *
 * Hostile input: only ARP aimed at one of our addresses, from a sender
 * on our subnet, creates an entry, the table is bounded (NEIGH_MAX), and
 * unsolicited ARP can only make an entry STALE (neigh_fsm.h).
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/arp_proto.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/neigh_fsm.h"
#include <kernel/locking/refcount.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/seqcount.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define NEIGH_MAX 128

static DEFINE_SPINLOCK_RANK(neigh_lock, LOCK_RANK_NEIGH);

/* The legend: which lock guards each field (kernel/locking/lockcheck.h checks
 * the GUARDED_BY ones; make lint). */
struct neighbour {
	/* RCU: in neigh_table while not dead; writers hold neigh_lock */
	struct list_head link;
	struct rcu_head rcu; /* freed a grace period after the last put */
	/* seq and e: written under neigh_lock inside seq's write section,
	 * read without a lock through seq (arp_output_fast) */
	seqcount_t seq;
	struct neigh_entry e;
	/* held; NULL once dead (under neigh_lock) */
	struct net_device *dev GUARDED_BY(neigh_lock);
	struct ref_tracker tracker; /* dev's: with dev */
	int ifindex;                /* immutable */
	char ifname[IFNAMSIZ];      /* immutable */
	/* skbs waiting for resolution, oldest first */
	struct list_head queue GUARDED_BY(neigh_lock);
	unsigned qlen GUARDED_BY(neigh_lock);
	refcount_t refcnt; /* atomic: the table's one while linked, users */
	bool dead GUARDED_BY(neigh_lock);
};
static LIST_HEAD(neigh_table);
static unsigned neigh_n, neigh_stubs;

static struct packet_type arp_packet_type;

/* Frames built under the lock and sent after it (no driver call under
 * our lock: a driver may take its own and we must never nest it). */
struct xmit_list {
	struct list_head q;
};

static void
xmit_flush(struct xmit_list *x)
{
	while (!list_empty(&x->q)) {
		struct sk_buff *skb =
		    list_entry(x->q.next, struct sk_buff, list);
		list_del_init(&skb->list);
		dev_queue_xmit(skb);
	}
}

/* Prepend the Ethernet header and pad to the minimum.  In line: every
 * IPv4 packet sent takes it. */
static inline __attribute__((always_inline)) void
eth_frame(struct sk_buff *skb, struct net_device *dev, const uint8_t *dst,
          uint16_t type)
{
	skb_set_dev(skb, dev); /* nothing if it holds dev already */
	skb_push(skb, ETH_HLEN);
	ether_build(skb->data, ETH_HLEN, dst, dev->dev_addr, type);
	if (skb->len < ETH_ZLEN && skb_tailroom(skb) >= ETH_ZLEN - skb->len)
		memset(skb_put(skb, ETH_ZLEN - skb->len), 0,
		       ETH_ZLEN - skb->len);
}

/* The same, queued for sending after the lock. */
static void
eth_queue(struct xmit_list *x, struct sk_buff *skb, struct net_device *dev,
          const uint8_t *dst, uint16_t type)
{
	eth_frame(skb, dev, dst, type);
	list_add_tail(&skb->list, &x->q);
}

static void
arp_queue_pkt(struct xmit_list *x, struct net_device *dev, uint16_t op,
              uint32_t tpa, const uint8_t *tha, const uint8_t *eth_dst)
{
	struct arp_pkt a;
	struct sk_buff *skb = alloc_skb(ETH_ZLEN);
	uint32_t spa = inet_addr_get(dev->ifindex, NULL);

	if (skb == NULL)
		return;
	arp_make_request(&a, dev->dev_addr, spa, tpa);
	a.op = op;
	if (tha != NULL)
		memcpy(a.tha, tha, ETH_ALEN);
	arp_build(skb_put(skb, ARP_LEN), ARP_LEN, &a);
	eth_queue(x, skb, dev, eth_dst, ETH_P_ARP);
	INET_INC(arp_out);
}

/* Lock held. */
static void
queue_drop_all(struct neighbour *n, enum net_drop why) REQUIRES(neigh_lock)
{
	while (!list_empty(&n->queue)) {
		struct sk_buff *skb =
		    list_entry(n->queue.next, struct sk_buff, list);
		list_del_init(&skb->list);
		n->qlen--;
		inet_drop_skb(skb, why);
	}
	ASSERT(n->qlen == 0);
}

static void
neigh_free_rcu(struct rcu_head *h)
{
	kfree(container_of(h, struct neighbour, rcu));
}

/* After a grace period: arp_output_fast may be reading it. */
/* The last reference is gone: nobody else can reach n, so its guarded
 * fields need no lock any more. */
NO_LOCKCHECK static void
neigh_free(struct neighbour *n)
{
	ASSERT(list_empty(&n->queue)); /* neigh_kill dropped them */
	call_rcu(&n->rcu, neigh_free_rcu);
}

/* Lock held.  Unlink and let go of the device; the entry lives on as a
 * stub while someone holds it. */
static void
neigh_kill(struct neighbour *n) REQUIRES(neigh_lock)
{
	if (n->dead)
		return;
	n->dead = true;
	list_del_rcu(&n->link);
	neigh_n--;
	queue_drop_all(n, NET_DROP_ARP_UNRESOLVED);
	dev_put_track(n->dev, &n->tracker);
	n->dev = NULL;
	if (refcount_dec_and_test(&n->refcnt, "neighbour"))
		neigh_free(n);
	else
		neigh_stubs++;
}

/* Lock held: carry out the machine's actions for n (skb: the packet of
 * an output event, or NULL). */
static void
neigh_apply(struct neighbour *n, const struct neigh_action *act,
            struct sk_buff *skb, struct xmit_list *x) REQUIRES(neigh_lock)
{
	unsigned f = act->flags;

	if (f & NEIGH_ACT_SEND_QUEUED) {
		while (!list_empty(&n->queue)) {
			struct sk_buff *q =
			    list_entry(n->queue.next, struct sk_buff, list);
			list_del_init(&q->list);
			n->qlen--;
			eth_queue(x, q, n->dev, n->e.mac, ETH_P_IP);
		}
	}
	if (f & NEIGH_ACT_DROP_QUEUED)
		queue_drop_all(n, act->queued_reason);
	if ((f & NEIGH_ACT_DROP_OLDEST) && !list_empty(&n->queue)) {
		struct sk_buff *old =
		    list_entry(n->queue.next, struct sk_buff, list);
		list_del_init(&old->list);
		n->qlen--;
		inet_drop_skb(old, NET_DROP_ARP_QUEUE_FULL);
	}
	if ((f & NEIGH_ACT_XMIT) && skb != NULL) {
		eth_queue(x, skb, n->dev, n->e.mac, ETH_P_IP);
		skb = NULL;
	}
	if ((f & NEIGH_ACT_QUEUE) && skb != NULL) {
		list_add_tail(&skb->list, &n->queue);
		n->qlen++;
		skb = NULL;
	}
	/* The machine counts what we hold (a dead stub holds nothing). */
	ASSERT(n->qlen == (n->dead ? 0 : n->e.queued));
	if (skb != NULL)
		inet_drop_skb(skb, NET_DROP_ARP_UNRESOLVED);
	if (f & NEIGH_ACT_SEND_REQUEST)
		arp_queue_pkt(x, n->dev, ARP_OP_REQUEST, n->e.ip, NULL,
		              act->unicast ? n->e.mac : ether_broadcast);
	if (f & NEIGH_ACT_REMOVE)
		neigh_kill(n);
}

/* Under neigh_lock, or in a read-side section (arp_output_fast). */
static inline struct neighbour *
neigh_find(int ifindex, uint32_t ip)
{
	struct neighbour *n;

	ASSERT(rcu_read_held() || spin_held(&neigh_lock));
	list_for_each_entry_rcu(n, &neigh_table, link)
	{
		if (n->ifindex == ifindex && n->e.ip == ip)
			return n;
	}
	return NULL;
}

/* Lock held; fresh is a preallocated entry (consumed or left). */
static struct neighbour *
neigh_create(struct net_device *dev, uint32_t ip, struct neighbour **fresh)
    REQUIRES(neigh_lock)
{
	struct neighbour *n = *fresh;

	if (n == NULL || neigh_n >= NEIGH_MAX)
		return NULL;
	if (!try_dev_hold(dev, &n->tracker, "arp"))
		return NULL;
	*fresh = NULL;
	neigh_init(&n->e, ip);
	INIT_LIST_HEAD(&n->queue);
	n->dev = dev;
	n->ifindex = dev->ifindex;
	strlcpy(n->ifname, dev->name, sizeof(n->ifname));
	refcount_set(&n->refcnt, 1);
	list_add_tail_rcu(&n->link, &neigh_table);
	neigh_n++;
	return n;
}

static void
send_bcast(struct sk_buff *skb, struct net_device *dev)
{
	struct xmit_list x = {LIST_HEAD_INIT(x.q)};

	eth_queue(&x, skb, dev, ether_broadcast, ETH_P_IP);
	xmit_flush(&x);
}

/*
 * Most packets go to a neighbour whose MAC is known and whose state no
 * packet changes (neigh_output_only_xmits): those are sent without
 * neigh_lock, as Linux's connected output.  The entry is found under
 * rcu_read_lock (it is freed a grace period after its last put) and
 * copied under its sequence count; 1 sends the packet the locked way,
 * through the event, else the device's answer (0 or -errno).
 */
static int
arp_output_fast(struct sk_buff *skb, struct net_device *dev, uint32_t nexthop)
{
	struct neighbour *n;
	struct neigh_entry e;
	bool xmit = false;
	unsigned seq;

	rcu_read_lock();
	n = neigh_find(dev->ifindex, nexthop);
	race_point_spin("arp-fast-found"); /* arp_ifdown may run here */
	if (n != NULL) {
		do {
			seq = read_seqbegin(&n->seq);
			e = n->e;
		} while (read_seqretry(&n->seq, seq));
		xmit = neigh_output_only_xmits(&e, now_ms_coarse());
	}
	rcu_read_unlock();
	if (!xmit)
		return 1;
	eth_frame(skb, dev, e.mac, ETH_P_IP);
	/* The device's refusal (down, ring full, its module GOING) is the
	 * sender's to know: TCP says which segment never left. */
	return dev_queue_xmit(skb);
}

PACKET_TX int
arp_output(struct sk_buff *skb, struct net_device *dev, uint32_t nexthop,
           bool bcast)
{
	struct xmit_list x = {LIST_HEAD_INIT(x.q)};
	struct neighbour *fresh = NULL, *n;
	struct neigh_action act;
	uint32_t f;
	int r;

	if (bcast) {
		send_bcast(skb, dev);
		return 0;
	}
	r = arp_output_fast(skb, dev, nexthop);
	if (r <= 0)
		return r;
	f = spin_lock_irqsave(&neigh_lock);
	n = neigh_find(dev->ifindex, nexthop);
	if (n == NULL) {
		/* A new neighbour (once per neighbour, not per packet): the
		 * entry is allocated outside the lock, and another CPU may
		 * have made one meanwhile. */
		spin_unlock_irqrestore(&neigh_lock, f);
		fresh = kzalloc(sizeof(*fresh), INET_TAG);
		f = spin_lock_irqsave(&neigh_lock);
		n = neigh_find(dev->ifindex, nexthop);
		if (n == NULL)
			n = neigh_create(dev, nexthop, &fresh);
	}
	if (n == NULL) {
		spin_unlock_irqrestore(&neigh_lock, f);
		kfree(fresh);
		inet_drop_skb(skb, NET_DROP_ARP_UNRESOLVED);
		return -EHOSTUNREACH;
	}
	write_seqbegin(&n->seq, &neigh_lock);
	neigh_output(&n->e, &neigh_default_params, now_ms_coarse(), &act);
	write_seqend(&n->seq, &neigh_lock);
	neigh_apply(n, &act, skb, &x);
	spin_unlock_irqrestore(&neigh_lock, f);
	kfree(fresh);
	xmit_flush(&x);
	return 0;
}

static void
arp_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt)
{
	struct xmit_list x = {LIST_HEAD_INIT(x.q)};
	struct ether_frame eh;
	struct arp_pkt a;
	struct neighbour *fresh = NULL, *n;
	struct neigh_action act;
	enum net_drop why;
	uint32_t ours, f;
	unsigned plen;

	(void)pt;
	INET_INC(arp_in);
	why = ether_parse(skb->data, skb->len, &eh);
	if (why == NET_DROP_NONE && !ether_is_for(eh.dst, dev->dev_addr))
		why = NET_DROP_ETH_NOT_FOR_US;
	if (why == NET_DROP_NONE)
		why = arp_parse(eh.payload, eh.payload_len, &a);
	ours = inet_addr_get(dev->ifindex, NULL);
	if (why == NET_DROP_NONE && (ours == 0 || a.tpa != ours))
		why = NET_DROP_ARP_NOT_FOR_US;
	if (why != NET_DROP_NONE) {
		inet_drop_skb(skb, why);
		return;
	}
	INET_INC(arp_ok);
	/* Only a neighbour on our subnet gets an entry: a hostile sender
	 * claiming any address must not fill the table. */
	plen = 32;
	inet_addr_get(dev->ifindex, &plen);
	if (a.spa != 0 && a.spa != ours &&
	    ((a.spa ^ ours) & ipv4_netmask(plen)) == 0)
		fresh = kzalloc(sizeof(*fresh), INET_TAG);
	f = spin_lock_irqsave(&neigh_lock);
	if (fresh != NULL) {
		n = neigh_find(dev->ifindex, a.spa);
		if (n == NULL)
			n = neigh_create(dev, a.spa, &fresh);
		if (n != NULL) {
			write_seqbegin(&n->seq, &neigh_lock);
			neigh_input(&n->e, &neigh_default_params,
			            now_ms_coarse(), a.sha,
			            a.op == ARP_OP_REPLY, &act);
			write_seqend(&n->seq, &neigh_lock);
			neigh_apply(n, &act, NULL, &x);
		}
	}
	if (a.op == ARP_OP_REQUEST)
		arp_queue_pkt(&x, dev, ARP_OP_REPLY, a.spa, a.sha, a.sha);
	spin_unlock_irqrestore(&neigh_lock, f);
	kfree(fresh);
	kfree_skb(skb);
	xmit_flush(&x);
}

void
arp_tick(uint64_t now)
{
	struct xmit_list x = {LIST_HEAD_INIT(x.q)};
	struct neighbour *n, *tmp;
	struct neigh_action act;
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	list_for_each_entry_safe(n, tmp, &neigh_table, link) {
		if (n->e.timer == 0 || now < n->e.timer)
			continue;
		write_seqbegin(&n->seq, &neigh_lock);
		neigh_timer(&n->e, &neigh_default_params, now, &act);
		write_seqend(&n->seq, &neigh_lock);
		neigh_apply(n, &act, NULL, &x);
	}
	spin_unlock_irqrestore(&neigh_lock, f);
	xmit_flush(&x);
}

void
arp_ifdown(struct net_device *dev)
{
	struct neighbour *n, *tmp;
	struct neigh_action act;
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	list_for_each_entry_safe(n, tmp, &neigh_table, link) {
		if (n->dev != dev)
			continue;
		write_seqbegin(&n->seq, &neigh_lock);
		neigh_ifdown(&n->e, &act);
		write_seqend(&n->seq, &neigh_lock);
		neigh_kill(n);
	}
	spin_unlock_irqrestore(&neigh_lock, f);
}

size_t
arp_count_dev(int ifindex)
{
	struct neighbour *n;
	size_t c = 0;
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	list_for_each_entry(n, &neigh_table, link)
		if (n->ifindex == ifindex)
			c++;
	spin_unlock_irqrestore(&neigh_lock, f);
	return c;
}

void
arp_show(void)
{
	struct neighbour *n;
	uint64_t now = now_ms_coarse();
	unsigned count = 0, stubs;
	char b[16];
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	list_for_each_entry(n, &neigh_table, link) {
		const uint8_t *m = n->e.mac;
		bool has_mac =
		    n->e.state == NEIGH_REACHABLE || n->e.state == NEIGH_STALE;
		kprintf("%s dev %s", inet_ntoa_r(n->e.ip, b), n->ifname);
		if (has_mac)
			kprintf(" lladdr %02x:%02x:%02x:%02x:%02x:%02x", m[0],
			        m[1], m[2], m[3], m[4], m[5]);
		kprintf(" %s", neigh_state_name(n->e.state));
		if (n->e.timer != 0)
			kprintf(" timer %llums",
			        n->e.timer > now ? n->e.timer - now : 0);
		if (n->qlen != 0)
			kprintf(" queued %u", n->qlen);
		kprintf("\n");
		count++;
	}
	stubs = neigh_stubs;
	spin_unlock_irqrestore(&neigh_lock, f);
	kprintf("%u entries, %u stubs\n", count, stubs);
}

struct neighbour *
neigh_lookup_hold(struct net_device *dev, uint32_t ip, bool create)
{
	struct neighbour *fresh =
	    create ? kzalloc(sizeof(*fresh), INET_TAG) : NULL;
	struct neighbour *n;
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	n = neigh_find(dev->ifindex, ip);
	if (n == NULL && create)
		n = neigh_create(dev, ip, &fresh);
	if (n != NULL)
		refcount_inc(&n->refcnt, "neighbour");
	spin_unlock_irqrestore(&neigh_lock, f);
	kfree(fresh);
	return n;
}

void
neigh_release(struct neighbour *n)
{
	uint32_t f = spin_lock_irqsave(&neigh_lock);
	bool last = refcount_dec_and_test(&n->refcnt, "neighbour");

	if (last && n->dead)
		neigh_stubs--;
	spin_unlock_irqrestore(&neigh_lock, f);
	if (last)
		neigh_free(n);
}

/* A snapshot without the lock (the stress's checks): dead never goes
 * back to false. */
NO_LOCKCHECK bool
neigh_is_dead(const struct neighbour *n)
{
	return READ_ONCE(n->dead);
}

void
arp_init(void)
{
	arp_packet_type.type = ETH_P_ARP;
	arp_packet_type.func = arp_rcv;
	dev_add_pack(&arp_packet_type);
}

/* The neighbour table: neigh_n counts it, every linked entry is live,
 * holds its device and the table's reference. */
static const char *
arp_sane(char *buf, size_t size)
{
	struct neighbour *n;
	unsigned count = 0;
	const char *why = NULL;
	uint32_t f = spin_lock_irqsave(&neigh_lock);

	list_for_each_entry(n, &neigh_table, link) {
		count++;
		if (n->dead || n->dev == NULL ||
		    refcount_read(&n->refcnt) < 1 ||
		    n->ifindex != n->dev->ifindex) {
			snprintf(buf, size,
			         "entry on %s: dead %d, dev %p, refcnt %d, "
			         "ifindex %d",
			         n->ifname, n->dead, (void *)n->dev,
			         refcount_read(&n->refcnt), n->ifindex);
			why = buf;
			break;
		}
	}
	if (why == NULL && count != neigh_n) {
		snprintf(buf, size, "%u entries listed, neigh_n %u", count,
		         neigh_n);
		why = buf;
	}
	spin_unlock_irqrestore(&neigh_lock, f);
	return why;
}
INVARIANT(arp, arp_sane);
