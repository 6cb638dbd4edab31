/*
 * IPv4 header validation: every drop reason from one crafted field, in
 * the documented order, and the builder's exact bytes.
 */
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

/* A valid 28-byte datagram 10.0.2.15 -> 10.0.2.2, 8 payload bytes. */
static size_t
good(uint8_t *b)
{
	struct ipv4_info h = {
	    .ttl = 64,
	    .proto = IP_PROTO_UDP,
	    .id = 7,
	    .frag = IPV4_FLAG_DF,
	    .src = IP4(10, 0, 2, 15),
	    .dst = IP4(10, 0, 2, 2),
	};

	memset(b, 0xab, 64);
	ipv4_build(b, 64, &h, 8);
	return 28;
}

/* Recomputes the header checksum after a mutation. */
static void
fix(uint8_t *b)
{
	size_t hl = (size_t)(b[0] & 0xf) * 4;

	put_be16(b + 10, 0);
	put_be16(b + 10, inet_csum(b, hl));
}

static void
accepts_good_and_slirp(struct kt *t)
{
	uint8_t b[64];
	struct ipv4_info h;

	KT_EXPECT_DROP(t, ipv4_parse(b, good(b), &h), NET_DROP_NONE);
	KT_EXPECT_EQ(t, h.hdr_len, 20);
	KT_EXPECT_EQ(t, h.total_len, 28);
	KT_EXPECT_EQ(t, h.payload_len, 8);
	KT_EXPECT(t, h.payload == b + 20);
	KT_EXPECT_EQ(t, h.src, IP4(10, 0, 2, 15));
	KT_EXPECT_EQ(t, h.frag, IPV4_FLAG_DF);
	KT_EXPECT_DROP(t, ipv4_parse(slirp_dhcp_offer + 14, 576, &h),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, h.dst, IPV4_BROADCAST);
	KT_EXPECT_EQ(t, h.tos, 0x10);
	KT_EXPECT_EQ(t, h.payload_len, 556);
}

/* Ethernet pads short frames to 60 bytes: the padding is not payload. */
static void
link_padding_trimmed(struct kt *t)
{
	uint8_t b[64];
	struct ipv4_info h;

	good(b);
	KT_EXPECT_DROP(t, ipv4_parse(b, 46, &h), NET_DROP_NONE);
	KT_EXPECT_EQ(t, h.payload_len, 8);
}

/* Each row breaks one thing; the checksum is fixed unless the row is
 * about the checksum, so each packet fails for exactly its reason. */
static void
every_drop_reason(struct kt *t)
{
	static const struct {
		const char *what;
		size_t off;
		uint8_t val;
		size_t len; /* 0: the whole 28 bytes */
		bool keep_csum;
		enum net_drop want;
	} rows[] = {
	    {"19 bytes", 0, 0x45, 19, false, NET_DROP_IP_TRUNCATED},
	    {"version 6", 0, 0x65, 0, false, NET_DROP_IP_BAD_VERSION},
	    {"version 0", 0, 0x05, 0, false, NET_DROP_IP_BAD_VERSION},
	    {"IHL 4", 0, 0x44, 0, false, NET_DROP_IP_BAD_IHL},
	    {"IHL 0", 0, 0x40, 0, false, NET_DROP_IP_BAD_IHL},
	    {"IHL 15 > 28 bytes", 0, 0x4f, 0, false, NET_DROP_IP_TRUNCATED},
	    {"total 19", 3, 19, 0, false, NET_DROP_IP_BAD_TOTAL_LEN},
	    {"total 29 > 28", 3, 29, 0, false, NET_DROP_IP_BAD_TOTAL_LEN},
	    {"checksum", 11, 0x00, 0, true, NET_DROP_IP_BAD_CHECKSUM},
	    {"flipped bit", 13, 0x03, 0, true, NET_DROP_IP_BAD_CHECKSUM},
	    {"reserved flag", 6, 0xc0, 0, false, NET_DROP_IP_BAD_FLAGS},
	    {"MF", 6, 0x20, 0, false, NET_DROP_IP_FRAGMENT},
	    {"offset 8", 7, 0x01, 0, false, NET_DROP_IP_FRAGMENT},
	    {"IHL 6 (options)", 0, 0x46, 0, false, NET_DROP_IP_OPTIONS},
	    {"TTL 0", 8, 0, 0, false, NET_DROP_IP_TTL_ZERO},
	    {"src 224.0.2.15", 12, 224, 0, false, NET_DROP_IP_BAD_SRC},
	    {"src 127.0.2.15", 12, 127, 0, false, NET_DROP_IP_BAD_SRC},
	};
	uint8_t b[64];
	struct ipv4_info h;
	size_t i;

	for (i = 0; i < ARRAY_LEN(rows); i++) {
		size_t len = good(b);

		if (rows[i].keep_csum && rows[i].off == 11)
			b[11] ^= 0x5a; /* whatever it was, now wrong */
		else
			b[rows[i].off] = rows[i].val;
		if (!rows[i].keep_csum)
			fix(b);
		if (rows[i].len != 0)
			len = rows[i].len;
		if (ipv4_parse(b, len, &h) != rows[i].want)
			kt_diag("row %zu: %s", i, rows[i].what);
		KT_EXPECT_DROP(t, ipv4_parse(b, len, &h), rows[i].want);
	}
	good(b);
	memset(b + 12, 0xff, 4); /* limited broadcast source */
	fix(b);
	KT_EXPECT_DROP(t, ipv4_parse(b, 28, &h), NET_DROP_IP_BAD_SRC);
	good(b);
	memset(b + 12, 0, 4); /* 0.0.0.0: a DHCP client, accepted */
	fix(b);
	KT_EXPECT_DROP(t, ipv4_parse(b, 28, &h), NET_DROP_NONE);
	KT_EXPECT_DROP(t, ipv4_parse(b, 0, &h), NET_DROP_IP_TRUNCATED);
}

