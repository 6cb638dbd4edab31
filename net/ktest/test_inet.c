/*
 * Suite "inet": the lifetime rules of the IPv4 stack's caches
 * (docs/inet.md), on a fake device built into the kernel (owner NULL)
 * that counts what it is asked to send.
 *
 * Pins down: a neighbour entry and a queued packet hold the device and
 * NETDEV_DOWN lets go of both; an unanswered neighbour fails after three
 * requests and drops its packet (ARP_UNRESOLVED); an unresolved
 * neighbour queues three packets (older ones dropped as ARP_QUEUE_FULL)
 * and sends them in order on the reply; ICMP errors are rate limited
 * per destination and host-wide, echo replies are not; an entry somebody holds
 * becomes a dead stub without a device reference; a dst held across unregister
 * is moved to the blackhole device (unregister completes, sending through it
 * fails with ENETUNREACH); a socket bound to the device holds it until
 * NETDEV_UNREGISTER and then fails with ENODEV; routes and addresses of
 * the device go with it; the socket registry refuses unknown protocols;
 * receive timeouts and non-blocking receive; a UDP socket's receive
 * handler gets the datagram instead of the queue, may answer from the
 * receive path, and sock_close waits for a handler still running (and
 * is woken, closing again and again while another CPU delivers); a
 * handler that sends the received skb back sends that skb (zero-copy,
 * on the device reference it came in with), or a copy when it has no
 * room to pad a short frame; a device that
 * fills in UDP checksums gets the pseudo-header's sum to finish; the
 * kernel's checksum (assembly on i686) agrees with RFC 1071's byte pairs.
 * Cases that need unregister_netdev to wait (refmode=wait) skip
 * otherwise.
 */
#include <kernel/lib/errno.h>
#include <kernel/debug/ktest.h>
#include <kernel/mm/memtag.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include "net/ipv4/inet.h"
#include "net/ipv4/arp_proto.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/udp_proto.h"
#include "net/core/refmode.h"
#include <kernel/bootparam.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>
#include "kernel/ktest/ktest_util.h"

#define NET_A IP4(192, 168, 77, 1)
#define NET_B IP4(192, 168, 77, 2)
#define NET_C IP4(192, 168, 77, 3)

static volatile int fake_xmits;
/* The ICMP sequence numbers of the IPv4/ICMP frames sent, in order. */
static volatile uint16_t fake_seqs[8];
static volatile unsigned fake_nseqs;
/* ICMP messages sent, by type. */
static volatile unsigned fake_icmp_types[ICMP_ECHO_REQUEST + 1];
/* The last IPv4/UDP frame sent, and the skb it went in (compared, never
 * dereferenced: it is freed by then). */
static uint8_t fake_udp[ETH_ZLEN + 64];
static volatile unsigned fake_udp_len;
static const void *volatile fake_udp_skb;
/* Its checksum request (NETIF_F_L4_CSUM), offsets from the frame. */
static volatile bool fake_udp_partial;
/* When its device reference was taken (the tracker's stamp). */
static volatile uint64_t fake_udp_since;
static volatile unsigned fake_udp_css, fake_udp_cso;

static int
fake_open(struct net_device *dev)
{
	(void)dev;
	return 0;
}

static int
fake_xmit(struct sk_buff *skb, struct net_device *dev)
{
	const uint8_t *p = skb->data;

	(void)dev;
	fake_xmits++;
	if (skb->len >= ETH_HLEN + IPV4_HLEN + 8 &&
	    get_be16(p + 12) == ETH_P_IP && p[ETH_HLEN + 9] == IP_PROTO_ICMP) {
		uint8_t type = p[ETH_HLEN + IPV4_HLEN];

		if (fake_nseqs < 8)
			fake_seqs[fake_nseqs++] =
			    get_be16(p + ETH_HLEN + IPV4_HLEN + 6);
		if (type <= ICMP_ECHO_REQUEST)
			fake_icmp_types[type]++;
	}
	if (skb->len >= ETH_HLEN + IPV4_HLEN && skb->len <= sizeof(fake_udp) &&
	    get_be16(p + 12) == ETH_P_IP && p[ETH_HLEN + 9] == IP_PROTO_UDP) {
		memcpy(fake_udp, p, skb->len);
		fake_udp_len = skb->len;
		fake_udp_skb = skb;
		fake_udp_partial = skb->csum_partial;
		fake_udp_since = skb->dev_tracker.since;
		fake_udp_css = skb->csum_start - (unsigned)(p - skb->head);
		fake_udp_cso = fake_udp_css + skb->csum_offset;
	}
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fake_ops = {
    .owner = NULL,
    .ndo_open = fake_open,
    .ndo_start_xmit = fake_xmit,
};

static void
fake_destructor(struct net_device *dev)
{
	free_netdev(dev);
}

/* Registered, up, with NET_A/24, doing what features say. */
static struct net_device *
fake_up_features(struct ktest *t, unsigned features)
{
	struct net_device *dev = alloc_netdev(0, "kinet%d");

	if (netdev_refmode != REFMODE_WAIT) {
		if (dev != NULL)
			free_netdev(dev);
		ktest_skip(t, "needs refmode=wait");
		return NULL;
	}
	if (dev == NULL)
		return NULL;
	dev->netdev_ops = &fake_ops;
	dev->destructor = fake_destructor;
	dev->features = features;
	dev->dev_addr[0] = 0x02;
	dev->dev_addr[5] = 0x77;
	if (register_netdev(dev) < 0) {
		free_netdev(dev);
		return NULL;
	}
	if (dev_open(dev) != 0 || inet_addr_add(dev, NET_A, 24) != 0) {
		unregister_netdev(dev);
		return NULL;
	}
	return dev;
}

static struct net_device *
fake_up(struct ktest *t)
{
	return fake_up_features(t, 0);
}

static void
arp_entry_and_queued_packet_hold_device(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	int base, x0;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	base = netdev_refcnt_read(dev);
	x0 = fake_xmits;
	KEXPECT_EQ(t, icmp_send_echo(NET_B, 1, 1, 8), 0);
	KEXPECT_EQ(t, fake_xmits, x0 + 1); /* the ARP request */
	KEXPECT_EQ(t, arp_count_dev(dev->ifindex), 1);
	/* the entry, the queued echo request (skb) and the cached dst */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 3);
	KEXPECT_EQ(t, dev_close(dev), 0);
	KEXPECT_EQ(t, arp_count_dev(dev->ifindex), 0);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 1); /* the dst */
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* The inet thread's tick runs the neighbour timers: three unanswered
 * requests, then FAILED, and the queued packet (and its device
 * reference) is dropped as ARP_UNRESOLVED. */
