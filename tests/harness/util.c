/*
 * Helpers shared by the harness programs (see util.h).
 */
#include "tests/harness/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <errno.h>

static void
oom(void)
{
	fputs("modref-harness: out of memory\n", stderr);
	exit(2);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

void
sb_init(struct strbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void
sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void
sb_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		while (sb->len + n + 1 > sb->cap)
			sb->cap *= 2;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void
sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	sb_adds(sb, p);
	free(p);
}

/* Drop the first n bytes; callers use it to forget consumed console text. */
void
sb_consume(struct strbuf *sb, size_t n)
{
	if (n > sb->len)
		n = sb->len;
	memmove(sb->buf, sb->buf + n, sb->len - n + 1);
	sb->len -= n;
}

void
argv_init(struct argv *a)
{
	a->cap = 16;
	a->n = 0;
	a->v = xcalloc((size_t)a->cap, sizeof(char *));
}

void
argv_free(struct argv *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

void
argv_add(struct argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap *= 2;
		a->v = xrealloc(a->v, (size_t)a->cap * sizeof(char *));
	}
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

void
argv_addf(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	argv_add(a, p);
	free(p);
}

/* Quote only what needs it, so the printed line can be pasted to a shell. */
char *
argv_join(const struct argv *a)
{
	struct strbuf sb;

	sb_init(&sb);
	for (int i = 0; i < a->n; i++) {
		const char *s = a->v[i];
		bool plain = *s != '\0';

		for (const char *p = s; *p; p++)
			if (!isalnum((unsigned char)*p) &&
			    strchr("-_./=,:+@%", *p) == NULL)
				plain = false;
		if (i > 0)
			sb_adds(&sb, " ");
		if (plain) {
			sb_adds(&sb, s);
			continue;
		}
		sb_adds(&sb, "'");
		for (const char *p = s; *p; p++) {
			if (*p == '\'')
				sb_adds(&sb, "'\\''");
			else
				sb_add(&sb, p, 1);
		}
		sb_adds(&sb, "'");
	}
	return sb.buf;
}

int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

char *
unescape(const char *src, size_t *outlen, char *err, size_t errlen)
{
	char *out = xmalloc(strlen(src) + 1);
	size_t n = 0;

	for (const char *p = src; *p; p++) {
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'r':
			out[n++] = '\r';
			break;
		case 'n':
			out[n++] = '\n';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case '0':
			out[n++] = '\0';
			break;
		case '\\':
		case '"':
			out[n++] = *p;
			break;
		case 'x':
			if (hexval(p[1]) < 0 || hexval(p[2]) < 0) {
				snprintf(err, errlen,
				         "\\x needs two hex digits");
				free(out);
				return NULL;
			}
			out[n++] = (char)(hexval(p[1]) * 16 + hexval(p[2]));
			p += 2;
			break;
		default:
			snprintf(err, errlen, "unknown escape '\\%c'",
			         *p ? *p : ' ');
			free(out);
			return NULL;
		}
	}
	out[n] = '\0';
	*outlen = n;
	return out;
}

char *
trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
	                 s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *
read_file_n(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb;
	char chunk[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	sb_init(&sb);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_add(&sb, chunk, n);
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		sb_free(&sb);
		errno = e;
		return NULL;
	}
	fclose(f);
	if (len != NULL)
		*len = sb.len;
	return sb.buf;
}

char *
read_file(const char *path)
{
	return read_file_n(path, NULL);
}
