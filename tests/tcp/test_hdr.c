/* Wire format: tcp_build() and tcp_parse() agree, hostile headers are
 * refused for the right reason. */
#include <string.h>

#include "tests/tcp/tests.h"

#define SRC IP4(10, 0, 0, 1)
#define DST IP4(10, 0, 0, 2)

static long
build(uint8_t *buf, size_t cap, uint8_t flags, uint16_t mss, const char *data)
{
	struct tcp_seg s = {
	    .src = SRC,
	    .dst = DST,
	    .sport = 1234,
	    .dport = 80,
	    .seq = 0x01020304,
	    .ack = 0xa0b0c0d0,
	    .flags = flags,
	    .wnd = 4321,
	    .mss = mss,
	    .data = (const uint8_t *)data,
	    .len = data ? strlen(data) : 0,
	};
	return tcp_build(&s, buf, cap);
}

/* Recomputes the checksum after a test edits the header. */
static void
refix(uint8_t *b, size_t len)
{
	uint32_t sum;

	put_be16(b + 16, 0);
	sum = inet_csum_pseudo(SRC, DST, 6, (uint16_t)len);
	put_be16(b + 16, inet_csum_fold(inet_csum_add(sum, b, len)));
}

static void
roundtrip(struct kt *t)
{
	uint8_t b[128];
	struct tcp_seg s;
	long n = build(b, sizeof(b), TCP_SYN | TCP_ACK, 1460, "hi!");

	KT_ASSERT(t, n == 20 + 4 + 3);
	KT_EXPECT_EQ(t, b[12] >> 4, 6);
	KT_ASSERT(t, tcp_parse(SRC, DST, b, (size_t)n, &s) == TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s.sport, 1234);
	KT_EXPECT_EQ(t, s.dport, 80);
	KT_EXPECT_EQ(t, s.seq, 0x01020304);
	KT_EXPECT_EQ(t, s.ack, 0xa0b0c0d0);
	KT_EXPECT_EQ(t, s.flags, TCP_SYN | TCP_ACK);
	KT_EXPECT_EQ(t, s.wnd, 4321);
	KT_EXPECT_EQ(t, s.mss, 1460);
	KT_EXPECT_EQ(t, s.len, 3);
	KT_EXPECT(t, memcmp(s.data, "hi!", 3) == 0);
	/* The pseudo-header is covered: another destination fails. */
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST + 1, b, (size_t)n, &s),
	             TCP_DROP_BAD_CHECKSUM);
	KT_EXPECT_EQ(t, build(b, 26, 0, 1460, "hi!"), -ENOSPC);
}

static void
checksum_and_truncation(struct kt *t)
{
	uint8_t b[64];
	struct tcp_seg s;
	long n = build(b, sizeof(b), TCP_ACK, 0, "data");

	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, 19, &s), TCP_DROP_TRUNCATED);
	b[22] ^= 1;
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_CHECKSUM);
	b[22] ^= 1;
	/* A payload cut short changes the length in the pseudo-header. */
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n - 1, &s),
	             TCP_DROP_BAD_CHECKSUM);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s), TCP_DROP_NONE);
}

static void
data_offset(struct kt *t)
{
	uint8_t b[64];
	struct tcp_seg s;
	long n = build(b, sizeof(b), TCP_ACK, 0, NULL);

	b[12] = 4 << 4; /* below the fixed header */
	refix(b, (size_t)n);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_OFFSET);
	b[12] = 6 << 4; /* past the end of a 20-byte segment */
	refix(b, (size_t)n);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_OFFSET);
	b[12] = 15 << 4;
	refix(b, (size_t)n);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_OFFSET);
}

/* A 20-byte header followed by `opt` (padded to 4) as options. */
static enum tcp_drop
parse_opts(const uint8_t *opt, size_t olen, uint8_t flags, struct tcp_seg *s)
{
	uint8_t b[80];
	size_t pad = (olen + 3) & ~(size_t)3;
	long n = build(b, sizeof(b), flags, 0, NULL);

	memset(b + n, 0, pad);
	memcpy(b + n, opt, olen);
	b[12] = (uint8_t)(((20 + pad) / 4) << 4);
	refix(b, 20 + pad);
	return tcp_parse(SRC, DST, b, 20 + pad, s);
}

