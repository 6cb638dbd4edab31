/*
 * Ethernet II and ARP: the slirp ARP reply, every drop reason from one
 * crafted bad field, and the builders' exact bytes.
 */
#include "net/ipv4/arp_proto.h"
#include "net/ipv4/ether_hdr.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

static void
ether_parses_slirp_frame(struct kt *t)
{
	struct ether_frame f;

	KT_EXPECT_DROP(t, ether_parse(slirp_arp_reply, 60, &f), NET_DROP_NONE);
	KT_EXPECT(t, memcmp(f.dst, guest_mac, 6) == 0);
	KT_EXPECT(t, memcmp(f.src, slirp_mac, 6) == 0);
	KT_EXPECT_EQ(t, f.type, ETH_P_ARP);
	KT_EXPECT(t, f.payload == slirp_arp_reply + 14);
	KT_EXPECT_EQ(t, f.payload_len, 46);
	KT_EXPECT(t, ether_is_for(f.dst, guest_mac));
	KT_EXPECT(t, !ether_is_for(f.dst, slirp_mac));
	KT_EXPECT(t, ether_is_for(ether_broadcast, slirp_mac));
}

/* Addresses that differ in one byte only, each byte in turn, are not
 * the same (nor the broadcast, nor zero). */
static void
ether_compares_every_byte(struct kt *t)
{
	static const uint8_t zero[6];

	for (int i = 0; i < 6; i++) {
		uint8_t a[6], b[6];

		memcpy(a, guest_mac, 6);
		a[i] ^= 0x80;
		KT_EXPECT(t, !ether_is_for(a, guest_mac));
		memcpy(b, ether_broadcast, 6);
		b[i] = 0xfe;
		KT_EXPECT(t, !ether_is_broadcast(b));
		KT_EXPECT(t, !ether_is_for(b, guest_mac));
		memcpy(b, zero, 6);
		b[i] = 1;
		KT_EXPECT(t, !ether_is_zero(b));
	}
	KT_EXPECT(t, ether_is_zero(zero));
	KT_EXPECT(t, ether_is_broadcast(ether_broadcast));
}

static void
ether_drops(struct kt *t)
{
	uint8_t f[60];
	struct ether_frame e;

	memcpy(f, slirp_arp_reply, sizeof(f));
	KT_EXPECT_DROP(t, ether_parse(f, 13, &e), NET_DROP_ETH_TRUNCATED);
	KT_EXPECT_DROP(t, ether_parse(f, 0, &e), NET_DROP_ETH_TRUNCATED);
	KT_EXPECT_DROP(t, ether_parse(f, 14, &e), NET_DROP_NONE);
	put_be16(f + 12, 0x05dc); /* 1500: an 802.3 length */
	KT_EXPECT_DROP(t, ether_parse(f, sizeof(f), &e), NET_DROP_ETH_8023);
	put_be16(f + 12, ETH_TYPE_MIN);
	KT_EXPECT_DROP(t, ether_parse(f, sizeof(f), &e), NET_DROP_NONE);
	f[6] |= 0x01; /* source with the group bit */
	KT_EXPECT_DROP(t, ether_parse(f, sizeof(f), &e), NET_DROP_ETH_BAD_SRC);
	memset(f + 6, 0xff, 6);
	KT_EXPECT_DROP(t, ether_parse(f, sizeof(f), &e), NET_DROP_ETH_BAD_SRC);
}

static void
ether_build_bytes(struct kt *t)
{
	uint8_t b[ETH_HLEN];

	KT_EXPECT_EQ(t, ether_build(b, 13, guest_mac, slirp_mac, ETH_P_IP),
	             -ENOSPC);
	KT_EXPECT_EQ(t,
	             ether_build(b, sizeof(b), guest_mac, slirp_mac, ETH_P_ARP),
	             ETH_HLEN);
	KT_EXPECT(t, memcmp(b, slirp_arp_reply, ETH_HLEN) == 0);
}

static void
arp_parses_slirp_reply(struct kt *t)
{
	struct arp_pkt a;

	KT_EXPECT_DROP(t, arp_parse(slirp_arp_reply + 14, 46, &a),
	               NET_DROP_NONE);
	KT_EXPECT_EQ(t, a.op, ARP_OP_REPLY);
	KT_EXPECT(t, memcmp(a.sha, slirp_mac, 6) == 0);
	KT_EXPECT_EQ(t, a.spa, IP4(10, 0, 2, 2));
	KT_EXPECT(t, memcmp(a.tha, guest_mac, 6) == 0);
	KT_EXPECT_EQ(t, a.tpa, IP4(10, 0, 2, 15));
}

