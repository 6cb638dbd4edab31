/*
 * ICMP messages (RFC 792): echo request/reply and the error messages
 * that quote a datagram (destination unreachable, time exceeded) are
 * parsed in full; other types are accepted after the checksum and left
 * to the stack (which counts them as ICMP_UNSUPPORTED).
 */
#ifndef NET_ICMP_PROTO_H
#define NET_ICMP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/net_drop.h"

#define ICMP_HLEN 8 /* type, code, checksum, 4 type-specific bytes */

/* RFC 792 message types. */
#define ICMP_ECHO_REPLY    0
#define ICMP_DEST_UNREACH  3
#define ICMP_ECHO_REQUEST  8
#define ICMP_TIME_EXCEEDED 11

/* Destination unreachable codes: RFC 792 (0-5), RFC 1122 3.2.2.1
 * (6-12) and RFC 1812 5.2.7.1 (13-15). */
#define ICMP_NET_UNREACH  0
#define ICMP_HOST_UNREACH 1
#define ICMP_PROT_UNREACH 2
#define ICMP_PORT_UNREACH 3
#define ICMP_FRAG_NEEDED  4 /* next-hop MTU in bytes 6-7 (RFC 1191) */
#define ICMP_UNREACH_MAX  15
#define ICMP_EXC_MAX      1 /* time exceeded: 0 in transit, 1 reassembly */

/* What an error message quotes of the datagram that caused it. */
struct icmp_quote {
	uint8_t proto;
	uint32_t src, dst;
	bool has_ports; /* 8 bytes after the quoted header were present */
	uint16_t sport, dport; /* first two 16-bit words (UDP and TCP ports) */
};

struct icmp_msg {
	uint8_t type, code;
	uint16_t id, seq;        /* echo request/reply */
	uint16_t mtu;            /* ICMP_FRAG_NEEDED */
	struct icmp_quote quote; /* dest unreachable, time exceeded */
	const uint8_t *data; /* after the 8-byte header: echo data or quote */
	size_t data_len;
};

/*
 * Accepts a message of at least 8 bytes whose checksum (over all len
 * bytes) is right.  Echo messages must have code 0; destination
 * unreachable and time exceeded must have a defined code and quote at
 * least a valid-looking IPv4 header (version 4, IHL >= 5, all of it
 * present).  Drops: ICMP_TRUNCATED, ICMP_BAD_CHECKSUM, ICMP_BAD_CODE,
 * ICMP_BAD_QUOTE.
 */
enum net_drop icmp_parse(const uint8_t *p, size_t len, struct icmp_msg *out);

/* An echo request or reply carrying data; returns 8 + len, -ENOSPC, or
 * -EINVAL if type is not an echo type. */
int icmp_build_echo(uint8_t *buf, size_t cap, uint8_t type, uint16_t id,
                    uint16_t seq, const uint8_t *data, size_t len);

/* A destination unreachable about orig, a received IPv4 datagram of
 * orig_len bytes that ipv4_parse() accepted: it quotes the header and
 * the first 64 bits of data (RFC 792).  mtu is written for
 * ICMP_FRAG_NEEDED, else zero.  Returns the length, -ENOSPC or -EINVAL
 * (code > 15, or orig shorter than its header). */
int icmp_build_unreach(uint8_t *buf, size_t cap, uint8_t code, uint16_t mtu,
                       const uint8_t *orig, size_t orig_len);

/*
 * Whether an ICMP error may be sent about a datagram (RFC 1122 3.2.2):
 * never about an ICMP error message, a datagram to a broadcast or
 * multicast address (link_broadcast: it arrived as a link-layer
 * broadcast), a non-initial fragment, or one whose source does not name
 * a single host (zero network, loopback, multicast, broadcast).
 */
bool icmp_may_send_error(const struct ipv4_info *orig, bool link_broadcast);

#endif /* NET_ICMP_PROTO_H */
