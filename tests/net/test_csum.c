/*
 * inet_csum: RFC 1071 known answers, odd lengths, partial sums, the
 * pseudo-header, and RFC 1624 incremental updates against recomputation.
 */
#include <stdlib.h>
#include <string.h>

#include "net/ipv4/inet_csum.h"
#include "tests/net/nettest.h"

/* RFC 1071 section 3, "Numerical Examples": the bytes 00 01 f2 03 f4 f5
 * f6 f7 sum to ddf2 (with the end-around carries shown there). */
static void
rfc1071_example(struct kt *t)
{
	static const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03,
	                            0xf4, 0xf5, 0xf6, 0xf7};

	KT_EXPECT_EQ(t, inet_csum_add(0, b, sizeof(b)), 0xddf2);
	KT_EXPECT_EQ(t, inet_csum(b, sizeof(b)), 0x220d);
}

/* The byte-pair definition of RFC 1071, for comparison. */
static uint32_t
ref_sum(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = sum;

	for (; len >= 2; p += 2, len -= 2)
		acc += (uint32_t)p[0] << 8 | p[1];
	if (len == 1)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint32_t)acc;
}

/* inet_csum_add adds 32-bit words in CPU order and swaps the result:
 * the same sums as the byte-pair definition for every length, start
 * alignment and incoming partial sum, on random and all-0xff data. */
static void
word_sum_matches_reference(struct kt *t)
{
	static uint8_t buf[1600];
	unsigned bad = 0;

	srand(1071);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	for (int fill = 0; fill < 2; fill++) {
		if (fill == 1)
			memset(buf, 0xff, sizeof(buf));
		for (size_t off = 0; off < 4; off++)
			for (size_t len = 0; len <= 80; len++)
				for (uint32_t in = 0; in <= 0xffff;
				     in += 0x3fff)
					bad +=
					    inet_csum_add(in, buf + off, len) !=
					    ref_sum(in, buf + off, len);
		bad += inet_csum_add(0, buf + 1, 1501) !=
		       ref_sum(0, buf + 1, 1501);
	}
	KT_EXPECT_EQ(t, bad, 0);
}

/* The IPv4 header that every checksum tutorial uses: checksum b861. */
static void
ipv4_header_example(struct kt *t)
{
	uint8_t h[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
	               0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
	               0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};

	KT_EXPECT_EQ(t, inet_csum(h, sizeof(h)), 0); /* verifies */
	h[10] = h[11] = 0;
	KT_EXPECT_EQ(t, inet_csum(h, sizeof(h)), 0xb861);
}

/* An odd last byte is the high half of a word padded with zero. */
static void
odd_lengths(struct kt *t)
{
	static const uint8_t one[] = {0x01};
	static const uint8_t three[] = {0x00, 0x01, 0xf2};
	static const uint8_t five[] = {0xff, 0xff, 0xff, 0xff, 0xff};

	KT_EXPECT_EQ(t, inet_csum(one, 1), 0xfeff);
	KT_EXPECT_EQ(t, inet_csum(three, 3), 0x0dfe); /* ~(0x0001 + 0xf200) */
	/* 0xffff + 0xffff + 0xff00 = 0x2fefe, folded 0xff00. */
	KT_EXPECT_EQ(t, inet_csum_add(0, five, 5), 0xff00);
	KT_EXPECT_EQ(t, inet_csum(five, 5), 0x00ff);
}

static void
empty_and_zero(struct kt *t)
{
	static const uint8_t z[64];

	KT_EXPECT_EQ(t, inet_csum(z, 0), 0xffff);
	KT_EXPECT_EQ(t, inet_csum(z, sizeof(z)), 0xffff);
}

/* 70000 bytes of 0xff: far more words than a 16-bit sum can carry. */
static void
long_buffer_no_overflow(struct kt *t)
{
	size_t n = 70000;
	uint8_t *b = malloc(n);

	KT_ASSERT(t, b != NULL);
	memset(b, 0xff, n);
	KT_EXPECT_EQ(t, inet_csum_add(0, b, n), 0xffff);
	KT_EXPECT_EQ(t, inet_csum(b, n), 0);
	free(b);
}

/* Long buffers, where a 32-bit partial sum would overflow (2^15 words
 * of 16-bit halves, 2^16 of 16-bit words; sum_words keeps 64 bits), on
 * all-0xff and random data, for lengths around those points. */
static void
long_sums_do_not_overflow(struct kt *t)
{
	size_t n = 3 * 131072 + 7;
	uint8_t *b = malloc(n);
	uint32_t x = 12345;

	KT_ASSERT(t, b != NULL);
	memset(b, 0xff, n);
	for (size_t len = 131072 - 8; len <= 131072 + 8; len++)
		KT_EXPECT_EQ(t, inet_csum_add(0, b, len), ref_sum(0, b, len));
	KT_EXPECT_EQ(t, inet_csum_add(0, b, n), ref_sum(0, b, n));
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (uint8_t)(x >> 16);
	}
	for (size_t len = 262144 - 4; len <= 262144 + 4; len++)
		KT_EXPECT_EQ(t, inet_csum_add(0x1234, b, len),
		             ref_sum(0x1234, b, len));
	KT_EXPECT_EQ(t, inet_csum_add(0, b, n), ref_sum(0, b, n));
	free(b);
}

