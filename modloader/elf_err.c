/*
 * Error messages for the loader core: a tiny printf (the kernel build has
 * no libc) writing into the caller's buffer, and name helpers that are
 * safe to call from any validator.
 */
#include "modloader/elf_internal.h"

void
elf_buf_init(struct elf_buf *b, char *p, size_t len)
{
	b->p = p;
	b->len = p == NULL ? 0 : len;
	b->pos = 0;
	b->truncated = false;
	if (b->len > 0)
		b->p[0] = '\0';
}

size_t
elf_buf_room(const struct elf_buf *b)
{
	return b->len == 0 ? 0 : b->len - 1 - b->pos;
}

static void
buf_putc(struct elf_buf *b, char c)
{
	if (elf_buf_room(b) == 0) {
		b->truncated = true;
		return;
	}
	b->p[b->pos++] = c;
	b->p[b->pos] = '\0';
}

static void
buf_puts(struct elf_buf *b, const char *s)
{
	if (s == NULL)
		s = "(null)";
	while (*s != '\0')
		buf_putc(b, *s++);
}

static void
buf_putu(struct elf_buf *b, uint32_t v, unsigned int radix)
{
	char tmp[12];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % radix];
		v /= radix;
	} while (v != 0);
	while (n > 0)
		buf_putc(b, tmp[--n]);
}

void
elf_buf_vprintf(struct elf_buf *b, const char *fmt, va_list ap)
{
	int d;

	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%' || fmt[1] == '\0') {
			buf_putc(b, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 's':
			buf_puts(b, va_arg(ap, const char *));
			break;
		case 'c':
			buf_putc(b, (char)va_arg(ap, int));
			break;
		case 'u':
			buf_putu(b, va_arg(ap, unsigned int), 10);
			break;
		case 'x':
			buf_putu(b, va_arg(ap, unsigned int), 16);
			break;
		case 'd':
			d = va_arg(ap, int);
			if (d < 0)
				buf_putc(b, '-');
			buf_putu(b, d < 0 ? 0u - (uint32_t)d : (uint32_t)d, 10);
			break;
		default:
			buf_putc(b, '%');
			buf_putc(b, *fmt);
			break;
		}
	}
}

void
elf_buf_printf(struct elf_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	elf_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

int
elf_err(struct elf_mod *m, int code, const char *fmt, ...)
{
	struct elf_buf b;
	va_list ap;

	elf_buf_init(&b, m->err, m->errlen);
	va_start(ap, fmt);
	elf_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return code;
}

const char *
elf_sec_name(const struct elf_mod *m, unsigned int idx)
{
	uint32_t off;

	if (m->secstrings == NULL || idx >= m->nsec)
		return "?";
	off = m->sec[idx].sh_name;
	return off < m->secstrings_size ? m->secstrings + off : "?";
}

const char *
elf_sym_name(const struct elf_mod *m, unsigned int idx)
{
	uint32_t off;

	if (m->strtab == NULL || idx >= m->nsym)
		return "?";
	off = m->sym[idx].st_name;
	return off < m->strtab_size ? m->strtab + off : "?";
}
