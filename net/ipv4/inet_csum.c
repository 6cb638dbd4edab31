/*
 * The Internet checksum (RFC 1071) and its incremental update (RFC 1624).
 * See inet_csum.h for how to combine partial sums.
 */
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/proto_lib.h"

static uint32_t
ld32(const uint8_t *p)
{
	uint32_t w;

	__builtin_memcpy(&w, p, 4);
	return w;
}

/*
 * The 32-bit words' sum, congruent mod 0xffff to their one's complement
 * sum (2^16 and 2^32 are both 1 mod 0xffff), in 64 bits (the carries
 * counted apart, inet_csum_acc32), which 2^32 words cannot overflow:
 * an add and an add-with-carry of zero per word on i686, eight words a
 * loop step.  Timed under TCG in the guest, side by side (against
 * a 64-bit accumulator, 3.5 instructions a word where this is 2):
 * 20 bytes (an IPv4 header) 52 ns, 72 (a small datagram) 78, 1480 (a
 * full segment) 690, against 72 / 107 / 860 ns for the sums of 16-bit
 * halves in two 32-bit registers that it replaced, and 42 / 76 / 1100
 * for an assembler adc chain, each add waiting on the last one's carry
 * (docs/bench.md).  The C fallback runs in the host tests (tests/net),
 * the i686 code in the guest (KTAP inet.csum_matches_byte_pairs).
 */
static inline __attribute__((always_inline)) uint64_t
sum_words(const uint8_t *p, size_t words)
{
	uint32_t s = 0, carries = 0;

	for (; words >= 8; words -= 8, p += 32) {
		inet_csum_acc32(&s, &carries, ld32(p));
		inet_csum_acc32(&s, &carries, ld32(p + 4));
		inet_csum_acc32(&s, &carries, ld32(p + 8));
		inet_csum_acc32(&s, &carries, ld32(p + 12));
		inet_csum_acc32(&s, &carries, ld32(p + 16));
		inet_csum_acc32(&s, &carries, ld32(p + 20));
		inet_csum_acc32(&s, &carries, ld32(p + 24));
		inet_csum_acc32(&s, &carries, ld32(p + 28));
	}
	for (; words > 0; words--, p += 4)
		inet_csum_acc32(&s, &carries, ld32(p));
	return (uint64_t)carries << 32 | s;
}

/*
 * RFC 1071 2(B): the one's complement sum does not depend on byte
 * order, so on a little-endian CPU 32-bit words are added as loaded and
 * the folded sum is swapped once, instead of assembling big-endian
 * 16-bit words byte by byte: about 6x fewer guest instructions, which
 * under TCG was most of tcp.ko's cost per received segment (docs/tcp.md,
 * "Receive throughput").  Byte i of the data is the high half of a
 * big-endian word when i is even, the low half of a little-endian one.
 */
/* a + b with the carry out added back in (one's complement addition). */
static inline uint32_t
add_around(uint32_t a, uint32_t b)
{
	a += b;
	return a + (a < b);
}

PACKET_RX uint32_t
inet_csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t s = inet_csum_fold16(sum_words(p, len / 4)), le;

	/* All in 32 bits from here: every step adds less than 2^17. */
	p += len & ~(size_t)3;
	if (len & 2) {
		s += (uint32_t)p[0] | (uint32_t)p[1] << 8;
		p += 2;
	}
	if (len & 1)
		s += p[0];
	le = inet_csum_fold16(s);
	return inet_csum_fold16(add_around(sum, __builtin_bswap16(le)));
#else
	uint64_t acc = sum;

	for (; len >= 2; p += 2, len -= 2)
		acc += get_be16(p);
	if (len == 1)
		acc += (uint32_t)p[0] << 8;
	return inet_csum_fold16(acc);
#endif
}

/*
 * IPv4 headers (every packet, both ways) and most ICMP messages are whole
 * 32-bit words: their sum needs no tail, no partial sum to merge and one
 * byte swap, not the general path's two folds and its add.  A header
 * without options has its own, inline: inet_csum20.
 */
uint16_t
inet_csum(const void *data, size_t len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if ((len & 3) == 0) {
		uint16_t le = inet_csum_fold16(sum_words(data, len / 4));

		return (uint16_t)~__builtin_bswap16(le);
	}
#endif
	return inet_csum_fold(inet_csum_add(0, data, len));
}

uint16_t
inet_csum_update16(uint16_t csum, uint16_t old, uint16_t new_)
{
	uint64_t acc = (uint16_t)~csum;

	acc += (uint16_t)~old;
	acc += new_;
	return (uint16_t)~inet_csum_fold16(acc);
}

uint16_t
inet_csum_update32(uint16_t csum, uint32_t old, uint32_t new_)
{
	csum = inet_csum_update16(csum, (uint16_t)(old >> 16),
	                          (uint16_t)(new_ >> 16));
	return inet_csum_update16(csum, (uint16_t)old, (uint16_t)new_);
}
