/*
 * ICMP (RFC 792) and UDP (RFC 768): the slirp packets, builders checked
 * byte for byte against them, every drop reason, and the RFC 1122 rules
 * for sending ICMP errors.
 */
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/udp_proto.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

#define ICMP_OF(frame) ((frame) + 34)
#define SRC            IP4(10, 0, 2, 2)
#define DST            IP4(10, 0, 2, 15)

static void
icmp_parses_slirp_echo_reply(struct kt *t)
{
	struct icmp_msg m;

	KT_EXPECT_DROP(t, icmp_parse(ICMP_OF(slirp_icmp_echo_reply), 64, &m),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, ICMP_ECHO_REPLY);
	KT_EXPECT_EQ(t, m.id, 0x1234);
	KT_EXPECT_EQ(t, m.seq, 1);
	KT_EXPECT_EQ(t, m.data_len, 56);
	KT_EXPECT_EQ(t, m.data[55], 55);
}

/* ping's request, then the reply a host builds from it: the slirp bytes. */
static void
icmp_echo_round_trip(struct kt *t)
{
	uint8_t req[64], rep[64];
	struct icmp_msg m;
	const uint8_t *data = ICMP_OF(slirp_icmp_echo_reply) + 8;

	KT_EXPECT_EQ(
	    t, icmp_build_echo(req, 63, ICMP_ECHO_REQUEST, 1, 1, data, 56),
	    -ENOSPC);
	KT_EXPECT_EQ(t, icmp_build_echo(req, 64, 3, 1, 1, data, 56), -EINVAL);
	KT_EXPECT_EQ(t,
	             icmp_build_echo(req, sizeof(req), ICMP_ECHO_REQUEST,
	                             0x1234, 1, data, 56),
	             64);
	KT_EXPECT_DROP(t, icmp_parse(req, 64, &m), NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, ICMP_ECHO_REQUEST);
	KT_EXPECT_EQ(t,
	             icmp_build_echo(rep, sizeof(rep), ICMP_ECHO_REPLY, m.id,
	                             m.seq, m.data, m.data_len),
	             64);
	KT_EXPECT(t, memcmp(rep, ICMP_OF(slirp_icmp_echo_reply), 64) == 0);
	/* In place: data already at buf + 8. */
	KT_EXPECT_EQ(t,
	             icmp_build_echo(req, sizeof(req), ICMP_ECHO_REPLY, 0x1234,
	                             1, req + 8, 56),
	             64);
	KT_EXPECT(t, memcmp(req, rep, 64) == 0);
}

static void
icmp_drops(struct kt *t)
{
	uint8_t b[64];
	struct icmp_msg m;

	memcpy(b, ICMP_OF(slirp_icmp_echo_reply), 64);
	KT_EXPECT_DROP(t, icmp_parse(b, 7, &m), NET_DROP_ICMP_TRUNCATED);
	KT_EXPECT_DROP(t, icmp_parse(b, 63, &m), NET_DROP_ICMP_BAD_CHECKSUM);
	b[40] ^= 1;
	KT_EXPECT_DROP(t, icmp_parse(b, 64, &m), NET_DROP_ICMP_BAD_CHECKSUM);
	b[40] ^= 1;
	b[1] = 1; /* echo reply code 1 */
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, 64));
	KT_EXPECT_DROP(t, icmp_parse(b, 64, &m), NET_DROP_ICMP_BAD_CODE);
	/* Timestamp (13): valid, left to the stack. */
	b[0] = 13;
	b[1] = 0;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, 64));
	KT_EXPECT_DROP(t, icmp_parse(b, 64, &m), NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, 13);
}

