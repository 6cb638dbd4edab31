/*
 * IPv4 send: route (or use the caller's dst), prepend the 20-byte
 * header, hand the packet to the neighbour layer on the route's device.
 * The skb holds that device ("skb") from here until the driver frees it,
 * so a packet in flight keeps its device alive and shows in `refs`.
 * Through a dst that was moved to the blackhole device the packet is
 * dropped (IP_NO_ROUTE) and the caller gets -ENETUNREACH.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/lib/errno.h>
#include <kernel/debug/panic.h>

/*
 * Every packet we send has DF set, so its ID only tells a receiver's
 * duplicate detection one packet from the next (RFC 6864: an atomic
 * datagram's ID need not be unique).  Counted per CPU, the CPU in the
 * top three bits: no locked add per packet, and two CPUs never send the
 * same ID within 8192 of their packets.
 */
static struct pcpu_slot ip_ident[MAX_CPUS];

_Static_assert(MAX_CPUS <= 8, "the CPU takes three bits of the IP ID");

static uint16_t
ip_next_ident(void)
{
	int cpu = cpu_id();
	int n = cpu_local_fetch_add(&ip_ident[cpu].n, 1);

	return (uint16_t)(cpu << 13 | (n & 0x1fff));
}

struct sk_buff *
inet_alloc_skb(size_t len)
{
	struct sk_buff *skb;

	if (len > ETH_MAX_MTU)
		return NULL;
	/* room to pad the frame to ETH_ZLEN */
	skb = alloc_skb((unsigned)(len < ETH_ZLEN ? ETH_ZLEN : len + 4));
	if (skb != NULL)
		skb_put(skb, (unsigned)len);
	return skb;
}

PACKET_TX int
ip_send_nexthop(struct sk_buff *skb, const struct ip_nexthop *nh,
                uint32_t saddr, uint32_t daddr, uint8_t proto)
{
	struct net_device *dev = nh->dev;
	struct ipv4_info h; /* the fields ipv4_build reads, set below */
	unsigned plen;

	ASSERT(skb->dev == dev);

	if (dev == blackhole_dev) {
		inet_drop_skb(skb, NET_DROP_IP_NO_ROUTE);
		return -ENETUNREACH;
	}
	if (!netif_running(dev)) {
		kfree_skb(skb);
		return -ENETDOWN;
	}
	if (skb->len + IPV4_HLEN > dev->mtu) {
		kfree_skb(skb);
		return -E2BIG;
	}
	h.tos = 0;
	h.ttl = IPV4_DEF_TTL;
	h.proto = proto;
	h.id = ip_next_ident();
	h.frag = IPV4_FLAG_DF;
	h.src = saddr != 0 ? saddr : nh->saddr;
	h.dst = daddr;
	plen = skb->len;
	ipv4_build(skb_push(skb, IPV4_HLEN), IPV4_HLEN, &h, plen);
	INET_INC(ip_out);
	return arp_output(skb, dev, nh->nexthop, nh->bcast);
}

int
ip_send_dst(struct sk_buff *skb, struct dst_entry *dst, uint32_t saddr,
            uint32_t daddr, uint8_t proto)
{
	struct ip_nexthop nh;

	dst_route_skb(dst, skb, &nh);
	return ip_send_nexthop(skb, &nh, saddr, daddr, proto);
}

int
ip_send(struct sk_buff *skb, uint32_t saddr, uint32_t daddr, uint8_t proto,
        int oif)
{
	struct ip_nexthop nh;
	int r = ip_route_skb(daddr, oif, skb, &nh);

	if (r != 0) {
		inet_drop_skb(skb, NET_DROP_IP_NO_ROUTE);
		return r;
	}
	return ip_send_nexthop(skb, &nh, saddr, daddr, proto);
}
