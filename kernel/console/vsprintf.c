/*
 * vsnprintf: the formats the kernel uses (%d %i %u %x %X %o %p %s %c %%),
 * with flags '-', '0', width, precision (also '*'), and length modifiers
 * hh h l ll z.  Always NUL-terminates; returns the length it wanted.
 */
#include <kernel/lib/string.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void
put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void
pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void
put_number(struct out *o, uint64_t v, unsigned base, int upper, int neg,
           int width, int zero, int left, int prec)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v != 0);
	while (n < prec && n < (int)sizeof(tmp))
		tmp[n++] = '0';
	len = n + neg;
	if (!left && !zero)
		pad(o, ' ', width - len);
	if (neg)
		put(o, '-');
	if (!left && zero)
		pad(o, '0', width - len);
	while (n > 0)
		put(o, tmp[--n]);
	if (left)
		pad(o, ' ', width - len);
}

int
vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {buf, size, 0};

	for (; *fmt != '\0'; fmt++) {
		int left = 0, zero = 0, width = 0, prec = -1, lng = 0;
		uint64_t u;
		int64_t s;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = 1;
			else if (*fmt == '0')
				zero = 1;
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z' || *fmt == 'h')
				;
			else
				break;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng >= 2 ? va_arg(ap, long long) : va_arg(ap, long);
			u = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
			put_number(&o, u, 10, 0, s < 0, width, zero, left,
			           prec);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng >= 2 ? va_arg(ap, unsigned long long)
			             : va_arg(ap, unsigned long);
			put_number(&o, u,
			           *fmt == 'u'   ? 10
			           : *fmt == 'o' ? 8
			                         : 16,
			           *fmt == 'X', 0, width, zero, left, prec);
			break;
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_number(&o, (uintptr_t)va_arg(ap, void *), 16, 0, 0,
			           8, 1, 0, -1);
			break;
		case 'c':
			pad(&o, ' ', left ? 0 : width - 1);
			put(&o, (char)va_arg(ap, int));
			pad(&o, ' ', left ? width - 1 : 0);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			int n;
			if (str == NULL)
				str = "(null)";
			n = (int)strnlen(str,
			                 prec >= 0 ? (size_t)prec : (size_t)-1);
			if (!left)
				pad(&o, ' ', width - n);
			for (int i = 0; i < n; i++)
				put(&o, str[i]);
			if (left)
				pad(&o, ' ', width - n);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int
snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
