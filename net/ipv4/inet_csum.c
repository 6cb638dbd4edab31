/*
 * The Internet checksum (RFC 1071) and its incremental update (RFC 1624).
 * See inet_csum.h for how to combine partial sums.
 */
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/proto_lib.h"

/*
 * Folds carries until the sum fits 16 bits (RFC 1071 section 2 (1)), in
 * a fixed number of 32-bit steps: the two halves are added with their
 * end-around carry, then two 16-bit folds always suffice (0xffffffff
 * folds to 0x1fffe, that to 0xffff).  A loop on the 64-bit value took
 * several double-word shifts per round on i686, on every packet.
 */
static uint32_t
fold16(uint64_t sum)
{
	uint32_t lo = (uint32_t)sum, s = lo + (uint32_t)(sum >> 32);

	s += s < lo;
	s = (s & 0xffff) + (s >> 16);
	return (s & 0xffff) + (s >> 16);
}

static uint32_t
ld32(const uint8_t *p)
{
	uint32_t w;

	__builtin_memcpy(&w, p, 4);
	return w;
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
uint32_t
inet_csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t acc = 0;
	uint32_t le;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* 2^32 words of 2^32 - 1 cannot carry out of 64 bits. */
	for (; len >= 16; p += 16, len -= 16)
		acc += (uint64_t)ld32(p) + ld32(p + 4) + ld32(p + 8) +
		       ld32(p + 12);
	for (; len >= 4; p += 4, len -= 4)
		acc += ld32(p);
	if (len >= 2) {
		acc += (uint32_t)p[0] | (uint32_t)p[1] << 8;
		p += 2;
		len -= 2;
	}
	if (len == 1)
		acc += p[0];
	le = fold16(acc);
	return fold16((uint64_t)sum + ((le & 0xff) << 8 | le >> 8));
#else
	(void)le;
	acc = sum;
	for (; len >= 2; p += 2, len -= 2)
		acc += get_be16(p);
	if (len == 1)
		acc += (uint32_t)p[0] << 8;
	return fold16(acc);
#endif
}

uint16_t
inet_csum_fold(uint32_t sum)
{
	return (uint16_t)~fold16(sum);
}

uint16_t
inet_csum(const void *data, size_t len)
{
	return inet_csum_fold(inet_csum_add(0, data, len));
}

uint32_t
inet_csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	uint64_t acc = 0;

	acc += src >> 16;
	acc += src & 0xffff;
	acc += dst >> 16;
	acc += dst & 0xffff;
	acc += proto;
	acc += len;
	return fold16(acc);
}

uint16_t
inet_csum_update16(uint16_t csum, uint16_t old, uint16_t new_)
{
	uint64_t acc = (uint16_t)~csum;

	acc += (uint16_t)~old;
	acc += new_;
	return (uint16_t)~fold16(acc);
}

uint16_t
inet_csum_update32(uint16_t csum, uint32_t old, uint32_t new_)
{
	csum = inet_csum_update16(csum, (uint16_t)(old >> 16),
	                          (uint16_t)(new_ >> 16));
	return inet_csum_update16(csum, (uint16_t)old, (uint16_t)new_);
}