static void
unresolved_neighbour_fails(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct net_drop_stats before, after;
	int base, x0;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	base = netdev_refcnt_read(dev);
	x0 = fake_xmits;
	inet_drop_snapshot(&before);
	KEXPECT_EQ(t, icmp_send_echo(NET_B, 2, 1, 8), 0);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 3);
	msleep(3600);
	inet_drop_snapshot(&after);
	KEXPECT_EQ(t, fake_xmits, x0 + 3); /* requests at 0, 1 and 2 s */
	KEXPECT_EQ(t, after.count[NET_DROP_ARP_UNRESOLVED],
	           before.count[NET_DROP_ARP_UNRESOLVED] + 1);
	/* the FAILED entry and the dst remain; the skb is gone */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 2);
	KEXPECT_EQ(t, arp_count_dev(dev->ifindex), 1);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* An ARP reply from ip (MAC 02:..:ip's last byte) to our NET_A, as
 * the fake device's driver would hand it up. */
static void
fake_arp_reply(struct net_device *dev, uint32_t ip)
{
	uint8_t mac[ETH_ALEN] = {0x02, 0, 0, 0, 0, (uint8_t)ip};
	struct sk_buff *skb = netdev_alloc_skb(dev, ETH_ZLEN);
	struct arp_pkt a;

	if (skb == NULL)
		return;
	arp_make_request(&a, mac, ip, NET_A);
	a.op = ARP_OP_REPLY;
	memcpy(a.tha, dev->dev_addr, ETH_ALEN);
	ether_build(skb_put(skb, ETH_HLEN), ETH_HLEN, dev->dev_addr, mac,
	            ETH_P_ARP);
	arp_build(skb_put(skb, ARP_LEN), ARP_LEN, &a);
	netif_receive_skb(skb);
}

/* Five packets to an unresolved neighbour: three wait (each holding the
 * device), the two oldest are dropped as ARP_QUEUE_FULL, the reply sends
 * the three in order.  Four more to another neighbour: NETDEV_DOWN drops
 * the three queued as ARP_UNRESOLVED and every reference goes. */
static void
arp_queue_holds_three(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct net_drop_stats before, after;
	int base, x0;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	base = netdev_refcnt_read(dev);
	x0 = fake_xmits;
	fake_nseqs = 0;
	inet_drop_snapshot(&before);
	for (uint16_t seq = 1; seq <= 5; seq++)
		KEXPECT_EQ(t, icmp_send_echo(NET_B, 3, seq, 8), 0);
	KEXPECT_EQ(t, fake_xmits, x0 + 1); /* one ARP request */
	inet_drop_snapshot(&after);
	KEXPECT_EQ(t, after.count[NET_DROP_ARP_QUEUE_FULL],
	           before.count[NET_DROP_ARP_QUEUE_FULL] + 2);
	/* the entry, three queued skbs and the cached dst */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 5);
	fake_arp_reply(dev, NET_B);
	KEXPECT_EQ(t, fake_xmits, x0 + 4);
	KEXPECT_EQ(t, fake_nseqs, 3);
	KEXPECT_EQ(t, fake_seqs[0], 3);
	KEXPECT_EQ(t, fake_seqs[1], 4);
	KEXPECT_EQ(t, fake_seqs[2], 5);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 2);
	for (uint16_t seq = 1; seq <= 4; seq++)
		KEXPECT_EQ(t, icmp_send_echo(NET_C, 3, seq, 8), 0);
	/* plus C's entry, three skbs and its dst */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 7);
	KEXPECT_EQ(t, dev_close(dev), 0);
	inet_drop_snapshot(&after);
	KEXPECT_EQ(t, after.count[NET_DROP_ARP_QUEUE_FULL],
	           before.count[NET_DROP_ARP_QUEUE_FULL] + 3);
	KEXPECT_EQ(t, after.count[NET_DROP_ARP_UNRESOLVED],
	           before.count[NET_DROP_ARP_UNRESOLVED] + 3);
	KEXPECT_EQ(t, arp_count_dev(dev->ifindex), 0);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 2); /* the two dsts */
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* An IPv4 datagram from ip to NET_A: a UDP datagram to port 9 or an
 * echo request, len bytes with its header, handed up by the fake
 * device's "driver". */
static const void *
fake_rx_ip(struct net_device *dev, uint32_t ip, uint8_t proto, size_t len)
{
	uint8_t mac[ETH_ALEN] = {0x02, 0, 0, 0, 0, (uint8_t)ip};
	struct ipv4_info h = {
	    .ttl = 64, .proto = proto, .src = ip, .dst = NET_A};
	struct sk_buff *skb =
	    netdev_alloc_skb(dev, (unsigned)(ETH_HLEN + IPV4_HLEN + len));
	uint8_t *msg, data[64];

	if (skb == NULL || len - UDP_HLEN > sizeof(data))
		return NULL;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	ether_build(skb_put(skb, ETH_HLEN), ETH_HLEN, dev->dev_addr, mac,
	            ETH_P_IP);
	ipv4_build(skb_put(skb, IPV4_HLEN), IPV4_HLEN, &h, len);
	msg = skb_put(skb, (unsigned)len);
	if (proto == IP_PROTO_UDP)
		udp_build(msg, len, ip, NET_A, 1234, 9, data, len - UDP_HLEN);
	else
		icmp_build_echo(msg, len, ICMP_ECHO_REQUEST, 7, 1, data,
		                len - ICMP_HLEN);
	netif_receive_skb(skb);
	return skb;
}

static struct inet_mib
mib_now(void)
{
	struct inet_mib m;

	inet_mib_read(&m);
	return m;
}

static long
sysctl_get(const char *name)
{
	const struct bootparam *p = bootparam_find(name);

	return p != NULL ? *(int *)p->var : -1;
}

static int
sysctl_set(const char *name, long v)
{
	const struct bootparam *p = bootparam_find(name);
	char buf[24], err[64];

	snprintf(buf, sizeof(buf), "%ld", v);
	return p != NULL ? bootparam_set(p, buf, err, sizeof(err)) : -ENOENT;
}

