/*
 * Ethernet II header parse and build.  Pure functions over byte views;
 * see ether_hdr.h for what a frame must satisfy.
 */
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/proto_lib.h"

const uint8_t ether_broadcast[ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

bool
ether_is_multicast(const uint8_t mac[ETH_ALEN])
{
	return (mac[0] & 0x01) != 0;
}

/* Two addresses compared as a 32-bit and a 16-bit word: every received
 * frame asks twice, and a call to memcmp cost more than the compare. */
static bool
ether_equal(const uint8_t a[ETH_ALEN], const uint8_t b[ETH_ALEN])
{
	uint32_t a0, b0;
	uint16_t a1, b1;

	__builtin_memcpy(&a0, a, 4);
	__builtin_memcpy(&b0, b, 4);
	__builtin_memcpy(&a1, a + 4, 2);
	__builtin_memcpy(&b1, b + 4, 2);
	return ((a0 ^ b0) | (uint32_t)(a1 ^ b1)) == 0;
}

bool
ether_is_broadcast(const uint8_t mac[ETH_ALEN])
{
	return ether_equal(mac, ether_broadcast);
}

bool
ether_is_zero(const uint8_t mac[ETH_ALEN])
{
	static const uint8_t zero[ETH_ALEN];

	return ether_equal(mac, zero);
}

bool
ether_is_for(const uint8_t dst[ETH_ALEN], const uint8_t ours[ETH_ALEN])
{
	return ether_equal(dst, ours) || ether_is_broadcast(dst);
}

enum net_drop
ether_parse(const uint8_t *frame, size_t len, struct ether_frame *out)
{
	if (len < ETH_HLEN)
		return NET_DROP_ETH_TRUNCATED;
	memcpy(out->dst, frame, ETH_ALEN);
	memcpy(out->src, frame + ETH_ALEN, ETH_ALEN);
	out->type = get_be16(frame + 2 * ETH_ALEN);
	out->payload = frame + ETH_HLEN;
	out->payload_len = len - ETH_HLEN;
	if (out->type < ETH_TYPE_MIN)
		return NET_DROP_ETH_8023;
	/* IEEE 802 section 8.2: a source address is always individual. */
	if (ether_is_multicast(out->src))
		return NET_DROP_ETH_BAD_SRC;
	return NET_DROP_NONE;
}

int
ether_build(uint8_t *buf, size_t cap, const uint8_t dst[ETH_ALEN],
            const uint8_t src[ETH_ALEN], uint16_t type)
{
	if (cap < ETH_HLEN)
		return -ENOSPC;
	memcpy(buf, dst, ETH_ALEN);
	memcpy(buf + ETH_ALEN, src, ETH_ALEN);
	put_be16(buf + 2 * ETH_ALEN, type);
	return ETH_HLEN;
}
