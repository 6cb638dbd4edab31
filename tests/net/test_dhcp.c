/*
 * DHCP: the slirp OFFER/ACK, hostile options (one crafted message per
 * drop reason), DISCOVER/REQUEST bytes, and the client state machine
 * through a whole lease with retransmission, NAK, renewal and expiry.
 */
#include "net/apps/dhcp_fsm.h"
#include "net/apps/dhcp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

#define BOOTP_OF(frame) ((frame) + 42)
#define BOOTP_LEN       548
#define SERVER          IP4(10, 0, 2, 2)
#define GUEST           IP4(10, 0, 2, 15)

/* A reply: the slirp ACK's fixed part (xid SLIRP_XID), these options. */
static uint8_t msg[1024];

static size_t
with_opts(const uint8_t *opts, size_t n)
{
	memcpy(msg, BOOTP_OF(slirp_dhcp_ack), DHCP_MIN_LEN);
	memcpy(msg + DHCP_MIN_LEN, opts, n);
	return DHCP_MIN_LEN + n;
}

#define OPTS(...)                                                              \
	with_opts((const uint8_t[]){__VA_ARGS__},                              \
	          sizeof((const uint8_t[]){__VA_ARGS__}))
#define PARSE_OPTS(m, ...) dhcp_parse_reply(msg, OPTS(__VA_ARGS__), m)

/* Message type 5, server 10.0.2.2, lease 86400: a minimal valid ACK. */
#define MT_ACK 53, 1, 5
#define SID    54, 4, 10, 0, 2, 2
#define LEASE  51, 4, 0, 1, 0x51, 0x80

static void
parses_slirp_offer_and_ack(struct kt *t)
{
	struct dhcp_msg m;

	KT_EXPECT_DROP(
	    t, dhcp_parse_reply(BOOTP_OF(slirp_dhcp_offer), BOOTP_LEN, &m),
	    NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, DHCPOFFER);
	KT_EXPECT_EQ(t, m.xid, SLIRP_XID);
	KT_EXPECT_EQ(t, m.yiaddr, GUEST);
	KT_EXPECT_EQ(t, m.siaddr, SERVER);
	KT_EXPECT(t, memcmp(m.chaddr, guest_mac, 6) == 0);
	KT_EXPECT_EQ(t, m.server_id, SERVER);
	KT_EXPECT_EQ(t, m.mask, IP4(255, 255, 255, 0));
	KT_EXPECT_EQ(t, m.router, SERVER);
	KT_EXPECT_EQ(t, m.ndns, 1);
	KT_EXPECT_EQ(t, m.dns[0], IP4(10, 0, 2, 3));
	KT_EXPECT_EQ(t, m.lease_s, 86400);
	KT_EXPECT(t, !(m.have & (DHCP_HAVE_T1 | DHCP_HAVE_T2)));
	KT_EXPECT_DROP(
	    t, dhcp_parse_reply(BOOTP_OF(slirp_dhcp_ack), BOOTP_LEN, &m),
	    NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, DHCPACK);
}

static void
fixed_part_drops(struct kt *t)
{
	struct dhcp_msg m;

	OPTS(MT_ACK, SID, LEASE, 255);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 239, &m),
	               NET_DROP_DHCP_TRUNCATED);
	/* 240 bytes: the cookie and nothing else, so no end option. */
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 240, &m),
	               NET_DROP_DHCP_OPT_NO_END);
	msg[0] = BOOTP_REQUEST;
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 250, &m), NET_DROP_DHCP_BAD_OP);
	msg[0] = BOOTP_REPLY;
	msg[1] = 6; /* IEEE 802 */
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 250, &m),
	               NET_DROP_DHCP_BAD_HTYPE);
	msg[1] = 1;
	msg[2] = 16;
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 250, &m),
	               NET_DROP_DHCP_BAD_HTYPE);
	msg[2] = 6;
	msg[239] = 0x62; /* 99.130.83.98: plain BOOTP or garbage */
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, 250, &m),
	               NET_DROP_DHCP_BAD_MAGIC);
}