/* ICMP errors are rate limited per destination (burst 6, then none for
 * a minute at icmp_ratelimit_ms=60000) and host-wide (burst, then
 * icmp_msgs_per_sec); echo replies never are. */
static void
icmp_errors_rate_limited(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	long rl = sysctl_get("icmp_ratelimit_ms");
	long pps = sysctl_get("icmp_msgs_per_sec");
	long burst = sysctl_get("icmp_msgs_burst");
	uint32_t peer0, host0;
	unsigned unreach0, sent;
	uint64_t t0, elapsed;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	KASSERT_TRUE(t, rl >= 0 && pps >= 0 && burst >= 0);
	fake_arp_reply(dev, NET_B); /* replies go out at once */
	KEXPECT_EQ(t, sysctl_set("icmp_ratelimit_ms", 60000), 0);
	icmp_rate_reset();
	unreach0 = fake_icmp_types[ICMP_DEST_UNREACH];
	peer0 = mib_now().icmp_rl_peer;
	for (int i = 0; i < 10; i++)
		fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	KEXPECT_EQ(t, fake_icmp_types[ICMP_DEST_UNREACH], unreach0 + 6);
	KEXPECT_EQ(t, mib_now().icmp_rl_peer, peer0 + 4);
	/* echo replies: every one, the peer's bucket empty or not */
	sent = fake_icmp_types[ICMP_ECHO_REPLY];
	for (int i = 0; i < 10; i++)
		fake_rx_ip(dev, NET_B, IP_PROTO_ICMP, ICMP_HLEN + 8);
	KEXPECT_EQ(t, fake_icmp_types[ICMP_ECHO_REPLY], sent + 10);
	/* host-wide: burst 3, then 1 per second, however slow we are */
	KEXPECT_EQ(t, sysctl_set("icmp_ratelimit_ms", 0), 0);
	KEXPECT_EQ(t, sysctl_set("icmp_msgs_per_sec", 1), 0);
	KEXPECT_EQ(t, sysctl_set("icmp_msgs_burst", 3), 0);
	icmp_rate_reset();
	unreach0 = fake_icmp_types[ICMP_DEST_UNREACH];
	host0 = mib_now().icmp_rl_global;
	t0 = now_ms();
	for (int i = 0; i < 10; i++)
		fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	elapsed = now_ms() - t0;
	sent = fake_icmp_types[ICMP_DEST_UNREACH] - unreach0;
	KEXPECT_TRUE(t, sent >= 3 && sent <= 3 + elapsed / 1000);
	KEXPECT_EQ(t, mib_now().icmp_rl_global, host0 + (10 - sent));
	sysctl_set("icmp_ratelimit_ms", rl);
	sysctl_set("icmp_msgs_per_sec", pps);
	sysctl_set("icmp_msgs_burst", burst);
	icmp_rate_reset();
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

static void
held_neighbour_becomes_stub(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct neighbour *n;
	int base;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	base = netdev_refcnt_read(dev);
	n = neigh_lookup_hold(dev, NET_B, true);
	KASSERT_TRUE(t, n != NULL);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 1);
	KEXPECT_TRUE(t, !neigh_is_dead(n));
	KEXPECT_EQ(t, dev_close(dev), 0);
	KEXPECT_TRUE(t, neigh_is_dead(n));
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	neigh_release(n); /* frees the stub; the device is long gone */
}

static void
dst_moves_to_blackhole(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct dst_entry *dst;
	struct sk_buff *skb;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	KASSERT_TRUE(t, ip_route_output(NET_B, 0, &dst) == 0);
	KEXPECT_TRUE(t, dst->dev == dev);
	KEXPECT_EQ(t, dst_count_dev(dev), 1);
	/* Completes although we still hold the dst. */
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	KEXPECT_TRUE(t, dst->dev == blackhole_dev);
	KEXPECT_TRUE(t, dst->obsolete);
	skb = inet_alloc_skb(8);
	KASSERT_TRUE(t, skb != NULL);
	KEXPECT_EQ(t, ip_send_dst(skb, dst, 0, NET_B, IP_PROTO_UDP),
	           -ENETUNREACH);
	dst_release(dst);
	KEXPECT_EQ(t, ip_route_output(NET_B, 0, &dst), -ENETUNREACH);
}

/* route_tick (every 100 ms, inet's thread) frees a cache entry only the
 * cache holds once it has not been used for dst_gc_ms; one somebody
 * holds stays, however old, until it is let go. */
static void
dst_gc_frees_only_unheld_entries(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct dst_entry *held, *idle;
	long gc = sysctl_get("dst_gc_ms");

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	KASSERT_TRUE(t, gc > 0);
	KASSERT_TRUE(t, ip_route_output(NET_B, 0, &held) == 0);
	KASSERT_TRUE(t, ip_route_output(NET_C, 0, &idle) == 0);
	dst_release(idle); /* the cache's reference is all it has */
	KEXPECT_EQ(t, dst_count_dev(dev), 2);
	KEXPECT_EQ(t, sysctl_set("dst_gc_ms", 200), 0);
	/* The idle one goes; in the same pass the held one would have. */
	KEXPECT_TRUE(t, kt_poll(dst_count_dev(dev) == 1, KT_SOON_MS));
	KEXPECT_TRUE(t, held->dev == dev && !held->obsolete);
	KEXPECT_EQ(t, refcount_read(&held->refcnt), 2);
	dst_release(held);
	KEXPECT_TRUE(t, kt_poll(dst_count_dev(dev) == 0, KT_SOON_MS));
	KEXPECT_EQ(t, sysctl_set("dst_gc_ms", gc), 0);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* ip_route_skb: a packet holds the route's device, not the dst.  The
 * first fills the cache (one dst, held by the cache alone), the second
 * finds it there; freeing them gives their device references back. */
static void
route_skb_holds_device_only(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct ip_nexthop nh;
	struct dst_entry *dst;
	struct sk_buff *a, *b;
	int base;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	base = netdev_refcnt_read(dev);
	a = inet_alloc_skb(8);
	b = inet_alloc_skb(8);
	KASSERT_TRUE(t, a != NULL && b != NULL);
	KEXPECT_EQ(t, ip_route_skb(NET_B, 0, a, &nh), 0);
	KEXPECT_TRUE(t, nh.dev == dev && a->dev == dev);
	KEXPECT_EQ(t, nh.nexthop, NET_B);
	KEXPECT_EQ(t, nh.saddr, NET_A);
	KEXPECT_EQ(t, dst_count_dev(dev), 1);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 2); /* dst, skb a */
	KEXPECT_EQ(t, ip_route_skb(NET_B, 0, b, &nh), 0);
	KEXPECT_TRUE(t, b->dev == dev);
	KEXPECT_EQ(t, dst_count_dev(dev), 1);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 3);
	KASSERT_TRUE(t, ip_route_output(NET_B, 0, &dst) == 0);
	KEXPECT_EQ(t, refcount_read(&dst->refcnt),
	           2); /* the cache's and ours */
	dst_release(dst);
	kfree_skb(a);
	kfree_skb(b);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 1);
	/* Not out through a device the route does not use. */
	a = inet_alloc_skb(8);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_EQ(t, ip_route_skb(NET_B, dev->ifindex + 100, a, &nh),
	           -ENETUNREACH);
	KEXPECT_TRUE(t, a->dev == NULL);
	kfree_skb(a);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