/* Port unreachable for the slirp UDP datagram: quotes header + 8. */
static void
icmp_unreachable(struct kt *t)
{
	const uint8_t *orig = slirp_udp_hello + 14;
	uint8_t b[128];
	struct icmp_msg m;
	int n;

	n = icmp_build_unreach(b, sizeof(b), ICMP_PORT_UNREACH, 0, orig, 41);
	KT_EXPECT_EQ(t, n, 8 + 20 + 8);
	KT_EXPECT(t, memcmp(b + 8, orig, 28) == 0);
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, ICMP_DEST_UNREACH);
	KT_EXPECT_EQ(t, m.code, ICMP_PORT_UNREACH);
	KT_EXPECT_EQ(t, m.quote.proto, IP_PROTO_UDP);
	KT_EXPECT_EQ(t, m.quote.src, SRC);
	KT_EXPECT_EQ(t, m.quote.dst, DST);
	KT_EXPECT(t, m.quote.has_ports);
	KT_EXPECT_EQ(t, m.quote.sport, 40000);
	KT_EXPECT_EQ(t, m.quote.dport, 7);
	/* A short original is quoted whole. */
	n = icmp_build_unreach(b, sizeof(b), ICMP_PORT_UNREACH, 0, orig, 24);
	KT_EXPECT_EQ(t, n, 8 + 24);
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_NONE);
	KT_EXPECT(t, !m.quote.has_ports);
	/* Fragmentation needed carries the MTU (RFC 1191). */
	n = icmp_build_unreach(b, sizeof(b), ICMP_FRAG_NEEDED, 1400, orig, 41);
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.mtu, 1400);
	KT_EXPECT_EQ(t, icmp_build_unreach(b, 35, 3, 0, orig, 41), -ENOSPC);
	KT_EXPECT_EQ(t, icmp_build_unreach(b, sizeof(b), 16, 0, orig, 41),
	             -EINVAL);
	KT_EXPECT_EQ(t, icmp_build_unreach(b, sizeof(b), 3, 0, orig, 19),
	             -EINVAL);
}

static void
icmp_error_drops(struct kt *t)
{
	const uint8_t *orig = slirp_udp_hello + 14;
	uint8_t b[128];
	struct icmp_msg m;
	int n;

	n = icmp_build_unreach(b, sizeof(b), ICMP_PORT_UNREACH, 0, orig, 41);
	b[1] = 16; /* no such code */
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, (size_t)n));
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_ICMP_BAD_CODE);
	b[0] = ICMP_TIME_EXCEEDED;
	b[1] = 2;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, (size_t)n));
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_ICMP_BAD_CODE);
	b[1] = 0;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, (size_t)n));
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m), NET_DROP_NONE);
	/* Quoted header: version 6, then IHL 15 beyond the quote, then
	 * fewer than 20 bytes. */
	b[8] = 0x65;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, (size_t)n));
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m),
	               NET_DROP_ICMP_BAD_QUOTE);
	b[8] = 0x4f;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, (size_t)n));
	KT_EXPECT_DROP(t, icmp_parse(b, (size_t)n, &m),
	               NET_DROP_ICMP_BAD_QUOTE);
	b[8] = 0x45;
	put_be16(b + 2, 0);
	put_be16(b + 2, inet_csum(b, 8 + 19));
	KT_EXPECT_DROP(t, icmp_parse(b, 8 + 19, &m), NET_DROP_ICMP_BAD_QUOTE);
}

/* RFC 1122 3.2.2: when an ICMP error must not be sent. */
static void
icmp_error_rules(struct kt *t)
{
	struct ipv4_info h;
	uint8_t echo = ICMP_ECHO_REQUEST, unreach = ICMP_DEST_UNREACH;

	KT_ASSERT(t, ipv4_parse(slirp_udp_hello + 14, 41, &h) == 0);
	KT_EXPECT(t, icmp_may_send_error(&h, false));
	KT_EXPECT(t, !icmp_may_send_error(&h, true));
	h.dst = IPV4_BROADCAST;
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.dst = IP4(224, 0, 0, 251);
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.dst = DST;
	h.frag = 0x0010;
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.frag = IPV4_FLAG_MF; /* a first fragment may be answered */
	KT_EXPECT(t, icmp_may_send_error(&h, false));
	h.frag = 0;
	h.src = 0;
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.src = IP4(127, 0, 0, 1);
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.src = SRC;
	h.proto = IP_PROTO_ICMP;
	h.payload = &unreach;
	h.payload_len = 1;
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
	h.payload = &echo;
	KT_EXPECT(t, icmp_may_send_error(&h, false));
	h.payload_len = 0;
	KT_EXPECT(t, !icmp_may_send_error(&h, false));
}

