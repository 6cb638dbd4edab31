/*
 * UDP parse/validate/build (RFC 768).  See udp_proto.h.
 */
#include "net/ipv4/udp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

enum net_drop
udp_parse(const uint8_t *p, size_t len, uint32_t src, uint32_t dst,
          struct udp_dgram *out)
{
	size_t ulen;
	uint32_t sum;

	memset(out, 0, sizeof(*out));
	if (len < UDP_HLEN)
		return NET_DROP_UDP_TRUNCATED;
	out->sport = get_be16(p);
	out->dport = get_be16(p + 2);
	ulen = get_be16(p + 4);
	out->csum_present = get_be16(p + 6) != 0;
	if (ulen < UDP_HLEN || ulen > len)
		return NET_DROP_UDP_BAD_LEN;
	if (out->csum_present) {
		sum = inet_csum_pseudo(src, dst, IP_PROTO_UDP, (uint16_t)ulen);
		if (inet_csum_fold(inet_csum_add(sum, p, ulen)) != 0)
			return NET_DROP_UDP_BAD_CHECKSUM;
	}
	if (out->dport == 0)
		return NET_DROP_UDP_BAD_PORT;
	out->payload = p + UDP_HLEN;
	out->payload_len = ulen - UDP_HLEN;
	return NET_DROP_NONE;
}

/* The header, the payload (unless already in place) and, unless
 * partial, the checksum; partial leaves the pseudo-header's sum in the
 * field for a device to finish (udp_build_partial).  In line in both:
 * one call per datagram sent instead of two, and partial a constant. */
static inline __attribute__((always_inline)) int
build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
      uint16_t dport, const uint8_t *payload, size_t len, bool partial)
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
	if (partial) {
		put_be16(buf + 6, (uint16_t)~inet_csum_fold(sum));
		return (int)ulen;
	}
	put_be16(buf + 6, 0);
	csum = inet_csum_fold(inet_csum_add(sum, buf, ulen));
	put_be16(buf + 6, csum == 0 ? 0xffff : csum);
	return (int)ulen;
}

int
udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
          uint16_t dport, const uint8_t *payload, size_t len)
{
	return build(buf, cap, src, dst, sport, dport, payload, len, false);
}

int
udp_build_partial(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst,
                  uint16_t sport, uint16_t dport, const uint8_t *payload,
                  size_t len)
{
	return build(buf, cap, src, dst, sport, dport, payload, len, true);
}