static void
bound_socket_holds_until_unregister(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct sockaddr_in4 to = {NET_B, 9};
	struct socket *sk;
	char name[IFNAMSIZ];
	uint8_t buf[4];
	int base;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	strlcpy(name, dev->name, sizeof(name));
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) == 0);
	base = netdev_refcnt_read(dev);
	KEXPECT_EQ(t, sock_bind_device(sk, name), 0);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), base + 1);
	KEXPECT_EQ(t, sock_count_dev(dev->ifindex), 1);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	KEXPECT_EQ(t, sock_recvfrom(sk, buf, sizeof(buf), NULL, 0), -ENODEV);
	KEXPECT_EQ(t, sock_sendto(sk, buf, sizeof(buf), &to), -ENODEV);
	KEXPECT_EQ(t, sock_bind_device(sk, name), -ENODEV);
	sock_close(sk);
}

static void
routes_and_address_go_with_device(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	int idx;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	idx = dev->ifindex;
	KEXPECT_EQ(t, inet_addr_get(idx, NULL), NET_A);
	KEXPECT_EQ(t, inet_route_add(IP4(10, 77, 0, 0), 16, NET_B, idx, 5), 0);
	KEXPECT_EQ(t, inet_route_add(IP4(10, 77, 0, 0), 16, NET_B, idx, 5),
	           -EEXIST);
	KEXPECT_EQ(t, inet_route_add(IP4(10, 77, 0, 1), 16, 0, idx, 0),
	           -EINVAL);
	KEXPECT_EQ(t, inet_route_del(IP4(10, 78, 0, 0), 16, idx), -ESRCH);
	KEXPECT_EQ(t, inet_addr_add(dev, IP4(192, 168, 78, 1), 24), -EBUSY);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	KEXPECT_EQ(t, inet_addr_get(idx, NULL), 0);
	KEXPECT_EQ(t, inet_route_del(IP4(10, 77, 0, 0), 16, idx), -ESRCH);
	KEXPECT_EQ(t, inet_addr_local(NET_A), 0);
}

static void
socket_registry_and_timeouts(struct ktest *t)
{
	struct sockaddr_in4 a = {0, 4242}, b = {0, 4242};
	struct socket *sk, *sk2;
	uint8_t buf[4];

	KEXPECT_EQ(t, sock_create(SOCK_DGRAM, 99, &sk), -EPROTONOSUPPORT);
	KEXPECT_EQ(t, sock_create(SOCK_STREAM + 7, 0, &sk), -EPROTONOSUPPORT);
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, 0, &sk) == 0);
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk2) == 0);
	KEXPECT_EQ(t, sock_bind(sk, &a), 0);
	KEXPECT_EQ(t, sock_bind(sk2, &b), -EADDRINUSE);
	KEXPECT_EQ(t, sock_recvfrom(sk, buf, sizeof(buf), NULL, MSG_DONTWAIT),
	           -EAGAIN);
	sk->rcvtimeo_ms = 30;
	KEXPECT_EQ(t, sock_recvfrom(sk, buf, sizeof(buf), NULL, 0), -ETIMEDOUT);
	sk->nonblock = true;
	KEXPECT_EQ(t, sock_recvfrom(sk, buf, sizeof(buf), NULL, 0), -EAGAIN);
	KEXPECT_EQ(t, sock_sendto(sk2, buf, sizeof(buf), NULL), -ENOTCONN);
	sock_close(sk);
	KEXPECT_EQ(t, sock_bind(sk2, &b), 0);
	sock_close(sk2);
}

/* A UDP socket on port 9 whose datagrams go to fn(arg), with NET_B's
 * MAC already known so that an answer goes out at once; NULL on
 * failure (reported). */
static struct socket *
port9_handler_socket(struct ktest *t, struct net_device *dev,
                     sock_rx_handler fn, void *arg)
{
	struct sockaddr_in4 port9 = {0, 9};
	struct socket *sk;

	fake_arp_reply(dev, NET_B);
	if (sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) != 0) {
		KEXPECT_TRUE(t, false);
		return NULL;
	}
	KEXPECT_EQ(t, sock_set_rx_handler(sk, fn, arg), 0);
	KEXPECT_EQ(t, sock_bind(sk, &port9), 0);
	return sk;
}

/* Shared with the receive handler and the threads of the case below. */
struct handler_case {
	struct net_device *dev;
	struct socket *sk;
	volatile int entered, release, sent;
	volatile size_t len;
	volatile uint32_t from_addr;
	volatile uint16_t from_port;
};

static void
blocking_handler(struct socket *sk, struct sk_buff *skb,
                 const struct sockaddr_in4 *from, void *arg)
{
	struct handler_case *h = arg;

	h->len = skb->len;
	h->from_addr = from->addr;
	h->from_port = from->port;
	h->entered = 1;
	while (!READ_ONCE(h->release))
		msleep(1);
	/* Still ours while sock_close waits: answer on it. */
	h->sent = sock_send_skb(sk, skb, from);
}

