/*
 * Small deterministic hashes and generators shared by the kernel: the
 * same input gives the same value in every run (signatures, schedules,
 * seeded op sequences).
 */
#ifndef KERNEL_HASH_H
#define KERNEL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A32_INIT 0x811c9dc5u

/* 32-bit FNV-1a of p[0..n) continued from h (FNV1A32_INIT to start):
 * hashing a concatenation piece by piece gives the hash of the whole. */
static inline uint32_t
fnv1a32_add(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x01000193u;
	return h;
}

/* splitmix64 (Steele, Lea, Flood 2014): the next value of the sequence
 * whose state is *s; any seed is a good one. */
static inline uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
