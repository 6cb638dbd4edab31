/*
 * Freestanding string and number helpers (see string.h).
 */
#include <kernel/lib/string.h>
#include <kernel/lib/hash.h>
#include <kernel/lib/errno.h>
#include <stdint.h>
#include <limits.h>

/*
 * memcpy and memset are loops of 32 bytes a step.  Under TCG a rep
 * string instruction runs one step per translated-block execution: 16
 * MiB took 10 ms with rep movsl (36 ms with the rep movsb GCC inlines
 * for a constant size), 6 ms with this loop, measured in the guest
 * (docs/tcp.md, "Receive throughput": every received TCP segment is
 * copied three times).  GCC must not turn the loops back into calls to
 * these very functions.
 */
#define NO_LIBCALLS                                                            \
	__attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_LIBCALLS void *(memcpy)(void *dst, const void *src, size_t n)
{
	uint32_t *d = dst;
	const uint32_t *s = src;
	size_t blocks = n / 32, words = n % 32 / 4, tail = n % 4;

	/* Forward, word by word in order (with -fno-strict-aliasing the
	 * compiler keeps the order, and needs no spill registers): memmove
	 * relies on a forward copy when dst is below src. */
	for (; blocks > 0; blocks--, s += 8, d += 8) {
		d[0] = s[0];
		d[1] = s[1];
		d[2] = s[2];
		d[3] = s[3];
		d[4] = s[4];
		d[5] = s[5];
		d[6] = s[6];
		d[7] = s[7];
	}
	for (; words > 0; words--)
		*d++ = *s++;
	{
		uint8_t *db = (uint8_t *)d;
		const uint8_t *sb = (const uint8_t *)s;

		for (; tail > 0; tail--)
			*db++ = *sb++;
	}
	return dst;
}

void *
memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	/* A forward copy is safe unless dst starts inside src. */
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	/* Backwards, with the direction flag set for the string
	 * instruction only (the ABI wants it clear everywhere else): the
	 * tail bytes first, then whole words, each from the end. */
	{
		size_t words = n / 4, tail = n % 4;
		unsigned char *de = d + n - 1;
		const unsigned char *se = s + n - 1;

		__asm__ volatile("std\n\trep movsb\n\tcld"
		                 : "+D"(de), "+S"(se), "+c"(tail)
		                 :
		                 : "memory");
		de -= 3;
		se -= 3;
		__asm__ volatile("std\n\trep movsl\n\tcld"
		                 : "+D"(de), "+S"(se), "+c"(words)
		                 :
		                 : "memory");
	}
	return dst;
}

NO_LIBCALLS void *(memset)(void *dst, int c, size_t n)
{
	uint32_t *d = dst, v = (uint8_t)c * 0x01010101u;
	size_t blocks = n / 32, words = n % 32 / 4, tail = n % 4;

	/* As memcpy: a block of eight stores per loop step. */
	for (; blocks > 0; blocks--, d += 8) {
		d[0] = v;
		d[1] = v;
		d[2] = v;
		d[3] = v;
		d[4] = v;
		d[5] = v;
		d[6] = v;
		d[7] = v;
	}
	for (; words > 0; words--)
		*d++ = v;
	{
		uint8_t *db = (uint8_t *)d;

		for (; tail > 0; tail--)
			*db++ = (uint8_t)c;
	}
	return dst;
}

int
memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n > 0; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t
strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

size_t
strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

int
strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int
strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (*a == '\0')
			return 0;
	}
	return 0;
}

char *
strstr(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s != '\0' || n == 0; s++)
		if (strncmp(s, needle, n) == 0)
			return (char *)s;
	return NULL;
}

char *
strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *
strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

size_t
strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size > 0) {
		size_t c = n < size - 1 ? n : size - 1;
		memmove(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

uint32_t
fnv1a32(const void *p, size_t n)
{
	return fnv1a32_add(FNV1A32_INIT, p, n);
}

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
parse_ulong(const char *s, unsigned long *out)
{
	unsigned long v = 0;
	unsigned base = 10;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (*s == '\0')
			return -EINVAL;
	}
	for (; *s != '\0'; s++) {
		int d = hex_digit(*s);

		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		if (v > (ULONG_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int
parse_long(const char *s, long *out)
{
	unsigned long v;
	int neg = 0, err;

	if (s != NULL && *s == '-') {
		neg = 1;
		s++;
	}
	err = parse_ulong(s, &v);
	if (err != 0)
		return err;
	if (v > (unsigned long)LONG_MAX + (unsigned long)neg)
		return -ERANGE;
	*out = neg ? (long)(0 - v) : (long)v;
	return 0;
}
