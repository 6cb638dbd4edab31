/*
 * Private helpers shared by the loader core files.  Nothing here may use
 * libc: the same code runs in the freestanding kernel.
 */
#ifndef MODLOADER_ELF_INTERNAL_H
#define MODLOADER_ELF_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modloader/elf_mod.h"

/*
 * Formats one error line into m->err and returns code, so a check reads
 * `return elf_err(m, -ENOEXEC, "...")`.  Conversions: %s %c %d %u %x;
 * write the "0x" in the format.
 */
int elf_err(struct elf_mod *m, int code, const char *fmt, ...);

/* A bounded string builder; it truncates and never overflows. */
struct elf_buf {
	char *p;
	size_t len; /* capacity including the NUL */
	size_t pos;
	bool truncated;
};

void elf_buf_init(struct elf_buf *b, char *p, size_t len);
void elf_buf_printf(struct elf_buf *b, const char *fmt, ...);
void elf_buf_vprintf(struct elf_buf *b, const char *fmt, va_list ap);
size_t elf_buf_room(const struct elf_buf *b);

/* Section and symbol names, safe on anything elf_mod_check() accepted;
 * before the section name table is checked they return "?". */
const char *elf_sec_name(const struct elf_mod *m, unsigned int idx);
const char *elf_sym_name(const struct elf_mod *m, unsigned int idx);

static inline bool
elf_is_pow2(uint32_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

/* Rounds off up to align (a power of two); callers keep off below
 * ELF_MOD_MAX_IMAGE so this cannot wrap. */
static inline uint32_t
elf_align_up(uint32_t off, uint32_t align)
{
	return (off + align - 1) & ~(align - 1);
}

static inline int
elf_strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static inline size_t
elf_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

/* Relocation fields may be unaligned (a call's rel32), so go bytewise. */
static inline uint32_t
elf_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
elf_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* True if section idx is placed in the image. */
static inline bool
elf_sec_loaded(const struct elf_mod *m, unsigned int idx)
{
	return idx < m->nsec && (m->sec[idx].sh_flags & SHF_ALLOC) != 0;
}

/* The relocation section idx is applied: REL whose target is loaded. */
static inline bool
elf_rel_applied(const struct elf_mod *m, unsigned int idx)
{
	const Elf32_Shdr *s = &m->sec[idx];

	return s->sh_type == SHT_REL && elf_sec_loaded(m, s->sh_info);
}

#endif /* MODLOADER_ELF_INTERNAL_H */