static void
udp_parses_slirp_hello(struct kt *t)
{
	struct udp_dgram u;

	KT_EXPECT_DROP(t, udp_parse(slirp_udp_hello + 34, 21, SRC, DST, &u),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, u.sport, 40000);
	KT_EXPECT_EQ(t, u.dport, 7);
	KT_EXPECT(t, u.csum_present);
	KT_EXPECT_EQ(t, u.payload_len, 13);
	KT_EXPECT(t, memcmp(u.payload, "hello modref\n", 13) == 0);
	/* The pseudo-header counts: other addresses break the checksum. */
	KT_EXPECT_DROP(t, udp_parse(slirp_udp_hello + 34, 21, SRC, SRC, &u),
	               NET_DROP_UDP_BAD_CHECKSUM);
}

static void
udp_build_bytes(struct kt *t)
{
	uint8_t b[64];

	KT_EXPECT_EQ(t,
	             udp_build(b, sizeof(b), SRC, DST, 40000, 7,
	                       (const uint8_t *)"hello modref\n", 13),
	             21);
	KT_EXPECT(t, memcmp(b, slirp_udp_hello + 34, 21) == 0);
	KT_EXPECT_EQ(t, udp_build(b, 20, SRC, DST, 1, 7, b, 13), -ENOSPC);
	KT_EXPECT_EQ(t, udp_build(b, sizeof(b), SRC, DST, 1, 0, b, 1), -EINVAL);
	KT_EXPECT_EQ(
	    t, udp_build(b, sizeof(b), SRC, DST, 1, 7, b, UDP_MAX_PAYLOAD + 1),
	    -EINVAL);
}

/* What a device does with udp_build_partial's datagram (the 8254x's
 * checksum insertion, SDM 3.3.6): sum from the UDP header to the end,
 * the field's seed included, and store the inverse; QEMU's e1000 sends
 * a 0 result as 0xffff, as RFC 768 asks. */
static void
device_fills_in(uint8_t *udp, size_t len)
{
	uint16_t c = inet_csum(udp, len);

	put_be16(udp + 6, c == 0 ? 0xffff : c);
}

static void
udp_build_partial_finished_by_device(struct kt *t)
{
	uint8_t soft[64], part[64], pl[40];

	for (unsigned i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 13 + 5);
	/* every length, odd ones too: the seed must not depend on it */
	for (size_t n = 0; n <= sizeof(pl); n++) {
		KT_ASSERT(t, udp_build(soft, sizeof(soft), SRC, DST, 40000, 7,
		                       pl, n) == (int)(UDP_HLEN + n));
		KT_ASSERT(t,
		          udp_build_partial(part, sizeof(part), SRC, DST, 40000,
		                            7, pl, n) == (int)(UDP_HLEN + n));
		KT_EXPECT(t, memcmp(soft, part, 6) == 0);
		KT_EXPECT(t, memcmp(soft + 8, part + 8, n) == 0);
		device_fills_in(part, UDP_HLEN + n);
		KT_EXPECT_EQ(t, get_be16(part + 6), get_be16(soft + 6));
	}
	/* the slirp capture's datagram, finished by the device */
	KT_ASSERT(t, udp_build_partial(part, sizeof(part), SRC, DST, 40000, 7,
	                               (const uint8_t *)"hello modref\n",
	                               13) == 21);
	device_fills_in(part, 21);
	KT_EXPECT(t, memcmp(part, slirp_udp_hello + 34, 21) == 0);
	KT_EXPECT_EQ(t, udp_build_partial(part, 20, SRC, DST, 1, 7, pl, 13),
	             -ENOSPC);
}

/* A reply from a received datagram's payload sum (an echo: the payload
 * in place, udp_parse's payload_sum) is the datagram udp_build makes by
 * summing the payload, at every length, odd ones too. */
