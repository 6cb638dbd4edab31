/*
 * The Internet checksum (RFC 1071): the 16-bit one's complement of the
 * one's complement sum of the data taken as big-endian 16-bit words, an
 * odd last byte padded with a zero byte.
 *
 * A checksum over several pieces is built from partial sums:
 *
 *   sum = inet_csum_pseudo(src, dst, IP_PROTO_UDP, len);
 *   sum = inet_csum_add(sum, udp, len);
 *   put_be16(udp + 6, inet_csum_fold(sum));
 *
 * Every piece but the last must have an even length (a piece of odd
 * length would shift the byte pairing of the next one).  A packet whose
 * checksum field is correct sums, field included, to inet_csum_fold() 0.
 */
#ifndef NET_INET_CSUM_H
#define NET_INET_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds len bytes to a partial sum (start with 0); the result is folded
 * to at most 17 bits, so calls can be chained without overflow. */
uint32_t inet_csum_add(uint32_t sum, const void *data, size_t len);

/*
 * Folds carries until a sum of 16-bit values fits 16 bits (RFC 1071
 * section 2 (1)), not complemented, in a fixed number of 32-bit steps:
 * the two halves are added with their end-around carry, then two 16-bit
 * folds always suffice (0xffffffff folds to 0x1fffe, that to 0xffff).
 * A loop on the 64-bit value took several double-word shifts per round
 * on i686.  For a 32-bit sum the compiler drops the first step.
 */
static inline uint16_t
inet_csum_fold16(uint64_t sum)
{
	uint32_t lo = (uint32_t)sum, s = lo + (uint32_t)(sum >> 32);

	s += s < lo;
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/*
 * 32-bit words summed on a 32-bit CPU: the sum in *s, the carries out of
 * it counted in *carries, so that (carries << 32 | s) is the words'
 * 64-bit sum, congruent to their one's complement sum (inet_csum_fold16
 * takes it).  On i686 an add (of the word in memory) and an
 * add-with-carry of zero: two instructions a word and no branch, where
 * GCC made 3.5 of a 64-bit accumulator, spilled the IPv4 header's to the
 * stack, and turned this comparison into a branch a word
 * (docs/bench.md).  Elsewhere (the host tests) in C.
 */
static inline __attribute__((always_inline)) void
inet_csum_acc32(uint32_t *s, uint32_t *carries, uint32_t w)
{
#if defined(__i386__)
	__asm__("addl %2, %0\n\tadcl $0, %1"
	        : "+r"(*s), "+r"(*carries)
	        : "g"(w)
	        : "cc");
#else
	*s += w;
	*carries += *s < w;
#endif
}

/* Folds the carries of a partial sum and complements it: the value to
 * store, in host order, in the checksum field.  Inline, as is the
 * pseudo-header's sum: a few adds, on every packet, that cost less than
 * the call did (docs/bench.md). */
static inline uint16_t
inet_csum_fold(uint32_t sum)
{
	return (uint16_t)~inet_csum_fold16(sum);
}

/* inet_csum_fold(inet_csum_add(0, data, len)). */
uint16_t inet_csum(const void *data, size_t len);

/* inet_csum(hdr, 20) in line: an IPv4 header without options, summed
 * on every packet both ways (five 32-bit words through inet_csum_acc32,
 * folded; on a little-endian CPU the folded sum is byte-swapped once,
 * RFC 1071 2(B)). */
static inline uint16_t
inet_csum20(const void *hdr)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint8_t *p = hdr;
	uint32_t s, carries = 0, w1, w2, w3, w4;

	/* word by word: a copy of all five went through the stack */
	__builtin_memcpy(&s, p, 4);
	__builtin_memcpy(&w1, p + 4, 4);
	__builtin_memcpy(&w2, p + 8, 4);
	__builtin_memcpy(&w3, p + 12, 4);
	__builtin_memcpy(&w4, p + 16, 4);
	inet_csum_acc32(&s, &carries, w1);
	inet_csum_acc32(&s, &carries, w2);
	inet_csum_acc32(&s, &carries, w3);
	inet_csum_acc32(&s, &carries, w4);
	return (uint16_t)~__builtin_bswap16(
	    inet_csum_fold16((uint64_t)carries << 32 | s));
#else
	return inet_csum(hdr, 20);
#endif
}

/* The partial sum of the IPv4 pseudo-header that UDP and TCP checksums
 * cover (RFC 768 "Fields"): source, destination, zero, protocol, and
 * the upper-layer length. */
static inline uint32_t
inet_csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	/* Six 16-bit values: no carry out of 32 bits. */
	uint32_t acc = (src >> 16) + (src & 0xffff) + (dst >> 16) +
	               (dst & 0xffff) + proto + len;

	acc = (acc & 0xffff) + (acc >> 16);
	return (acc & 0xffff) + (acc >> 16);
}

/* Incremental update (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')) of a
 * stored checksum when a 16-bit or 32-bit field of the covered data
 * changes from old to new; e.g. a TTL decrement or an address rewrite. */
uint16_t inet_csum_update16(uint16_t csum, uint16_t old, uint16_t new_);
uint16_t inet_csum_update32(uint16_t csum, uint32_t old, uint32_t new_);

#endif /* NET_INET_CSUM_H */
