/*
 * UDP datagrams (RFC 768): parse/validate and build, checksum over the
 * IPv4 pseudo-header included.
 */
#ifndef NET_UDP_PROTO_H
#define NET_UDP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"

#define UDP_HLEN        8 /* source port, destination port, length, checksum */
#define UDP_MAX_PAYLOAD (65535 - 20 - UDP_HLEN) /* in one IPv4 datagram */

struct udp_dgram {
	uint16_t sport, dport;
	bool csum_present;      /* RFC 768: 0 means the sender computed none */
	const uint8_t *payload; /* points into the parsed packet */
	size_t payload_len;     /* length field - 8; IP padding ignored */
	/* With csum_present: the payload's own partial sum
	 * (inet_csum_add(0, payload, payload_len)), summed apart from the
	 * header so that a reply of the same bytes need not sum them again
	 * (udp_build_presummed). */
	uint32_t payload_sum;
};

/*
 * p/len is the IPv4 payload; src and dst (host order) are the IPv4
 * addresses for the pseudo-header.  Checks, in order:
 *   UDP_TRUNCATED     len < 8
 *   UDP_BAD_LEN       length field < 8 or > len
 *   UDP_BAD_CHECKSUM  checksum non-zero and the datagram (length field
 *                     bytes) plus pseudo-header does not sum to zero
 *   UDP_BAD_PORT      destination port 0 (reserved; source 0 is allowed,
 *                     RFC 768 "Source Port ... optional")
 * In line, as ipv4_parse: udp_rcv is its one caller on the receive
 * path (docs/bench.md).
 */
static inline enum net_drop
udp_parse(const uint8_t *p, size_t len, uint32_t src, uint32_t dst,
          struct udp_dgram *out)
{
	size_t ulen;
	uint16_t csum;
	uint32_t sum;

	memset(out, 0, sizeof(*out));
	if (len < UDP_HLEN)
		return NET_DROP_UDP_TRUNCATED;
	out->sport = get_be16(p);
	out->dport = get_be16(p + 2);
	ulen = get_be16(p + 4);
	csum = get_be16(p + 6);
	out->csum_present = csum != 0;
	if (ulen < UDP_HLEN || ulen > len)
		return NET_DROP_UDP_BAD_LEN;
	if (out->csum_present) {
		/* The header's four words as read, the payload apart (it
		 * starts at an even offset: the pairing holds). */
		out->payload_sum =
		    inet_csum_add(0, p + UDP_HLEN, ulen - UDP_HLEN);
		sum = inet_csum_pseudo(src, dst, IP_PROTO_UDP, (uint16_t)ulen) +
		      out->sport + out->dport + (uint32_t)ulen + csum +
		      out->payload_sum;
		if (inet_csum_fold(sum) != 0)
			return NET_DROP_UDP_BAD_CHECKSUM;
	}
	if (out->dport == 0)
		return NET_DROP_UDP_BAD_PORT;
	out->payload = p + UDP_HLEN;
	out->payload_len = ulen - UDP_HLEN;
	return NET_DROP_NONE;
}

/* Where udp_build_how's checksum comes from. */
enum udp_sum { UDP_SUM_PAYLOAD, UDP_SUM_PARTIAL, UDP_SUM_GIVEN };

/* The header, the payload (unless already in place) and the checksum:
 * summed here (UDP_SUM_PAYLOAD), from the payload's given sum
 * (UDP_SUM_GIVEN, udp_build_presummed), or left to a device with the
 * pseudo-header's sum in the field (UDP_SUM_PARTIAL, udp_build_partial).
 * In line in each, with how a constant; the two a reply is built with
 * are in line in the sender too (docs/bench.md). */
static inline __attribute__((always_inline)) int
udp_build_how(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
              uint16_t sport, uint16_t dport, const uint8_t *payload,
              size_t len, enum udp_sum how, uint32_t payload_sum)
{
	uint16_t ulen, csum;
	uint32_t sum;

	if (len > UDP_MAX_PAYLOAD || dport == 0)
		return -EINVAL;
	if (cap < UDP_HLEN || len > cap - UDP_HLEN)
		return -ENOSPC;
	ulen = (uint16_t)(UDP_HLEN + len);
	if (len > 0 && payload != buf + UDP_HLEN)
		memmove(buf + UDP_HLEN, payload, len);
	put_be16(buf, sport);
	put_be16(buf + 2, dport);
	put_be16(buf + 4, ulen);
	sum = inet_csum_pseudo(src, dst, IP_PROTO_UDP, ulen);
	if (how == UDP_SUM_PARTIAL) {
		put_be16(buf + 6, (uint16_t)~inet_csum_fold(sum));
		return (int)ulen;
	}
	if (how == UDP_SUM_GIVEN) {
		/* pseudo-header, the header's words (checksum 0), payload */
		csum = inet_csum_fold(sum + sport + dport + ulen + payload_sum);
	} else {
		put_be16(buf + 6, 0);
		csum = inet_csum_fold(inet_csum_add(sum, buf, ulen));
	}
	put_be16(buf + 6, csum == 0 ? 0xffff : csum);
	return (int)ulen;
}

/*
 * Writes header + payload (payload may already sit at buf + UDP_HLEN)
 * and the checksum; a computed 0 is sent as 0xffff (RFC 768), so every
 * datagram built here carries a checksum.  Returns 8 + len, -ENOSPC, or
 * -EINVAL (len > UDP_MAX_PAYLOAD or dport 0).
 */
int udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
              uint16_t sport, uint16_t dport, const uint8_t *payload,
              size_t len);
/*
 * udp_build for a device that fills in the checksum (NETIF_F_L4_CSUM):
 * the field holds the pseudo-header's folded sum, so the one's
 * complement sum of the datagram from its first byte, inverted, is the
 * checksum udp_build would write.
 */
static inline int
udp_build_partial(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                  uint16_t sport, uint16_t dport, const uint8_t *payload,
                  size_t len)
{
	return udp_build_how(buf, cap, src, dst, sport, dport, payload, len,
	                     UDP_SUM_PARTIAL, 0);
}
/*
 * udp_build for a payload already in place at buf + UDP_HLEN whose sum
 * is known (payload_sum, as udp_parse gives it for a received one): the
 * same datagram as udp_build's, without reading the payload.
 */
static inline int
udp_build_presummed(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                    uint16_t sport, uint16_t dport, size_t len,
                    uint32_t payload_sum)
{
	return udp_build_how(buf, cap, src, dst, sport, dport, buf + UDP_HLEN,
	                     len, UDP_SUM_GIVEN, payload_sum);
}

#endif /* NET_UDP_PROTO_H */