static void
udp_reply_presummed_is_udp_build(struct kt *t)
{
	uint8_t rx[64], soft[64], pl[41];
	struct udp_dgram u;

	for (unsigned i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(0xff - i * 29);
	for (size_t n = 0; n <= sizeof(pl); n++) {
		KT_ASSERT(t, udp_build(rx, sizeof(rx), SRC, DST, 40000, 7, pl,
		                       n) == (int)(UDP_HLEN + n));
		KT_ASSERT(t, udp_parse(rx, UDP_HLEN + n, SRC, DST, &u) ==
		                 NET_DROP_NONE);
		KT_EXPECT_EQ(t, inet_csum_fold(u.payload_sum),
		             inet_csum_fold(inet_csum_add(0, pl, n)));
		KT_ASSERT(t, udp_build(soft, sizeof(soft), DST, SRC, 7, 40000,
		                       pl, n) == (int)(UDP_HLEN + n));
		KT_ASSERT(t, udp_build_presummed(rx, sizeof(rx), DST, SRC, 7,
		                                 40000, n, u.payload_sum) ==
		                 (int)(UDP_HLEN + n));
		KT_EXPECT(t, memcmp(rx, soft, UDP_HLEN + n) == 0);
	}
	KT_EXPECT_EQ(t, udp_build_presummed(rx, 20, DST, SRC, 7, 1, 13, 0),
	             -ENOSPC);
	KT_EXPECT_EQ(t,
	             udp_build_presummed(rx, sizeof(rx), DST, SRC, 7, 0, 1, 0),
	             -EINVAL);
}

/* A datagram whose checksum computes to 0 is sent with 0xffff (RFC 768)
 * and still verifies, also when built from the payload's sum. */
static void
udp_zero_checksum_sent_as_ffff(struct kt *t)
{
	uint8_t b[16], pl[2];
	struct udp_dgram u;
	unsigned int v;
	bool found = false;

	for (v = 0; v <= 0xffff && !found; v++) {
		put_be16(pl, (uint16_t)v);
		udp_build(b, sizeof(b), SRC, DST, 1000, 7, pl, 2);
		found = get_be16(b + 6) == 0xffff;
	}
	KT_ASSERT(t, found);
	KT_EXPECT_DROP(t, udp_parse(b, 10, SRC, DST, &u), NET_DROP_NONE);
	KT_EXPECT(t, u.csum_present);
	put_be16(b + 6, 0x1234);
	KT_ASSERT(t, udp_build_presummed(b, sizeof(b), SRC, DST, 1000, 7, 2,
	                                 u.payload_sum) == 10);
	KT_EXPECT_EQ(t, get_be16(b + 6), 0xffff);
}

static void
udp_drops(struct kt *t)
{
	uint8_t b[32];
	struct udp_dgram u;

	memcpy(b, slirp_udp_hello + 34, 21);
	KT_EXPECT_DROP(t, udp_parse(b, 7, SRC, DST, &u),
	               NET_DROP_UDP_TRUNCATED);
	KT_EXPECT_DROP(t, udp_parse(b, 20, SRC, DST, &u), NET_DROP_UDP_BAD_LEN);
	put_be16(b + 4, 7);
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u), NET_DROP_UDP_BAD_LEN);
	put_be16(b + 4, 21);
	b[20] ^= 0x20;
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u),
	               NET_DROP_UDP_BAD_CHECKSUM);
	/* No checksum (0): accepted as sent, even with the changed byte. */
	put_be16(b + 6, 0);
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u), NET_DROP_NONE);
	KT_EXPECT(t, !u.csum_present);
	put_be16(b + 2, 0);
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u),
	               NET_DROP_UDP_BAD_PORT);
	/* Source port 0 is allowed (RFC 768: optional). */
	put_be16(b + 2, 7);
	put_be16(b, 0);
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u), NET_DROP_NONE);
	/* Bytes after the UDP length (IP padding) are not payload. */
	put_be16(b + 4, 10);
	KT_EXPECT_DROP(t, udp_parse(b, 21, SRC, DST, &u), NET_DROP_NONE);
	KT_EXPECT_EQ(t, u.payload_len, 2);
}

static const struct kt_case icmp_cases[] = {
    KT_CASE(icmp_parses_slirp_echo_reply),
    KT_CASE(icmp_echo_round_trip),
    KT_CASE(icmp_drops),
    KT_CASE(icmp_unreachable),
    KT_CASE(icmp_error_drops),
    KT_CASE(icmp_error_rules),
    KT_END,
};
const struct kt_suite icmp_suite = {"icmp", icmp_cases};

static const struct kt_case udp_cases[] = {
    KT_CASE(udp_parses_slirp_hello),
    KT_CASE(udp_build_bytes),
    KT_CASE(udp_build_partial_finished_by_device),
    KT_CASE(udp_reply_presummed_is_udp_build),
    KT_CASE(udp_zero_checksum_sent_as_ffff),
    KT_CASE(udp_drops),
    KT_END,
};
const struct kt_suite udp_suite = {"udp", udp_cases};
