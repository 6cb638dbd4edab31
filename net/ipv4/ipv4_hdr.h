/*
 * The IPv4 header (RFC 791 section 3.1): validation on input, building
 * on output, and the address classes the rest of the stack asks about.
 * No options, no fragments: this stack neither sends nor reassembles
 * them, and says so through a drop reason.
 */
#ifndef NET_IPV4_HDR_H
#define NET_IPV4_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/inet_csum.h"
#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"

#define IPV4_HLEN      20 /* header without options (IHL 5) */
#define IPV4_MAX_LEN   65535
#define IPV4_DEF_TTL   64          /* RFC 1700 "IP TTL" recommendation */
#define IPV4_BROADCAST 0xffffffffu /* limited broadcast (RFC 919) */

/* RFC 791 3.1 field offsets: ipv4_parse reads and ipv4_build writes by
 * these. */
enum {
	IPV4_OFF_VER_IHL = 0,
	IPV4_OFF_TOS = 1,
	IPV4_OFF_TOTLEN = 2,
	IPV4_OFF_ID = 4,
	IPV4_OFF_FRAG = 6,
	IPV4_OFF_TTL = 8,
	IPV4_OFF_PROTO = 9,
	IPV4_OFF_CSUM = 10,
	IPV4_OFF_SRC = 12,
	IPV4_OFF_DST = 16,
};

/* RFC 791 3.1 "Flags" and "Fragment Offset" in the 16-bit word. */
#define IPV4_FLAG_RESERVED 0x8000 /* bit 0: must be zero */
#define IPV4_FLAG_DF       0x4000 /* bit 1: don't fragment */
#define IPV4_FLAG_MF       0x2000 /* bit 2: more fragments */
#define IPV4_FRAG_OFFSET   0x1fff /* in 8-byte units */

/* Assigned protocol numbers (RFC 790, now the IANA registry). */
#define IP_PROTO_ICMP 1
#define IP_PROTO_TCP  6
#define IP_PROTO_UDP  17

struct ipv4_info {
	uint8_t tos;
	uint8_t ttl;
	uint8_t proto;
	uint16_t id;
	uint16_t frag; /* flags and fragment offset word */
	uint32_t src, dst;
	size_t hdr_len;         /* IHL * 4 */
	size_t total_len;       /* from the header: hdr_len + payload_len */
	const uint8_t *payload; /* points into the parsed packet */
	size_t payload_len;     /* total_len - hdr_len; link padding trimmed */
};

/* 224.0.0.0/4 (RFC 1112) */
static inline bool
ipv4_is_multicast(uint32_t a)
{
	return (a >> 28) == 0xe;
}

/* 127.0.0.0/8 */
static inline bool
ipv4_is_loopback(uint32_t a)
{
	return (a >> 24) == 127;
}

/* 0.0.0.0/8 "this network" */
static inline bool
ipv4_is_zeronet(uint32_t a)
{
	return (a >> 24) == 0;
}

static inline void
ipv4_read_fixed(const uint8_t *p, struct ipv4_info *out)
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

/*
 * Checks, in this order (the first failure is the reason returned):
 *   IP_TRUNCATED       len < 20
 *   IP_BAD_VERSION     version != 4
 *   IP_BAD_IHL         IHL < 5
 *   IP_TRUNCATED       len < IHL * 4
 *   IP_BAD_TOTAL_LEN   total length < IHL * 4 or > len (bytes after
 *                      total length are link padding and are ignored)
 *   IP_BAD_CHECKSUM    the header does not sum to zero (RFC 791 3.1)
 *   IP_BAD_FLAGS       the reserved flag bit is set
 *   IP_FRAGMENT        MF set or fragment offset non-zero
 *   IP_OPTIONS         IHL > 5
 *   IP_TTL_ZERO        TTL 0 (RFC 791 3.2: the datagram must be destroyed)
 *   IP_BAD_SRC         source multicast, limited broadcast or loopback
 *                      (RFC 1122 3.2.1.3; 0.0.0.0 is allowed for DHCP)
 * out is filled as far as the header could be read, so a caller may
 * still log addresses of a packet it drops.  Inline, as ipv4_build: the
 * receive path then keeps the fields it reads in registers, with no call
 * and return (docs/bench.md).
 */
static inline enum net_drop
ipv4_parse(const uint8_t *p, size_t len, struct ipv4_info *out)
{
	if (len < IPV4_HLEN) {
		memset(out, 0, sizeof(*out));
		return NET_DROP_IP_TRUNCATED;
	}
	/* ipv4_read_fixed writes all but the payload's two fields: no
	 * memset of the whole on every packet. */
	ipv4_read_fixed(p, out);
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

/*
 * Writes a 20-byte header for a payload of payload_len bytes from the
 * tos, ttl, proto, id, frag, src, dst fields of h (the length fields
 * are computed) and fills in the checksum.  Returns IPV4_HLEN, -ENOSPC,
 * or -EINVAL (payload too large for the 16-bit total length).  Inline:
 * every packet sent builds one, and its caller's h need not be written
 * out for a call (docs/bench.md).
 */
static inline int
ipv4_build(uint8_t *buf, size_t cap, const struct ipv4_info *h,
           size_t payload_len)
{
	if (cap < IPV4_HLEN)
		return -ENOSPC;
	if (payload_len > IPV4_MAX_LEN - IPV4_HLEN)
		return -EINVAL;
	buf[IPV4_OFF_VER_IHL] = 4 << 4 | IPV4_HLEN / 4;
	buf[IPV4_OFF_TOS] = h->tos;
	put_be16(buf + IPV4_OFF_TOTLEN, (uint16_t)(IPV4_HLEN + payload_len));
	put_be16(buf + IPV4_OFF_ID, h->id);
	put_be16(buf + IPV4_OFF_FRAG, h->frag);
	buf[IPV4_OFF_TTL] = h->ttl;
	buf[IPV4_OFF_PROTO] = h->proto;
	/* the checksum covers itself as zero */
	put_be16(buf + IPV4_OFF_CSUM, 0);
	put_be32(buf + IPV4_OFF_SRC, h->src);
	put_be32(buf + IPV4_OFF_DST, h->dst);
	put_be16(buf + IPV4_OFF_CSUM, inet_csum20(buf));
	return IPV4_HLEN;
}

/* A prefix length as a netmask (24 -> 255.255.255.0); len <= 32. */
uint32_t ipv4_netmask(unsigned int len);
/* The length of a contiguous netmask, or -1 if it has holes. */
int ipv4_mask_len(uint32_t mask);

#endif /* NET_IPV4_HDR_H */