/* Lengths that run past the field, and fields that never end. */
static void
option_overruns(struct kt *t)
{
	struct dhcp_msg m;

	/* A code as the last byte: no room for its length byte. */
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 12),
	               NET_DROP_DHCP_OPT_OVERRUN);
	/* A length that claims more than is left. */
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, 12, 200, 'a', 'b', 255),
	               NET_DROP_DHCP_OPT_OVERRUN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, 51, 4, 0, 1),
	               NET_DROP_DHCP_OPT_OVERRUN);
	/* Exactly filling the field, then nothing: no end. */
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE),
	               NET_DROP_DHCP_OPT_NO_END);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 0, 0, 0),
	               NET_DROP_DHCP_OPT_NO_END);
}

static void
option_bad_lengths(struct kt *t)
{
	struct dhcp_msg m;

	KT_EXPECT_DROP(t, PARSE_OPTS(&m, 53, 2, 5, 5, SID, LEASE, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, 54, 3, 10, 0, 2, LEASE, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, 51, 0, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(
	    t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 1, 3, 255, 255, 255, 255),
	    NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(
	    t,
	    PARSE_OPTS(&m, MT_ACK, SID, LEASE, 3, 6, 10, 0, 2, 2, 10, 0, 255),
	    NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 6, 0, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 58, 2, 0, 1, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 52, 2, 1, 1, 255),
	               NET_DROP_DHCP_OPT_BAD_LEN);
	/* Options we do not interpret may have any length. */
	KT_EXPECT_DROP(t,
	               PARSE_OPTS(&m, MT_ACK, SID, LEASE, 12, 0, 43, 1, 9, 255),
	               NET_DROP_NONE);
}

static void
option_duplicates_and_values(struct kt *t)
{
	struct dhcp_msg m;

	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 53, 1, 6, 255),
	               NET_DROP_DHCP_OPT_DUPLICATE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, SID, 255),
	               NET_DROP_DHCP_OPT_DUPLICATE);
	KT_EXPECT_DROP(
	    t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 1, 4, 255, 0, 255, 0, 255),
	    NET_DROP_DHCP_OPT_BAD_VALUE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, 51, 4, 0, 0, 0, 0, 255),
	               NET_DROP_DHCP_OPT_BAD_VALUE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 52, 1, 4, 255),
	               NET_DROP_DHCP_OPT_BAD_VALUE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 52, 1, 0, 255),
	               NET_DROP_DHCP_OPT_BAD_VALUE);
	/* A /0 and a /32 mask are contiguous. */
	KT_EXPECT_DROP(
	    t, PARSE_OPTS(&m, MT_ACK, SID, LEASE, 1, 4, 0, 0, 0, 0, 255),
	    NET_DROP_NONE);
}

/* What RFC 2131 table 3 requires of OFFER, ACK and NAK. */
static void
reply_requirements(struct kt *t)
{
	struct dhcp_msg m;

	KT_EXPECT_DROP(t, PARSE_OPTS(&m, SID, LEASE, 255),
	               NET_DROP_DHCP_NO_MSG_TYPE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, 53, 1, DHCPDISCOVER, SID, LEASE, 255),
	               NET_DROP_DHCP_BAD_MSG_TYPE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, 53, 1, 9, SID, LEASE, 255),
	               NET_DROP_DHCP_BAD_MSG_TYPE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, LEASE, 255),
	               NET_DROP_DHCP_NO_SERVER_ID);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, 53, 1, DHCPNAK, 255),
	               NET_DROP_DHCP_NO_SERVER_ID);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, MT_ACK, SID, 255),
	               NET_DROP_DHCP_NO_LEASE);
	KT_EXPECT_DROP(t, PARSE_OPTS(&m, 53, 1, DHCPOFFER, SID, 255),
	               NET_DROP_DHCP_NO_LEASE);
	/* A NAK needs no lease and no address. */
	size_t nak = OPTS(53, 1, DHCPNAK, SID, 255);
	memset(msg + 16, 0, 4);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, nak, &m), NET_DROP_NONE);
	/* Offered addresses nobody can use. */
	static const uint32_t bad[] = {0, IP4(0, 1, 2, 3), IP4(127, 0, 0, 1),
	                               IP4(224, 0, 0, 1), IPV4_BROADCAST};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		size_t n = OPTS(MT_ACK, SID, LEASE, 255);

		put_be32(msg + 16, bad[i]);
		KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m),
		               NET_DROP_DHCP_BAD_ADDR);
	}
}