static int
deliver_one(void *arg)
{
	struct handler_case *h = arg;

	fake_rx_ip(h->dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	return 0;
}

static int
close_socket(void *arg)
{
	struct handler_case *h = arg;

	sock_close(h->sk);
	return 0;
}

static void
rx_handler_answers_and_close_waits(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct sockaddr_in4 port9 = {0, 9};
	struct handler_case *h;
	struct kt_async *rx, *closer;
	struct socket *late;
	int xmits0;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	h = kt_shared_alloc(sizeof(*h), 1);
	KASSERT_TRUE(t, h != NULL);
	h->dev = dev;
	h->sk = port9_handler_socket(t, dev, blocking_handler, h);
	KASSERT_TRUE(t, h->sk != NULL);
	/* Only before bind: delivery may already be running after it. */
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &late) == 0);
	port9.port = 10;
	KEXPECT_EQ(t, sock_bind(late, &port9), 0);
	KEXPECT_EQ(t, sock_set_rx_handler(late, blocking_handler, h), -EINVAL);
	sock_close(late);

	xmits0 = fake_xmits;
	rx = kt_async_start("ktest-udprx", deliver_one, h);
	KASSERT_TRUE(t, rx != NULL);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(h->entered), KT_SOON_MS));
	KEXPECT_EQ(t, h->len, 8);
	KEXPECT_EQ(t, h->from_addr, NET_B);
	KEXPECT_EQ(t, h->from_port, 1234);
	KEXPECT_EQ(t, h->sk->rxq_len, 0); /* the handler's, not queued */
	closer = kt_async_start("ktest-udpclose", close_socket, h);
	KASSERT_TRUE(t, closer != NULL);
	/* The close cannot finish while the handler runs: a bounded look
	 * for something that must not happen. */
	KEXPECT_TRUE(t, !kt_poll(READ_ONCE(closer->done), 100));
	h->release = 1;
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(closer->done), KT_SOON_MS));
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rx->done), KT_SOON_MS));
	KEXPECT_EQ(t, h->sent, 8);
	KEXPECT_EQ(t, fake_xmits, xmits0 + 1);
	kt_shared_put(rx);
	kt_shared_put(closer);
	kt_shared_put(h);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

struct reply_case {
	volatile int sent;
	struct net_device *volatile dev; /* the skb's, in the handler */
	volatile uint64_t since;         /* its reference's stamp */
};

static void
reply_handler(struct socket *sk, struct sk_buff *skb,
              const struct sockaddr_in4 *from, void *arg)
{
	struct reply_case *r = arg;

	r->dev = skb->dev;
	r->since = skb->dev_tracker.since;
	r->sent = sock_send_skb(sk, skb, from);
}

/* The reply in fake_udp: from NET_A port 9 back to NET_B port 1234, a
 * valid checksum, the payload fake_rx_ip put in, each byte xor x. */
static void
expect_echo_xor(struct ktest *t, size_t payload, uint8_t x)
{
	struct ipv4_info ip;
	struct udp_dgram d;
	const uint8_t *p = fake_udp + ETH_HLEN;

	KASSERT_TRUE(t, fake_udp_len >= ETH_HLEN + IPV4_HLEN + UDP_HLEN);
	KASSERT_TRUE(t, ipv4_parse(p, fake_udp_len - ETH_HLEN, &ip) ==
	                    NET_DROP_NONE);
	KEXPECT_EQ(t, ip.src, NET_A);
	KEXPECT_EQ(t, ip.dst, NET_B);
	KASSERT_TRUE(t, udp_parse(p + IPV4_HLEN, ip.payload_len, ip.src, ip.dst,
	                          &d) == NET_DROP_NONE);
	KEXPECT_TRUE(t, d.csum_present);
	KEXPECT_EQ(t, d.sport, 9);
	KEXPECT_EQ(t, d.dport, 1234);
	KASSERT_TRUE(t, d.payload_len == payload);
	for (size_t i = 0; i < payload; i++)
		if (d.payload[i] != (uint8_t)((i * 7 + 1) ^ x)) {
			KEXPECT_EQ(t, d.payload[i], (uint8_t)((i * 7 + 1) ^ x));
			break;
		}
}

static void
expect_echo(struct ktest *t, size_t payload)
{
	expect_echo_xor(t, payload, 0);
}

/* A handler that sends the received skb back (sock_send_skb) sends that
 * very skb: no allocation, no copy.  One too short to pad to ETH_ZLEN
 * in place goes out through a copy; both replies are right, and the
 * copy's source is freed. */
static void
rx_handler_reply_reuses_the_skb(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct memtag *skbs;
	struct socket *sk;
	struct reply_case r = {0};
	const void *rx;
	int xmits0, objs0;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	skbs = memtag_at(memtag_index("skb"));
	KASSERT_TRUE(t, skbs != NULL);
	sk = port9_handler_socket(t, dev, reply_handler, &r);
	KASSERT_TRUE(t, sk != NULL);

	/* 14 + 20 + 8 + 32 bytes: no padding, headroom to spare */
	xmits0 = fake_xmits;
	fake_udp_skb = NULL;
	rx = fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 32);
	KASSERT_TRUE(t, rx != NULL);
	KEXPECT_EQ(t, r.sent, 32);
	KEXPECT_EQ(t, fake_xmits, xmits0 + 1);
	KEXPECT_TRUE(t, fake_udp_skb == rx);
	KEXPECT_TRUE(t, !fake_udp_partial); /* the device cannot */
	/* In flight all the way: the handler's skb still held the device,
	 * and went out on the reference it came in with (no put, no new
	 * hold: the tracker's stamp is the receive's). */
	KEXPECT_TRUE(t, r.dev == dev);
	if (dev->holders.level)
		KEXPECT_TRUE(t, fake_udp_since == r.since);
	expect_echo(t, 32);

	/* 14 + 20 + 8 + 8 = 50 bytes, no tailroom to pad: copied */
	objs0 = skbs->objs;
	fake_udp_skb = NULL;
	rx = fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	KASSERT_TRUE(t, rx != NULL);
	KEXPECT_EQ(t, r.sent, 8);
	KEXPECT_EQ(t, fake_xmits, xmits0 + 2);
	KEXPECT_TRUE(t, fake_udp_skb != NULL && fake_udp_skb != rx);
	KEXPECT_EQ(t, fake_udp_len, ETH_ZLEN);
	expect_echo(t, 8);
	KEXPECT_TRUE(t, kt_poll(skbs->objs <= objs0, KT_SOON_MS));

	sock_close(sk);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* A handler that changes the payload in place before sending it back. */
struct rewrite_case {
	volatile int sent;
	bool forget; /* says so first (skb_csum_rx_forget) */
};

