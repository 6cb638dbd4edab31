/*
 * Ethernet II framing (IEEE 802.3 clause 3.2, "DIX" EtherType form):
 * destination MAC, source MAC, 16-bit EtherType, payload.  The frame
 * check sequence is the NIC's business and never reaches this layer.
 */
#ifndef NET_ETHER_HDR_H
#define NET_ETHER_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"

#define ETH_ALEN     6
#define ETH_HLEN     14     /* dst + src + type */
#define ETH_ZLEN     60     /* minimum frame without FCS; shorter is padded */
#define ETH_DATA_LEN 1500   /* largest payload (MTU) */
#define ETH_TYPE_MIN 0x0600 /* below: an 802.3 length, not a type */

/* EtherTypes (IEEE registry). */
#define ETH_P_IP  0x0800
#define ETH_P_ARP 0x0806

struct ether_frame {
	uint8_t dst[ETH_ALEN];
	uint8_t src[ETH_ALEN];
	uint16_t type;
	const uint8_t *payload; /* points into the parsed frame */
	size_t payload_len;     /* may include the padding up to ETH_ZLEN */
};

extern const uint8_t ether_broadcast[ETH_ALEN];

/*
 * The helpers here are inline: every frame in or out asks them, and
 * under TCG a call cost more than what they do (docs/bench.md, session
 * 10); ether_parse's copy into out then mostly stays in registers.
 */

/* The group bit (I/G, first bit on the wire) is set: multicast or
 * broadcast. */
static inline bool
ether_is_multicast(const uint8_t mac[ETH_ALEN])
{
	return (mac[0] & 0x01) != 0;
}

/*
 * Accepts a frame of at least ETH_HLEN bytes whose type field is an
 * EtherType (>= 0x0600) and whose source address is a unicast address.
 * Drops: ETH_TRUNCATED, ETH_8023, ETH_BAD_SRC.  Whether the destination
 * is ours is the stack's question (ether_is_for()).
 */
static inline enum net_drop
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

/* Writes the 14-byte header; returns ETH_HLEN or -ENOSPC. */
static inline int
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

/* Two addresses compared as a 32-bit and a 16-bit word, not memcmp. */
static inline bool
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

static inline bool
ether_is_broadcast(const uint8_t mac[ETH_ALEN])
{
	return ether_equal(mac, ether_broadcast);
}

static inline bool
ether_is_zero(const uint8_t mac[ETH_ALEN])
{
	static const uint8_t zero[ETH_ALEN];

	return ether_equal(mac, zero);
}

/* Whether a station with address `ours` receives a frame sent to dst:
 * its own address or broadcast (no multicast groups are joined). */
static inline bool
ether_is_for(const uint8_t dst[ETH_ALEN], const uint8_t ours[ETH_ALEN])
{
	return ether_equal(dst, ours) || ether_is_broadcast(dst);
}

#endif /* NET_ETHER_HDR_H */