static void
options(struct kt *t)
{
	struct tcp_seg s;
	static const uint8_t nop_mss[] = {1, 1, 2, 4, 0x05, 0xb4};
	static const uint8_t zero_len[] = {5, 0};
	static const uint8_t one_len[] = {5, 1, 0, 0};
	static const uint8_t past_end[] = {1, 1, 5, 9};
	static const uint8_t trunc_kind[] = {1, 1, 1, 30};
	static const uint8_t mss_bad[] = {2, 6, 0, 1, 0, 0};
	static const uint8_t ws_bad[] = {3, 4, 1, 0};
	static const uint8_t known[] = {2, 4,  2, 0, 1, 3, 3, 7, 4, 2,
	                                8, 10, 0, 0, 0, 1, 0, 0, 0, 0};
	static const uint8_t eol_then_junk[] = {0, 0xff, 0xff, 0xff};
	static const uint8_t unknown[] = {0x42, 3, 9, 1};

	KT_EXPECT_EQ(t, parse_opts(nop_mss, sizeof(nop_mss), TCP_SYN, &s),
	             TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s.mss, 1460);
	/* MSS is only meaningful in a SYN. */
	KT_EXPECT_EQ(t, parse_opts(nop_mss, sizeof(nop_mss), TCP_ACK, &s),
	             TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s.mss, 0);
	KT_EXPECT_EQ(t, parse_opts(zero_len, sizeof(zero_len), TCP_ACK, &s),
	             TCP_DROP_BAD_OPTION);
	KT_EXPECT_EQ(t, parse_opts(one_len, sizeof(one_len), TCP_ACK, &s),
	             TCP_DROP_BAD_OPTION);
	KT_EXPECT_EQ(t, parse_opts(past_end, sizeof(past_end), TCP_ACK, &s),
	             TCP_DROP_BAD_OPTION);
	KT_EXPECT_EQ(t, parse_opts(trunc_kind, 3, TCP_ACK, &s), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, parse_opts(trunc_kind, sizeof(trunc_kind), TCP_ACK, &s),
	             TCP_DROP_BAD_OPTION);
	KT_EXPECT_EQ(t, parse_opts(mss_bad, sizeof(mss_bad), TCP_SYN, &s),
	             TCP_DROP_BAD_MSS_OPTION);
	KT_EXPECT_EQ(t, parse_opts(ws_bad, sizeof(ws_bad), TCP_SYN, &s),
	             TCP_DROP_BAD_OPTION);
	KT_EXPECT_EQ(t, parse_opts(known, sizeof(known), TCP_SYN, &s),
	             TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s.mss, 512);
	KT_EXPECT_EQ(
	    t, parse_opts(eol_then_junk, sizeof(eol_then_junk), TCP_ACK, &s),
	    TCP_DROP_NONE);
	KT_EXPECT_EQ(t, parse_opts(unknown, sizeof(unknown), TCP_ACK, &s),
	             TCP_DROP_NONE);
}

static void
bad_fields(struct kt *t)
{
	uint8_t b[64];
	struct tcp_seg s;
	long n = build(b, sizeof(b), TCP_SYN | TCP_FIN, 0, NULL);

	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_FLAGS);
	n = build(b, sizeof(b), TCP_SYN | TCP_RST, 0, NULL);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_FLAGS);
	n = build(b, sizeof(b), TCP_SYN, 0, NULL);
	put_be16(b + 2, 0);
	refix(b, (size_t)n);
	KT_EXPECT_EQ(t, tcp_parse(SRC, DST, b, (size_t)n, &s),
	             TCP_DROP_BAD_PORT);
	KT_EXPECT_STREQ(t, tcp_drop_name(TCP_DROP_BAD_PORT), "BAD_PORT");
	KT_EXPECT_STREQ(t, tcp_state_name(TCP_TIME_WAIT), "TIME_WAIT");
}

static const struct kt_case cases[] = {
    KT_CASE(roundtrip),   KT_CASE(checksum_and_truncation),
    KT_CASE(data_offset), KT_CASE(options),
    KT_CASE(bad_fields),  KT_END,
};

const struct kt_suite tcp_suite_hdr = {"tcp_hdr", cases};