static void
rewrite_handler(struct socket *sk, struct sk_buff *skb,
                const struct sockaddr_in4 *from, void *arg)
{
	struct rewrite_case *r = arg;

	if (r->forget)
		skb_csum_rx_forget(skb);
	for (unsigned i = 0; i < skb->len; i++)
		skb->data[i] ^= 0x5a;
	r->sent = sock_send_skb(sk, skb, from);
}

/* The reply to a received datagram reuses the payload's sum udp_rcv
 * kept (csum_rx), on a device that does not sum: the echo above is
 * right with it.  A handler that rewrites the payload and says so first
 * sends a right checksum; one that does not sends the stale sum, which
 * is how this case sees that the sum was reused and not recomputed. */
static void
rx_handler_rewrite_forgets_the_sum(struct ktest *t)
{
	struct net_device *dev = fake_up(t);
	struct rewrite_case r = {.forget = true};
	const uint8_t *p = fake_udp + ETH_HLEN + IPV4_HLEN;
	struct socket *sk;
	struct udp_dgram d;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	sk = port9_handler_socket(t, dev, rewrite_handler, &r);
	KASSERT_TRUE(t, sk != NULL);

	fake_udp_skb = NULL;
	KASSERT_TRUE(t, fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 40));
	KEXPECT_EQ(t, r.sent, 40);
	KEXPECT_TRUE(t, !fake_udp_partial);
	expect_echo_xor(t, 40, 0x5a);

	r.forget = false;
	fake_udp_skb = NULL;
	KASSERT_TRUE(t, fake_rx_ip(dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 40));
	KEXPECT_EQ(t, r.sent, 40);
	KASSERT_TRUE(t, fake_udp_len >= ETH_HLEN + IPV4_HLEN + UDP_HLEN + 40);
	KEXPECT_TRUE(t, udp_parse(p, UDP_HLEN + 40, NET_A, NET_B, &d) ==
	                    NET_DROP_UDP_BAD_CHECKSUM);

	sock_close(sk);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* A device that fills in TCP/UDP checksums (NETIF_F_L4_CSUM) gets the
 * datagram with the pseudo-header's sum in the field and where to sum
 * from; finished the way the device does it, the datagram verifies. */
static void
udp_checksum_left_to_device(struct ktest *t)
{
	struct net_device *dev = fake_up_features(t, NETIF_F_L4_CSUM);
	struct sockaddr_in4 to = {NET_B, 1234};
	struct socket *sk;
	struct ipv4_info ip;
	struct udp_dgram d;
	uint8_t pl[45];
	uint16_t c;

	if (dev == NULL && t->skipped)
		return;
	KASSERT_TRUE(t, dev != NULL);
	for (unsigned i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 7 + 1);
	fake_arp_reply(dev, NET_B);
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) == 0);
	fake_udp_len = 0;
	KEXPECT_EQ(t, sock_sendto(sk, pl, sizeof(pl), &to), (int)sizeof(pl));
	KASSERT_TRUE(t, fake_udp_len ==
	                    ETH_HLEN + IPV4_HLEN + UDP_HLEN + sizeof(pl));
	KEXPECT_TRUE(t, fake_udp_partial);
	KEXPECT_EQ(t, fake_udp_css, ETH_HLEN + IPV4_HLEN);
	KEXPECT_EQ(t, fake_udp_cso, ETH_HLEN + IPV4_HLEN + 6);
	/* the device: sum from css to the end, store the inverse at cso */
	c = inet_csum(fake_udp + fake_udp_css, fake_udp_len - fake_udp_css);
	put_be16(fake_udp + fake_udp_cso, c == 0 ? 0xffff : c);
	KASSERT_TRUE(t, ipv4_parse(fake_udp + ETH_HLEN, fake_udp_len - ETH_HLEN,
	                           &ip) == NET_DROP_NONE);
	KEXPECT_TRUE(t,
	             udp_parse(fake_udp + ETH_HLEN + IPV4_HLEN, ip.payload_len,
	                       ip.src, ip.dst, &d) == NET_DROP_NONE);
	KEXPECT_TRUE(t, d.csum_present);
	KEXPECT_EQ(t, d.payload_len, sizeof(pl));
	sock_close(sk);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* RFC 1071's byte-pair definition, for comparison. */
static uint32_t
csum_by_pairs(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = sum;

	for (; len >= 2; p += 2, len -= 2)
		acc += (uint32_t)p[0] << 8 | p[1];
	if (len == 1)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint32_t)acc;
}

/* The kernel's inet_csum_add, inet_csum and inet_csum20, as the i686
 * compiler built them, against byte pairs: every length to 200, every
 * start alignment, partial sums in, on varied and on all-0xff data
 * (where the end-around carries pile up). */
static void
csum_matches_byte_pairs(struct ktest *t)
{
	static uint8_t buf[256];
	unsigned bad = 0, seed = 1071;

	for (int fill = 0; fill < 2; fill++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = fill ? 0xff : (uint8_t)(seed >> 16);
		}
		for (size_t off = 0; off < 4; off++)
			for (size_t len = 0; len <= 200; len++) {
				uint32_t in = (uint32_t)(len * 977) & 0xffff;

				if (inet_csum_add(in, buf + off, len) !=
				    csum_by_pairs(in, buf + off, len))
					bad++;
				/* whole words take inet_csum's own path */
				if (inet_csum(buf + off, len) !=
				    (uint16_t)~csum_by_pairs(0, buf + off, len))
					bad++;
			}
		for (size_t off = 0; off + 20 <= sizeof(buf); off++)
			if (inet_csum20(buf + off) !=
			    (uint16_t)~csum_by_pairs(0, buf + off, 20))
				bad++;
	}
	KEXPECT_EQ(t, bad, 0);
}

/* Shared by the case below and its delivering thread. */
struct churn {
	struct net_device *dev;
	volatile int stop;
	volatile unsigned delivered;
};

static void
count_handler(struct socket *sk, struct sk_buff *skb,
              const struct sockaddr_in4 *from, void *arg)
{
	struct churn *c = arg;

	(void)sk;
	(void)from;
	__atomic_add_fetch(&c->delivered, 1, __ATOMIC_RELAXED);
	kfree_skb(skb);
}