/* Pad anywhere, unknown options, bytes after end, extra DNS servers. */
static void
tolerated_input(struct kt *t)
{
	struct dhcp_msg m;

	KT_EXPECT_DROP(t,
	               PARSE_OPTS(&m, 0, 0, MT_ACK, 0, SID, 0, 0, 0, LEASE, 0,
	                          250, 3, 1, 2, 3, 255, 53, 9, 99),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, DHCPACK);
	KT_EXPECT_DROP(t,
	               PARSE_OPTS(&m, MT_ACK, SID, LEASE, 6, 16, 1, 1, 1, 1, 2,
	                          2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 255),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.ndns, 3);
	KT_EXPECT_EQ(t, m.dns[2], IP4(3, 3, 3, 3));
	KT_EXPECT_DROP(t,
	               PARSE_OPTS(&m, MT_ACK, SID, LEASE, 3, 8, 10, 0, 2, 2, 10,
	                          0, 2, 9, 58, 4, 0, 0, 0, 100, 59, 4, 0, 0, 0,
	                          200, 255),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.router, SERVER);
	KT_EXPECT_EQ(t, m.t1_s, 100);
	KT_EXPECT_EQ(t, m.t2_s, 200);
}

/* Option overload (RFC 2132 9.3): file, then sname, carry options. */
static void
option_overload(struct kt *t)
{
	struct dhcp_msg m;
	size_t n;

	n = OPTS(52, 1, 3, SID, 255);
	memset(msg + DHCP_OFF_FILE, 0, DHCP_FILE_LEN);
	memset(msg + DHCP_OFF_SNAME, 0, DHCP_SNAME_LEN);
	memcpy(msg + DHCP_OFF_FILE, (const uint8_t[]){LEASE, 255}, 7);
	memcpy(msg + DHCP_OFF_SNAME, (const uint8_t[]){MT_ACK, 255}, 4);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m), NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.type, DHCPACK);
	KT_EXPECT_EQ(t, m.lease_s, 86400);
	KT_EXPECT_EQ(t, m.overload, 3);
	/* sname without its end option. */
	memset(msg + DHCP_OFF_SNAME, 0, DHCP_SNAME_LEN);
	memcpy(msg + DHCP_OFF_SNAME, (const uint8_t[]){MT_ACK}, 3);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m),
	               NET_DROP_DHCP_OPT_NO_END);
	/* An option running off the end of file (into sname). */
	memset(msg + DHCP_OFF_FILE, 0, DHCP_FILE_LEN);
	msg[DHCP_OFF_FILE + DHCP_FILE_LEN - 2] = 12;
	msg[DHCP_OFF_FILE + DHCP_FILE_LEN - 1] = 4;
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m),
	               NET_DROP_DHCP_OPT_OVERRUN);
	/* Overload inside an overloaded field is refused. */
	memset(msg + DHCP_OFF_FILE, 0, DHCP_FILE_LEN);
	memcpy(msg + DHCP_OFF_FILE, (const uint8_t[]){52, 1, 1, 255}, 4);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m),
	               NET_DROP_DHCP_OPT_BAD_VALUE);
	/* Without overload, file is a file name and is not parsed. */
	n = OPTS(MT_ACK, SID, LEASE, 255);
	memset(msg + DHCP_OFF_FILE, 0xee, DHCP_FILE_LEN);
	KT_EXPECT_DROP(t, dhcp_parse_reply(msg, n, &m), NET_DROP_NONE);
}

