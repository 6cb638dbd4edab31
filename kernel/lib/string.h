/*
 * The small part of the C library the kernel uses.  GCC may also emit calls
 * to memcpy/memset/memmove/memcmp on its own, so those must exist.
 */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
/*
 * -ffreestanding takes away the compiler's knowledge of these two, so a
 * copy of a MAC address or a fill of a small struct was a call and a
 * rep loop.  A size known at compile time now goes to the builtin, which
 * moves or fills it inline (a few movs); any other size calls the
 * functions above, since GCC's inline choice for an unknown size on i686
 * is rep movsb, a byte a step, four times the steps of ours under TCG.
 * string.c defines them as (memcpy) and (memset).
 */
#define memcpy(d, s, n)                                                        \
	(__builtin_constant_p(n) ? __builtin_memcpy(d, s, n)                   \
	                         : (memcpy)(d, s, n))
#define memset(d, c, n)                                                        \
	(__builtin_constant_p(n) ? __builtin_memset(d, c, n)                   \
	                         : (memset)(d, c, n))
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* The first occurrence of needle in s (s itself for ""), or NULL. */
char *strstr(const char *s, const char *needle);
char *strrchr(const char *s, int c);
size_t strlcpy(char *dst, const char *src, size_t size);
/* 32-bit FNV-1a hash: how the console names a packet's bytes. */
uint32_t fnv1a32(const void *p, size_t n);

/* The value of one hex digit, either case, or -1. */
int hex_digit(int c);
/* Parse an unsigned/signed number in base 10, or 16 with 0x.  The whole
 * string must be a number; returns 0 or -EINVAL / -ERANGE. */
int parse_ulong(const char *s, unsigned long *out);
int parse_long(const char *s, long *out);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