static int
deliver_until_stopped(void *arg)
{
	struct churn *c = arg;

	while (!READ_ONCE(c->stop))
		fake_rx_ip(c->dev, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	kt_shared_put(c);
	return 0;
}

static int
close_socket_only(void *arg)
{
	sock_close(arg);
	return 0;
}

/* For the cases that race two CPUs: a fake device, or NULL when the
 * machine has one CPU (skipped) or the device could not be made. */
static struct net_device *
fake_up_smp(struct ktest *t)
{
	struct net_device *dev;

	if (kt_other_cpu() < 0) {
		ktest_skip(t, "needs two CPUs");
		return NULL;
	}
	dev = fake_up(t);
	if (!t->skipped)
		KEXPECT_TRUE(t, dev != NULL);
	return dev;
}

/* fn(arg) in a thread on the other CPU, parked at race point `point`
 * when this returns; NULL (the case failed) if it did not get there. */
static struct kt_async *
start_parked(struct ktest *t, const char *point, const char *name,
             int (*fn)(void *), void *arg)
{
	struct kt_async *a;

	KEXPECT_EQ(t, race_arm(point), 0);
	a = kt_async_start_on(name, fn, arg, kt_other_cpu());
	if (a == NULL) {
		race_disarm();
		KEXPECT_TRUE(t, a != NULL);
		return NULL;
	}
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	return a;
}

/* Closes 100 sockets on port 9, each while the other CPU is delivering
 * datagrams to it: to a receive handler, or (handler false) into its
 * queue.  Every close must end (a lost wakeup would leave one waiting)
 * and nothing may be touched after it (KFENCE and the poison would show
 * a use after free; the suite's meminfo checkpoint, a datagram queued
 * after the close drained the queue). */
static void
close_while_delivering(struct ktest *t, bool handler)
{
	struct net_device *dev = fake_up_smp(t);
	struct churn *c;
	struct kt_async *rx;
	int closed = 0;

	if (dev == NULL)
		return;
	c = kt_shared_alloc(sizeof(*c), 2); /* this case, the deliverer */
	KASSERT_TRUE(t, c != NULL);
	c->dev = dev;
	rx = kt_async_start_on("ktest-udpchurn", deliver_until_stopped, c,
	                       kt_other_cpu());
	if (rx == NULL)
		kt_shared_put(c);
	KASSERT_TRUE(t, rx != NULL);
	for (int i = 0; i < 100; i++) {
		struct sockaddr_in4 port9 = {0, 9};
		struct kt_async *closer;
		struct socket *sk;
		unsigned seen;

		if (sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) != 0)
			break;
		if ((handler &&
		     sock_set_rx_handler(sk, count_handler, c) != 0) ||
		    sock_bind(sk, &port9) != 0) {
			sock_close(sk);
			break;
		}
		seen = c->delivered;
		/* Closed while datagrams are arriving for it. */
		if (!kt_poll(handler ? c->delivered != seen
		                     : READ_ONCE(sk->rxq_len) != 0,
		             KT_SOON_MS)) {
			sock_close(sk);
			break;
		}
		closer =
		    kt_async_start("ktest-udpclose", close_socket_only, sk);
		if (closer == NULL) {
			sock_close(sk);
			break;
		}
		if (!kt_poll(READ_ONCE(closer->done), KT_SOON_MS)) {
			KEXPECT_MSG(t, false,
			            "close %d still waiting after %d ms", i,
			            KT_SOON_MS);
			break; /* closer and socket left to it */
		}
		kt_shared_put(closer);
		closed++;
	}
	c->stop = 1;
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rx->done), KT_SOON_MS));
	kt_shared_put(rx);
	kt_shared_put(c);
	KEXPECT_EQ(t, closed, 100);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

/* Handlers drop their pin without udp_lock and wake a waiting release
 * through a wait queue outside the socket. */
static void
handler_pin_races_close(struct ktest *t)
{
	close_while_delivering(t, true);
}

/* The lookup takes no lock: a socket found just before its close is
 * still in memory (the close waits a grace period) and what it queues
 * then is freed by the close. */
static void
queue_races_close(struct ktest *t)
{
	close_while_delivering(t, false);
}

static int
deliver_one_to_dev(void *arg)
{
	fake_rx_ip(arg, NET_B, IP_PROTO_UDP, UDP_HLEN + 8);
	return 0;
}

/* The same race made certain: the delivering thread parks in its
 * read-side section with the socket found; the close must wait (in a
 * grace period) until it has gone on, and the datagram it queues meanwhile
 * is the close's to free. */
static void
lookup_outlives_close(struct ktest *t)
{
	struct sockaddr_in4 port9 = {0, 9};
	struct net_device *dev = fake_up_smp(t);
	struct kt_async *rx, *closer;
	struct socket *sk;
	unsigned long gp;

	if (dev == NULL)
		return;
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) == 0);
	KASSERT_TRUE(t, sock_bind(sk, &port9) == 0);
	rx = start_parked(t, "udp-lookup-found", "ktest-udpfound",
	                  deliver_one_to_dev, dev);
	KASSERT_TRUE(t, rx != NULL);
	gp = rcu_gp_cookie();
	/* here: the other CPU spins with preemption off */
	closer = kt_async_start_on("ktest-udpclose", close_socket_only, sk,
	                           cpu_id());
	if (closer == NULL)
		race_release();
	KASSERT_TRUE(t, closer != NULL);
	/* The close either ends (wrong: the reader still stands on the
	 * socket) or starts a grace period that waits for the reader. */
	KEXPECT_TRUE(t,
	             kt_poll(READ_ONCE(closer->done) || rcu_gp_cookie() != gp,
	                     KT_SOON_MS));
	KEXPECT_MSG(t, !READ_ONCE(closer->done),
	            "the close ended while a lookup stood on the socket");
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rx->done), KT_SOON_MS));
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(closer->done), KT_SOON_MS));
	kt_shared_put(rx);
	kt_shared_put(closer);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

static int
echo_to_b(void *arg)
{
	(void)arg;
	return icmp_send_echo(NET_B, 4, 2, 8);
}

/* arp_output_fast stands on a neighbour entry without neigh_lock: parked
 * there, with the entry found, while NETDEV_DOWN kills the entry, it must
 * find the entry's memory still there (freed only after a grace period,
 * which it holds back) and its state reset, and so send nothing to the
 * old MAC: the packet takes the locked way instead. */
