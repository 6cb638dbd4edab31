/*
 * UDP datagrams (RFC 768): parse/validate and build, checksum over the
 * IPv4 pseudo-header included.
 */
#ifndef NET_UDP_PROTO_H
#define NET_UDP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/net_drop.h"

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
 */
enum net_drop udp_parse(const uint8_t *p, size_t len, uint32_t src,
                        uint32_t dst, struct udp_dgram *out);

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
int udp_build_partial(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                      uint16_t sport, uint16_t dport, const uint8_t *payload,
                      size_t len);
/*
 * udp_build for a payload already in place at buf + UDP_HLEN whose sum
 * is known (payload_sum, as udp_parse gives it for a received one): the
 * same datagram as udp_build's, without reading the payload.
 */
int udp_build_presummed(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                        uint16_t sport, uint16_t dport, size_t len,
                        uint32_t payload_sum);

#endif /* NET_UDP_PROTO_H */