/* One bad field at a time, on a copy of the slirp reply. */
static void
arp_drops(struct kt *t)
{
	static const struct {
		size_t off;
		uint8_t val;
		enum net_drop want;
	} bad[] = {
	    {1, 6, NET_DROP_ARP_BAD_HTYPE},    /* IEEE 802 */
	    {2, 0x86, NET_DROP_ARP_BAD_PTYPE}, /* 0x8600 */
	    {4, 8, NET_DROP_ARP_BAD_HLEN},
	    {5, 16, NET_DROP_ARP_BAD_PLEN},
	    {7, 3, NET_DROP_ARP_BAD_OP}, /* RARP request */
	    {7, 0, NET_DROP_ARP_BAD_OP},
	    {8, 0x01, NET_DROP_ARP_BAD_SENDER}, /* multicast sha */
	    {14, 224, NET_DROP_ARP_BAD_SENDER}, /* spa 224.0.2.2 */
	    {14, 239, NET_DROP_ARP_BAD_SENDER}, /* spa 239.0.2.2 */
	};
	uint8_t p[ARP_LEN];
	struct arp_pkt a;
	size_t i;

	KT_EXPECT_DROP(t, arp_parse(slirp_arp_reply + 14, 27, &a),
	               NET_DROP_ARP_TRUNCATED);
	for (i = 0; i < ARRAY_LEN(bad); i++) {
		memcpy(p, slirp_arp_reply + 14, ARP_LEN);
		p[bad[i].off] = bad[i].val;
		KT_EXPECT_DROP(t, arp_parse(p, ARP_LEN, &a), bad[i].want);
	}
	memcpy(p, slirp_arp_reply + 14, ARP_LEN);
	memset(p + 8, 0, 6); /* zero sha */
	KT_EXPECT_DROP(t, arp_parse(p, ARP_LEN, &a), NET_DROP_ARP_BAD_SENDER);
	memcpy(p, slirp_arp_reply + 14, ARP_LEN);
	memset(p + 14, 0xff, 4); /* spa 255.255.255.255 */
	KT_EXPECT_DROP(t, arp_parse(p, ARP_LEN, &a), NET_DROP_ARP_BAD_SENDER);
}

/* RFC 5227 probe (sender IP 0.0.0.0) and gratuitous ARP are valid. */
static void
arp_probe_and_gratuitous(struct kt *t)
{
	uint8_t p[ARP_LEN];
	struct arp_pkt a;

	arp_make_request(&a, guest_mac, 0, IP4(10, 0, 2, 15));
	KT_EXPECT_EQ(t, arp_build(p, sizeof(p), &a), ARP_LEN);
	KT_EXPECT_DROP(t, arp_parse(p, sizeof(p), &a), NET_DROP_NONE);
	KT_EXPECT_EQ(t, a.spa, 0);
	arp_make_request(&a, guest_mac, IP4(10, 0, 2, 15), IP4(10, 0, 2, 15));
	KT_EXPECT_EQ(t, arp_build(p, sizeof(p), &a), ARP_LEN);
	KT_EXPECT_DROP(t, arp_parse(p, sizeof(p), &a), NET_DROP_NONE);
}

/* The guest's request for 10.0.2.2, byte for byte (RFC 826 layout). */
static void
arp_build_request_bytes(struct kt *t)
{
	static const uint8_t want[ARP_LEN] = {
	    0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x52, 0x54,
	    0x00, 0x12, 0x34, 0x56, 0x0a, 0x00, 0x02, 0x0f, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x02, 0x02};
	uint8_t p[ARP_LEN];
	struct arp_pkt a;

	arp_make_request(&a, guest_mac, IP4(10, 0, 2, 15), IP4(10, 0, 2, 2));
	KT_EXPECT_EQ(t, arp_build(p, ARP_LEN - 1, &a), -ENOSPC);
	KT_EXPECT_EQ(t, arp_build(p, sizeof(p), &a), ARP_LEN);
	KT_EXPECT(t, memcmp(p, want, ARP_LEN) == 0);
	a.op = 3;
	KT_EXPECT_EQ(t, arp_build(p, sizeof(p), &a), -EINVAL);
}

/* Answering slirp's request for 10.0.2.15 yields the mirror image. */
static void
arp_reply_to_request(struct kt *t)
{
	struct arp_pkt req, rep;
	uint8_t p[ARP_LEN];

	memset(&req, 0, sizeof(req)); /* padding, for the memcmp below */
	memset(&rep, 0, sizeof(rep));
	arp_make_request(&req, slirp_mac, IP4(10, 0, 2, 2), IP4(10, 0, 2, 15));
	arp_make_reply(&rep, &req, guest_mac);
	KT_EXPECT_EQ(t, rep.op, ARP_OP_REPLY);
	KT_EXPECT(t, memcmp(rep.sha, guest_mac, 6) == 0);
	KT_EXPECT_EQ(t, rep.spa, IP4(10, 0, 2, 15));
	KT_EXPECT(t, memcmp(rep.tha, slirp_mac, 6) == 0);
	KT_EXPECT_EQ(t, rep.tpa, IP4(10, 0, 2, 2));
	/* In place, as a receive path that reuses the buffer would. */
	arp_make_reply(&req, &req, guest_mac);
	KT_EXPECT(t, memcmp(&req, &rep, sizeof(req)) == 0);
	KT_EXPECT_EQ(t, arp_build(p, sizeof(p), &rep), ARP_LEN);
}

static const struct kt_case ether_cases[] = {
    KT_CASE(ether_parses_slirp_frame),
    KT_CASE(ether_compares_every_byte),
    KT_CASE(ether_drops),
    KT_CASE(ether_build_bytes),
    KT_END,
};
const struct kt_suite ether_suite = {"ether", ether_cases};

static const struct kt_case arp_cases[] = {
    KT_CASE(arp_parses_slirp_reply),   KT_CASE(arp_drops),
    KT_CASE(arp_probe_and_gratuitous), KT_CASE(arp_build_request_bytes),
    KT_CASE(arp_reply_to_request),     KT_END,
};
const struct kt_suite arp_suite = {"arp", arp_cases};
