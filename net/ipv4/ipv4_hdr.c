/*
 * IPv4 header validation and building (RFC 791 section 3.1).  The order
 * of the checks is documented in ipv4_hdr.h and pinned by the unit tests:
 * each crafted bad packet must produce exactly its reason.
 */
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/proto_lib.h"

bool
ipv4_is_multicast(uint32_t a)
{
	return (a >> 28) == 0xe;
}

bool
ipv4_is_loopback(uint32_t a)
{
	return (a >> 24) == 127;
}

bool
ipv4_is_zeronet(uint32_t a)
{
	return (a >> 24) == 0;
}

uint32_t
ipv4_netmask(unsigned int len)
{
	if (len == 0)
		return 0;
	if (len >= 32)
		return 0xffffffffu;
	return ~((1u << (32 - len)) - 1);
}

int
ipv4_mask_len(uint32_t mask)
{
	int len = 0;

	while (len < 32 && (mask & (0x80000000u >> len)) != 0)
		len++;
	return ipv4_netmask((unsigned int)len) == mask ? len : -1;
}

/* Reads the fixed part; the caller checked len >= IPV4_HLEN. */
static void
read_fixed(const uint8_t *p, struct ipv4_info *out)
{
	out->hdr_len = (size_t)(p[IPV4_OFF_VER_IHL] & 0x0f) * 4;
	out->tos = p[IPV4_OFF_TOS];
	out->total_len = get_be16(p + IPV4_OFF_TOTLEN);
	out->id = get_be16(p + IPV4_OFF_ID);
	out->frag = get_be16(p + IPV4_OFF_FRAG);
	out->ttl = p[IPV4_OFF_TTL];
	out->proto = p[IPV4_OFF_PROTO];
	out->src = get_be32(p + IPV4_OFF_SRC);
	out->dst = get_be32(p + IPV4_OFF_DST);
}

enum net_drop
ipv4_parse(const uint8_t *p, size_t len, struct ipv4_info *out)
{
	if (len < IPV4_HLEN) {
		memset(out, 0, sizeof(*out));
		return NET_DROP_IP_TRUNCATED;
	}
	/* read_fixed writes all but the payload's two fields: no memset of
	 * the whole on every packet. */
	read_fixed(p, out);
	out->payload = NULL;
	out->payload_len = 0;
	if ((p[IPV4_OFF_VER_IHL] >> 4) != 4)
		return NET_DROP_IP_BAD_VERSION;
	if (out->hdr_len < IPV4_HLEN)
		return NET_DROP_IP_BAD_IHL;
	if (len < out->hdr_len)
		return NET_DROP_IP_TRUNCATED;
	if (out->total_len < out->hdr_len || out->total_len > len)
		return NET_DROP_IP_BAD_TOTAL_LEN;
	if ((out->hdr_len == IPV4_HLEN ? inet_csum20(p)
	                               : inet_csum(p, out->hdr_len)) != 0)
		return NET_DROP_IP_BAD_CHECKSUM;
	if (out->frag & IPV4_FLAG_RESERVED)
		return NET_DROP_IP_BAD_FLAGS;
	if (out->frag & (IPV4_FLAG_MF | IPV4_FRAG_OFFSET))
		return NET_DROP_IP_FRAGMENT;
	if (out->hdr_len > IPV4_HLEN)
		return NET_DROP_IP_OPTIONS;
	if (out->ttl == 0)
		return NET_DROP_IP_TTL_ZERO;
	if (ipv4_is_multicast(out->src) || out->src == IPV4_BROADCAST ||
	    ipv4_is_loopback(out->src))
		return NET_DROP_IP_BAD_SRC;
	out->payload = p + out->hdr_len;
	out->payload_len = out->total_len - out->hdr_len;
	return NET_DROP_NONE;
}