/* A dropped packet still reports what could be read, for logging. */
static void
header_fields_on_drop(struct kt *t)
{
	uint8_t b[64];
	struct ipv4_info h;

	good(b);
	b[8] = 0;
	fix(b);
	KT_EXPECT_DROP(t, ipv4_parse(b, 28, &h), NET_DROP_IP_TTL_ZERO);
	KT_EXPECT_EQ(t, h.src, IP4(10, 0, 2, 15));
	KT_EXPECT_EQ(t, h.proto, IP_PROTO_UDP);
	KT_EXPECT(t, h.payload == NULL);
}

static void
build_bytes(struct kt *t)
{
	/* The slirp ICMP reply's header, rebuilt from its fields. */
	struct ipv4_info h = {.ttl = 255,
	                      .proto = IP_PROTO_ICMP,
	                      .id = 0x5c3a,
	                      .src = IP4(10, 0, 2, 2),
	                      .dst = IP4(10, 0, 2, 15)};
	uint8_t b[IPV4_HLEN];

	KT_EXPECT_EQ(t, ipv4_build(b, 19, &h, 64), -ENOSPC);
	KT_EXPECT_EQ(t, ipv4_build(b, 20, &h, 65516), -EINVAL);
	KT_EXPECT_EQ(t, ipv4_build(b, 20, &h, 64), IPV4_HLEN);
	KT_EXPECT(t, memcmp(b, slirp_icmp_echo_reply + 14, IPV4_HLEN) == 0);
	KT_EXPECT_EQ(t, ipv4_build(b, 20, &h, 65515), IPV4_HLEN);
	KT_EXPECT_EQ(t, get_be16(b + 2), 65535);
}

static void
address_classes(struct kt *t)
{
	KT_EXPECT(t, ipv4_is_multicast(IP4(224, 0, 0, 1)));
	KT_EXPECT(t, ipv4_is_multicast(IP4(239, 255, 255, 255)));
	KT_EXPECT(t, !ipv4_is_multicast(IP4(240, 0, 0, 1)));
	KT_EXPECT(t, ipv4_is_loopback(IP4(127, 1, 2, 3)));
	KT_EXPECT(t, ipv4_is_zeronet(IP4(0, 1, 2, 3)));
	KT_EXPECT_EQ(t, ipv4_netmask(0), 0);
	KT_EXPECT_EQ(t, ipv4_netmask(24), IP4(255, 255, 255, 0));
	KT_EXPECT_EQ(t, ipv4_netmask(32), 0xffffffffu);
	KT_EXPECT_EQ(t, ipv4_netmask(1), 0x80000000u);
	KT_EXPECT_EQ(t, ipv4_mask_len(IP4(255, 255, 255, 0)), 24);
	KT_EXPECT_EQ(t, ipv4_mask_len(0), 0);
	KT_EXPECT_EQ(t, ipv4_mask_len(0xffffffffu), 32);
	KT_EXPECT_EQ(t, ipv4_mask_len(IP4(255, 0, 255, 0)), -1);
	KT_EXPECT_EQ(t, ipv4_mask_len(IP4(0, 0, 0, 255)), -1);
}

static const struct kt_case cases[] = {
    KT_CASE(accepts_good_and_slirp),
    KT_CASE(link_padding_trimmed),
    KT_CASE(every_drop_reason),
    KT_CASE(header_fields_on_drop),
    KT_CASE(build_bytes),
    KT_CASE(address_classes),
    KT_END,
};
const struct kt_suite ipv4_suite = {"ipv4", cases};
