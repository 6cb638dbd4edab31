/*
 * The bulk test pattern of tcpbulk and tcplisten (and of the Linux
 * guest's helper in make bench-linux, tests/bench/linux/lbguest.c, and
 * the host's tests/tcp/peer/tcp-bulk.c): byte i of a stream is
 * (uint8_t)((i * 7) ^ (i >> 10)).
 *
 * Only bits 0..7 and 10..17 of i reach the byte, so 32-bit arithmetic
 * gives the same bytes, and within one 1 KiB block the byte is
 * tab[i mod 256 + j] ^ (i >> 10), tab[k] = k * 7: four bytes are
 * compared or written at a time.  Computed byte by byte in 64 bits it
 * cost ~100 TSC cycles a byte in the i386 guest under TCG, half of a
 * bulk receive (docs/tcp.md, "Receive throughput").
 *
 * Header-only and freestanding: it is included by tcp.ko and by host
 * programs.
 */
#ifndef NET_TCP_KO_PATTERN_H
#define NET_TCP_KO_PATTERN_H

#include <stddef.h>
#include <stdint.h>

struct tcp_pattern {
	uint8_t tab[256 + 1024];
};

static inline void
tcp_pattern_init(struct tcp_pattern *p)
{
	for (unsigned k = 0; k < sizeof(p->tab); k++)
		p->tab[k] = (uint8_t)(k * 7);
}

static inline uint8_t
tcp_pattern_byte(uint64_t i)
{
	return (uint8_t)((i * 7) ^ (i >> 10));
}

/* Bytes of a run that stays inside one 1 KiB block, from stream offset
 * off, and the expected bytes before the high byte is applied. */
static inline size_t
tcp_pattern_run(const struct tcp_pattern *p, uint32_t off, size_t left,
                const uint8_t **exp, uint32_t *hi4)
{
	size_t run = 1024 - (off & 1023);

	*exp = p->tab + (off & 255);
	*hi4 = (uint32_t)(uint8_t)(off >> 10) * 0x01010101u;
	return run < left ? run : left;
}

static inline uint32_t
tcp_pattern_ld(const uint8_t *b)
{
	uint32_t w;

	__builtin_memcpy(&w, b, 4);
	return w;
}

/* Writes n bytes of the pattern from stream offset off. */
static inline void
tcp_pattern_fill(const struct tcp_pattern *p, uint8_t *buf, uint64_t off,
                 size_t n)
{
	uint32_t o = (uint32_t)off, hi4;
	const uint8_t *e;

	for (size_t k = 0; k < n;) {
		size_t run = tcp_pattern_run(p, o, n - k, &e, &hi4), j = 0;

		for (; j + 4 <= run; j += 4) {
			uint32_t w = tcp_pattern_ld(e + j) ^ hi4;

			__builtin_memcpy(buf + k + j, &w, 4);
		}
		for (; j < run; j++)
			buf[k + j] = (uint8_t)(e[j] ^ hi4);
		k += run;
		o += (uint32_t)run;
	}
}

/* Index of the first of n bytes that is not the pattern from stream
 * offset off, or n when all are. */
static inline size_t
tcp_pattern_check(const struct tcp_pattern *p, const uint8_t *buf, uint64_t off,
                  size_t n)
{
	uint32_t o = (uint32_t)off, hi4;
	const uint8_t *e;

	for (size_t k = 0; k < n;) {
		size_t run = tcp_pattern_run(p, o, n - k, &e, &hi4), j = 0;

		for (; j + 4 <= run; j += 4)
			if (tcp_pattern_ld(buf + k + j) !=
			    (tcp_pattern_ld(e + j) ^ hi4))
				break;
		for (; j < run; j++)
			if (buf[k + j] != (uint8_t)(e[j] ^ hi4))
				return k + j;
		k += run;
		o += (uint32_t)run;
	}
	return n;
}

#endif /* NET_TCP_KO_PATTERN_H */