static void
neigh_fast_output_outlives_kill(struct ktest *t)
{
	struct net_device *dev = fake_up_smp(t);
	struct kt_async *tx;
	unsigned echoes;

	if (dev == NULL)
		return;
	KEXPECT_EQ(t, icmp_send_echo(NET_B, 4, 1, 8), 0); /* ARP request */
	fake_arp_reply(dev, NET_B); /* REACHABLE: the echo goes */
	echoes = fake_icmp_types[ICMP_ECHO_REQUEST];
	KEXPECT_EQ(t, icmp_send_echo(NET_B, 4, 1, 8), 0); /* the fast way */
	KEXPECT_EQ(t, fake_icmp_types[ICMP_ECHO_REQUEST], echoes + 1);
	tx =
	    start_parked(t, "arp-fast-found", "ktest-arpfast", echo_to_b, NULL);
	KASSERT_TRUE(t, tx != NULL);
	echoes = fake_icmp_types[ICMP_ECHO_REQUEST];
	KEXPECT_EQ(t, dev_close(dev), 0); /* kills the entry under it */
	KEXPECT_EQ(t, arp_count_dev(dev->ifindex), 0);
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(tx->done), KT_SOON_MS));
	KEXPECT_EQ(t, fake_icmp_types[ICMP_ECHO_REQUEST], echoes);
	kt_shared_put(tx);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

struct route_reply {
	struct net_device *dev;
	struct ip_nexthop nh;
};

static int
route_reply(void *arg)
{
	struct route_reply *rr = arg;
	struct sk_buff *skb = netdev_alloc_skb(rr->dev, 64);
	int r;

	if (skb == NULL)
		return -ENOMEM;
	r = ip_route_skb(NET_B, 0, skb, &rr->nh);
	kfree_skb(skb);
	return r;
}

/* ip_route_skb reads a cached dst without route_lock for a packet that
 * holds the route's device: parked there, the dst found, while a route
 * change empties the cache and drops the cache's (last) reference, the
 * dst's memory must stay (freed a grace period later, which the reader
 * holds back) and the reader must get its answer. */
static void
dst_lookup_outlives_flush(struct ktest *t)
{
	static struct route_reply rr; /* the reader's, past a failed case */
	struct dst_entry *dst;
	struct kt_async *rx;
	int32_t objs;

	rr.dev = fake_up_smp(t);
	if (rr.dev == NULL)
		return;
	KASSERT_TRUE(t, ip_route_output(NET_B, 0, &dst) == 0);
	dst_release(dst); /* the cache's reference is the last */
	rx = start_parked(t, "dst-found", "ktest-dstfound", route_reply, &rr);
	KASSERT_TRUE(t, rx != NULL);
	objs = kt_tag_objs(INET_TAG);
	/* any route change empties the cache: the dst's last put */
	KEXPECT_EQ(t, inet_route_add(NET_C, 32, NET_B, rr.dev->ifindex, 5), 0);
	KEXPECT_MSG(t, kt_tag_objs(INET_TAG) >= objs,
	            "a dst was freed while a lookup stood on it");
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rx->done), KT_SOON_MS));
	KEXPECT_EQ(t, rx->result, 0);
	KEXPECT_EQ(t, rr.nh.nexthop, NET_B);
	kt_shared_put(rx);
	KEXPECT_EQ(t, inet_route_del(NET_C, 32, rr.dev->ifindex), 0);
	KEXPECT_EQ(t, unregister_netdev(rr.dev), 0);
}

static int
send_one_udp(void *arg)
{
	struct sockaddr_in4 to = {NET_B, 1234};
	uint8_t b = 1;

	return sock_sendto(arg, &b, 1, &to) == 1 ? 0 : -EIO;
}

/* The IP ID of the last UDP datagram the fake device sent. */
static uint16_t
sent_ip_id(void)
{
	return get_be16(fake_udp + ETH_HLEN + 4);
}

/* IP IDs are counted per CPU, the CPU in the top three bits: one CPU's
 * follow each other, two CPUs' never meet. */
static void
ip_ids_per_cpu(struct ktest *t)
{
	struct net_device *dev = fake_up_smp(t);
	struct kt_async *a;
	struct socket *sk;
	uint16_t id1, id2;

	if (dev == NULL)
		return;
	fake_arp_reply(dev, NET_B);
	KASSERT_TRUE(t, sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk) == 0);
	KEXPECT_EQ(t, send_one_udp(sk), 0);
	id1 = sent_ip_id();
	KEXPECT_EQ(t, send_one_udp(sk), 0);
	id2 = sent_ip_id();
	KEXPECT_EQ(t, id1 >> 13, cpu_id());
	KEXPECT_EQ(t, id2, (id1 & 0xe000) | ((id1 + 1) & 0x1fff));
	a = kt_async_start_on("ktest-ipid", send_one_udp, sk, kt_other_cpu());
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, 0);
	KEXPECT_EQ(t, sent_ip_id() >> 13, kt_other_cpu());
	kt_shared_put(a);
	sock_close(sk);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

KTEST_SUITE(inet, KTEST_CASE(arp_entry_and_queued_packet_hold_device),
            KTEST_CASE(unresolved_neighbour_fails),
            KTEST_CASE(arp_queue_holds_three),
            KTEST_CASE(icmp_errors_rate_limited),
            KTEST_CASE(held_neighbour_becomes_stub),
            KTEST_CASE(dst_moves_to_blackhole),
            KTEST_CASE(route_skb_holds_device_only),
            KTEST_CASE(bound_socket_holds_until_unregister),
            KTEST_CASE(routes_and_address_go_with_device),
            KTEST_CASE(socket_registry_and_timeouts),
            KTEST_CASE(rx_handler_answers_and_close_waits),
            KTEST_CASE(dst_gc_frees_only_unheld_entries),
            KTEST_CASE(rx_handler_reply_reuses_the_skb),
            KTEST_CASE(rx_handler_rewrite_forgets_the_sum),
            KTEST_CASE(udp_checksum_left_to_device),
            KTEST_CASE(csum_matches_byte_pairs),
            KTEST_CASE(handler_pin_races_close), KTEST_CASE(queue_races_close),
            KTEST_CASE(lookup_outlives_close),
            KTEST_CASE(neigh_fast_output_outlives_kill),
            KTEST_CASE(dst_lookup_outlives_flush), KTEST_CASE(ip_ids_per_cpu));