/* inet_csum20, the IPv4 header's inline sum, is the byte-pair
 * definition's complement: on all-0xff, words whose halves carry,
 * all-zero, random headers at every start alignment, and a real
 * header. */
static void
csum20_matches_byte_pairs(struct kt *t)
{
	static const uint8_t real[20] = {
	    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	    0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint8_t b[24];
	uint32_t x = 777;

	memset(b, 0xff, sizeof(b));
	KT_EXPECT_EQ(t, inet_csum20(b), (uint16_t)~ref_sum(0, b, 20));
	/* four 0xffffffff words and a 3: the 64-bit sum is 3 * 2^32 +
	 * 0xffffffff, whose halves carry out when added */
	memset(b, 0, sizeof(b));
	memset(b, 0xff, 16);
	b[16] = 3;
	KT_EXPECT_EQ(t, inet_csum20(b), (uint16_t)~ref_sum(0, b, 20));
	memset(b, 0, sizeof(b));
	KT_EXPECT_EQ(t, inet_csum20(b), 0xffff);
	KT_EXPECT_EQ(t, inet_csum20(real), 0); /* its checksum is right */
	for (int round = 0; round < 1000; round++) {
		for (size_t i = 0; i < sizeof(b); i++) {
			x = x * 1103515245u + 12345u;
			b[i] = (uint8_t)(x >> 16);
		}
		for (size_t off = 0; off < 4; off++)
			KT_EXPECT_EQ(t, inet_csum20(b + off),
			             (uint16_t)~ref_sum(0, b + off, 20));
	}
}

/* Even-length pieces chain to the same sum as the whole. */
static void
partial_sums_chain(struct kt *t)
{
	uint8_t b[101];
	uint32_t sum;
	size_t i, cut;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 37 + 11);
	for (cut = 0; cut <= sizeof(b); cut += 2) {
		sum = inet_csum_add(0, b, cut);
		sum = inet_csum_add(sum, b + cut, sizeof(b) - cut);
		KT_EXPECT_EQ(t, inet_csum_fold(sum), inet_csum(b, sizeof(b)));
	}
}

/* RFC 768 pseudo-header: the same as summing its 12 bytes. */
static void
pseudo_header(struct kt *t)
{
	uint8_t ph[12];

	put_be32(ph, IP4(10, 0, 2, 2));
	put_be32(ph + 4, IP4(10, 0, 2, 15));
	ph[8] = 0;
	ph[9] = 17;
	put_be16(ph + 10, 21);
	KT_EXPECT_EQ(
	    t, inet_csum_pseudo(IP4(10, 0, 2, 2), IP4(10, 0, 2, 15), 17, 21),
	    inet_csum_add(0, ph, sizeof(ph)));
}

/* RFC 1624: changing one field and updating the checksum incrementally
 * gives a checksum that verifies, equal to a full recomputation. */
static void
incremental_update(struct kt *t)
{
	uint8_t h[20];
	unsigned int i, k;
	uint16_t c, old, new_;
	uint32_t old32, new32;

	srand(1624);
	for (k = 0; k < 2000; k++) {
		for (i = 0; i < sizeof(h); i++)
			h[i] = (uint8_t)rand();
		h[0] = 0x45; /* never all zero: see inet_csum.h */
		put_be16(h + 10, 0);
		put_be16(h + 10, inet_csum(h, sizeof(h)));
		/* 16-bit field (TTL/protocol word). */
		old = get_be16(h + 8);
		new_ = (uint16_t)rand();
		put_be16(h + 8, new_);
		c = inet_csum_update16(get_be16(h + 10), old, new_);
		put_be16(h + 10, c);
		KT_EXPECT_EQ(t, inet_csum(h, sizeof(h)), 0);
		put_be16(h + 10, 0);
		KT_EXPECT_EQ(t, c, inet_csum(h, sizeof(h)));
		put_be16(h + 10, c);
		/* 32-bit field (an address rewrite). */
		old32 = get_be32(h + 12);
		new32 = (uint32_t)rand() << 16 ^ (uint32_t)rand();
		put_be32(h + 12, new32);
		c = inet_csum_update32(get_be16(h + 10), old32, new32);
		put_be16(h + 10, c);
		KT_EXPECT_EQ(t, inet_csum(h, sizeof(h)), 0);
	}
}

/* A TTL decrement, the case routers update incrementally (RFC 1141). */
static void
ttl_decrement(struct kt *t)
{
	uint8_t h[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
	               0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
	               0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint16_t old = get_be16(h + 8);

	h[8]--;
	put_be16(h + 10,
	         inet_csum_update16(get_be16(h + 10), old, get_be16(h + 8)));
	KT_EXPECT_EQ(t, get_be16(h + 10), 0xb961);
	KT_EXPECT_EQ(t, inet_csum(h, sizeof(h)), 0);
}

static const struct kt_case cases[] = {
    KT_CASE(rfc1071_example),
    KT_CASE(word_sum_matches_reference),
    KT_CASE(ipv4_header_example),
    KT_CASE(odd_lengths),
    KT_CASE(empty_and_zero),
    KT_CASE(long_buffer_no_overflow),
    KT_CASE(long_sums_do_not_overflow),
    KT_CASE(csum20_matches_byte_pairs),
    KT_CASE(partial_sums_chain),
    KT_CASE(pseudo_header),
    KT_CASE(incremental_update),
    KT_CASE(ttl_decrement),
    KT_END,
};
const struct kt_suite csum_suite = {"inet_csum", cases};
