/*
 * UDP building (RFC 768); the parser is in line in udp_proto.h.
 */
#include "net/ipv4/udp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

/* Where build's checksum comes from. */
enum udp_sum { SUM_PAYLOAD, SUM_PARTIAL, SUM_GIVEN };

/* The header, the payload (unless already in place) and the checksum:
 * summed here (SUM_PAYLOAD), from the payload's given sum (SUM_GIVEN,
 * udp_build_presummed), or left to a device with the pseudo-header's
 * sum in the field (SUM_PARTIAL, udp_build_partial).  In line in each:
 * one call per datagram sent instead of two, and how a constant. */
static inline __attribute__((always_inline)) int
build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
      uint16_t dport, const uint8_t *payload, size_t len, enum udp_sum how,
      uint32_t payload_sum)
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
	if (how == SUM_PARTIAL) {
		put_be16(buf + 6, (uint16_t)~inet_csum_fold(sum));
		return (int)ulen;
	}
	if (how == SUM_GIVEN) {
		/* pseudo-header, the header's words (checksum 0), payload */
		csum = inet_csum_fold(sum + sport + dport + ulen + payload_sum);
	} else {
		put_be16(buf + 6, 0);
		csum = inet_csum_fold(inet_csum_add(sum, buf, ulen));
	}
	put_be16(buf + 6, csum == 0 ? 0xffff : csum);
	return (int)ulen;
}

int
udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
          uint16_t dport, const uint8_t *payload, size_t len)
{
	return build(buf, cap, src, dst, sport, dport, payload, len,
	             SUM_PAYLOAD, 0);
}

PACKET_TX int
udp_build_partial(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                  uint16_t sport, uint16_t dport, const uint8_t *payload,
                  size_t len)
{
	return build(buf, cap, src, dst, sport, dport, payload, len,
	             SUM_PARTIAL, 0);
}

PACKET_TX int
udp_build_presummed(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                    uint16_t sport, uint16_t dport, size_t len,
                    uint32_t payload_sum)
{
	return build(buf, cap, src, dst, sport, dport, buf + UDP_HLEN, len,
	             SUM_GIVEN, payload_sum);
}
