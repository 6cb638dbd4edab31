/*
 * IPv4 receive: every frame of type 0x0800 from any device.
 *
 * Order of checks (each failure is one drop counter, net_drop.h):
 * Ethernet header and destination MAC, then ipv4_parse (version, IHL,
 * lengths, checksum, flags, fragments, options, TTL, source), then "is it
 * for us" (our address on any device, the limited or the subnet
 * broadcast; UDP to a device without an address is accepted so a DHCP
 * client can hear its offer), then the protocol.  We never forward.
 *
 * Transport handlers are registered by protocol number with an owner
 * (a loadable TCP registers here): each call takes try_module_get on it,
 * so a protocol module that is GOING gets no more packets, which are
 * then counted as IP_UNKNOWN_PROTO.  A protocol with rcu_rx set (TCP,
 * which must keep its connections going while rmmod waits) is called
 * inside the RCU read-side section instead, with no reference.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/locking/rcu.h>

static const struct inet_protocol *volatile inet_protos[256];
static DEFINE_MUTEX(proto_mutex);
static struct packet_type ip_packet_type;

int
inet_add_protocol(const struct inet_protocol *p)
{
	int r = 0;

	mutex_lock(&proto_mutex);
	if (inet_protos[p->proto] != NULL)
		r = -EEXIST;
	else
		__atomic_store_n(&inet_protos[p->proto], p, __ATOMIC_RELEASE);
	mutex_unlock(&proto_mutex);
	return r;
}

void
inet_del_protocol(const struct inet_protocol *p)
{
	mutex_lock(&proto_mutex);
	if (inet_protos[p->proto] == p)
		__atomic_store_n(&inet_protos[p->proto], NULL,
		                 __ATOMIC_RELEASE);
	mutex_unlock(&proto_mutex);
	/* A receiver may have read the pointer and not yet its owner. */
	synchronize_rcu();
}

static bool
ip_for_us(struct net_device *dev, const struct ipv4_info *ih)
{
	uint32_t ours = inet_addr_get(dev->ifindex, NULL);

	if (ih->dst == IPV4_BROADCAST)
		return true;
	if (ours == 0)
		return ih->proto == IP_PROTO_UDP;
	return ih->dst == ours || inet_addr_is_bcast(dev->ifindex, ih->dst) ||
	       inet_addr_local(ih->dst) != 0;
}

PACKET_RX static void
ip_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt)
{
	const struct inet_protocol *p;
	struct inet_rx_info ri;
	struct ether_frame eh;
	struct ipv4_info ih;
	enum net_drop why;

	(void)pt;
	INET_INC(ip_in);
	why = ether_parse(skb->data, skb->len, &eh);
	if (why == NET_DROP_NONE && !ether_is_for(eh.dst, dev->dev_addr))
		why = NET_DROP_ETH_NOT_FOR_US;
	if (why == NET_DROP_NONE)
		why = ipv4_parse(eh.payload, eh.payload_len, &ih);
	if (why == NET_DROP_NONE && !ip_for_us(dev, &ih))
		why = NET_DROP_IP_NOT_FOR_US;
	if (why != NET_DROP_NONE) {
		inet_drop_skb(skb, why);
		return;
	}
	ri.src = ih.src;
	ri.dst = ih.dst;
	ri.proto = ih.proto;
	ri.ttl = ih.ttl;
	ri.ifindex = dev->ifindex;
	ri.link_bcast = ether_is_multicast(eh.dst);
	ri.iph = eh.payload;
	ri.ip_len = ih.total_len;
	/* data at the transport header, link padding trimmed */
	skb_pull(skb, (unsigned)(ih.payload - skb->data));
	skb->len = (unsigned)ih.payload_len;

	rcu_read_lock();
	p = __atomic_load_n(&inet_protos[ih.proto], __ATOMIC_ACQUIRE);
	if (p != NULL && p->rcu_rx) {
		INET_INC(ip_delivered);
		p->handler(skb, &ri); /* inet_del_protocol waits for us */
		rcu_read_unlock();
		return;
	}
	if (p != NULL && !try_module_get(p->owner))
		p = NULL;
	rcu_read_unlock();
	if (p == NULL) {
		icmp_send_unreach(&ri, ICMP_PROT_UNREACH);
		inet_drop_skb(skb, NET_DROP_IP_UNKNOWN_PROTO);
		return;
	}
	INET_INC(ip_delivered);
	INDIRECT_CALL_1(p->handler, udp_rcv, skb, &ri);
	module_put(p->owner);
}

void
ip_input_init(void)
{
	ip_packet_type.type = ETH_P_IP;
	ip_packet_type.func = ip_rcv;
	dev_add_pack(&ip_packet_type);
}
