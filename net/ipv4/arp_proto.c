/*
 * ARP packet parse/validate/build (RFC 826), Ethernet and IPv4 only.
 */
#include "net/ipv4/arp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

/* Offsets of RFC 826's fields for hln 6, pln 4. */
enum {
	OFF_HRD = 0,
	OFF_PRO = 2,
	OFF_HLN = 4,
	OFF_PLN = 5,
	OFF_OP = 6,
	OFF_SHA = 8,
	OFF_SPA = 14,
	OFF_THA = 18,
	OFF_TPA = 24,
};

enum net_drop
arp_parse(const uint8_t *p, size_t len, struct arp_pkt *out)
{
	if (len < ARP_LEN)
		return NET_DROP_ARP_TRUNCATED;
	if (get_be16(p + OFF_HRD) != ARP_HRD_ETHER)
		return NET_DROP_ARP_BAD_HTYPE;
	if (get_be16(p + OFF_PRO) != ARP_PRO_IP)
		return NET_DROP_ARP_BAD_PTYPE;
	if (p[OFF_HLN] != ETH_ALEN)
		return NET_DROP_ARP_BAD_HLEN;
	if (p[OFF_PLN] != 4)
		return NET_DROP_ARP_BAD_PLEN;
	out->op = get_be16(p + OFF_OP);
	if (out->op != ARP_OP_REQUEST && out->op != ARP_OP_REPLY)
		return NET_DROP_ARP_BAD_OP;
	memcpy(out->sha, p + OFF_SHA, ETH_ALEN);
	out->spa = get_be32(p + OFF_SPA);
	memcpy(out->tha, p + OFF_THA, ETH_ALEN);
	out->tpa = get_be32(p + OFF_TPA);
	/* A sender we would cache must be a station: never a group. */
	if (ether_is_multicast(out->sha) || ether_is_zero(out->sha) ||
	    ipv4_is_multicast(out->spa) || out->spa == IPV4_BROADCAST)
		return NET_DROP_ARP_BAD_SENDER;
	return NET_DROP_NONE;
}

int
arp_build(uint8_t *buf, size_t cap, const struct arp_pkt *a)
{
	if (cap < ARP_LEN)
		return -ENOSPC;
	if (a->op != ARP_OP_REQUEST && a->op != ARP_OP_REPLY)
		return -EINVAL;
	put_be16(buf + OFF_HRD, ARP_HRD_ETHER);
	put_be16(buf + OFF_PRO, ARP_PRO_IP);
	buf[OFF_HLN] = ETH_ALEN;
	buf[OFF_PLN] = 4;
	put_be16(buf + OFF_OP, a->op);
	memcpy(buf + OFF_SHA, a->sha, ETH_ALEN);
	put_be32(buf + OFF_SPA, a->spa);
	memcpy(buf + OFF_THA, a->tha, ETH_ALEN);
	put_be32(buf + OFF_TPA, a->tpa);
	return ARP_LEN;
}

void
arp_make_request(struct arp_pkt *a, const uint8_t sha[ETH_ALEN], uint32_t spa,
                 uint32_t tpa)
{
	a->op = ARP_OP_REQUEST;
	memcpy(a->sha, sha, ETH_ALEN);
	a->spa = spa;
	memset(a->tha, 0, ETH_ALEN);
	a->tpa = tpa;
}

void
arp_make_reply(struct arp_pkt *a, const struct arp_pkt *req,
               const uint8_t our_mac[ETH_ALEN])
{
	uint32_t spa = req->tpa;

	a->op = ARP_OP_REPLY;
	memcpy(a->tha, req->sha, ETH_ALEN);
	a->tpa = req->spa;
	memcpy(a->sha, our_mac, ETH_ALEN);
	a->spa = spa;
}