/* Finds option code in a built message; NULL if absent. */
static const uint8_t *
find_opt(const uint8_t *b, size_t len, uint8_t code)
{
	size_t pos = DHCP_MIN_LEN;

	while (pos + 1 < len && b[pos] != DHCP_OPT_END) {
		if (b[pos] == DHCP_OPT_PAD) {
			pos++;
			continue;
		}
		if (b[pos] == code)
			return b + pos;
		pos += 2 + b[pos + 1];
	}
	return NULL;
}

static void
build_discover_and_request(struct kt *t)
{
	struct dhcp_request r = {.type = DHCPDISCOVER,
	                         .xid = 0x01020304,
	                         .secs = 3,
	                         .broadcast = true};
	uint8_t b[DHCP_BUILD_LEN];
	const uint8_t *o;

	memcpy(r.mac, guest_mac, 6);
	KT_EXPECT_EQ(t, dhcp_build_request(b, 299, &r), -ENOSPC);
	KT_EXPECT_EQ(t, dhcp_build_request(b, sizeof(b), &r), 300);
	KT_EXPECT_EQ(t, b[0], BOOTP_REQUEST);
	KT_EXPECT_EQ(t, b[1], 1);
	KT_EXPECT_EQ(t, b[2], 6);
	KT_EXPECT_EQ(t, get_be32(b + 4), 0x01020304);
	KT_EXPECT_EQ(t, get_be16(b + 8), 3);
	KT_EXPECT_EQ(t, get_be16(b + 10), BOOTP_FLAG_BROADCAST);
	KT_EXPECT_EQ(t, get_be32(b + 12), 0);
	KT_EXPECT(t, memcmp(b + 28, guest_mac, 6) == 0);
	KT_EXPECT_EQ(t, get_be32(b + 236), DHCP_MAGIC);
	o = find_opt(b, sizeof(b), DHCP_OPT_MSG_TYPE);
	KT_ASSERT(t, o != NULL);
	KT_EXPECT_EQ(t, o[2], DHCPDISCOVER);
	o = find_opt(b, sizeof(b), DHCP_OPT_CLIENT_ID);
	KT_ASSERT(t, o != NULL);
	KT_EXPECT_EQ(t, o[1], 7);
	KT_EXPECT(t, o[2] == 1 && memcmp(o + 3, guest_mac, 6) == 0);
	KT_EXPECT(t, find_opt(b, sizeof(b), DHCP_OPT_REQ_IP) == NULL);
	KT_EXPECT(t, find_opt(b, sizeof(b), DHCP_OPT_SERVER_ID) == NULL);
	KT_EXPECT(t, find_opt(b, sizeof(b), DHCP_OPT_PARAM_REQ) != NULL);
	/* REQUEST in SELECTING names the offer and the server. */
	r.type = DHCPREQUEST;
	r.requested_ip = GUEST;
	r.server_id = SERVER;
	KT_EXPECT_EQ(t, dhcp_build_request(b, sizeof(b), &r), 300);
	o = find_opt(b, sizeof(b), DHCP_OPT_REQ_IP);
	KT_ASSERT(t, o != NULL);
	KT_EXPECT_EQ(t, get_be32(o + 2), GUEST);
	o = find_opt(b, sizeof(b), DHCP_OPT_SERVER_ID);
	KT_ASSERT(t, o != NULL);
	KT_EXPECT_EQ(t, get_be32(o + 2), SERVER);
	r.type = DHCPOFFER;
	KT_EXPECT_EQ(t, dhcp_build_request(b, sizeof(b), &r), -EINVAL);
}

static const struct kt_case proto_cases[] = {
    KT_CASE(parses_slirp_offer_and_ack),
    KT_CASE(fixed_part_drops),
    KT_CASE(option_overruns),
    KT_CASE(option_bad_lengths),
    KT_CASE(option_duplicates_and_values),
    KT_CASE(reply_requirements),
    KT_CASE(tolerated_input),
    KT_CASE(option_overload),
    KT_CASE(build_discover_and_request),
    KT_END,
};
const struct kt_suite dhcp_proto_suite = {"dhcp_proto", proto_cases};
