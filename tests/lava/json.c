/* JSON reader (see json.h): recursive descent over a NUL-terminated text. */
#include "tests/lava/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness/util.h"

#define MAX_DEPTH 32

struct parser {
	const char *s, *start;
	char *err;
	size_t errlen;
	int failed;
	int strict; /* json_parse_strict: RFC 8259 only */
};

static void
fail(struct parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "json: %s at byte %zu", what,
		         (size_t)(p->s - p->start));
	p->failed = 1;
}

static void
skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static void
put_utf8(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	}
	sb_add(sb, b, n);
}

/* A string literal at p->s (which is at the opening quote). */
static char *
parse_string(struct parser *p)
{
	static const char esc_in[] = "\"\\/bfnrt",
	                  esc_out[] = "\"\\/\b\f\n\r\t";
	struct strbuf sb;

	sb_init(&sb);
	p->s++;
	while (*p->s != '"') {
		unsigned char c = (unsigned char)*p->s;

		if (c == '\0' || c < 0x20) {
			fail(p, c ? "control character in string"
			          : "unterminated string");
			sb_free(&sb);
			return NULL;
		}
		if (c != '\\') {
			sb_add(&sb, p->s++, 1);
			continue;
		}
		p->s++;
		const char *e = *p->s ? strchr(esc_in, *p->s) : NULL;
		if (e != NULL) {
			sb_add(&sb, &esc_out[e - esc_in], 1);
			p->s++;
		} else if (*p->s == 'u') {
			unsigned cp = 0;
			for (int i = 1; i <= 4; i++) {
				char h = p->s[i];
				int v = h >= '0' && h <= '9'   ? h - '0'
				        : h >= 'a' && h <= 'f' ? h - 'a' + 10
				        : h >= 'A' && h <= 'F' ? h - 'A' + 10
				                               : -1;
				if (v < 0) {
					fail(p, "bad \\u escape");
					sb_free(&sb);
					return NULL;
				}
				cp = cp * 16 + (unsigned)v;
			}
			p->s += 5;
			put_utf8(&sb, cp);
		} else {
			fail(p, "bad escape");
			sb_free(&sb);
			return NULL;
		}
	}
	p->s++;
	sb_add(&sb, "", 0);
	return sb.buf ? sb.buf : xstrdup("");
}

static struct json *parse_value(struct parser *p, int depth);

/* RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
number_ok(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		if (*++s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		if (*++s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

static int
has_member(const struct json *obj, const char *key)
{
	for (const struct json *c = obj->child; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return 1;
	return 0;
}

/* Members or elements up to the closing bracket; obj says which. */
static struct json *
parse_container(struct parser *p, int depth, int obj)
{
	struct json *j = xcalloc(1, sizeof(*j)), **tail = &j->child;
	char close = obj ? '}' : ']';

	j->type = obj ? J_OBJ : J_ARR;
	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		struct json *v;

		skip_ws(p);
		if (obj) {
			if (*p->s != '"') {
				fail(p, "expected a member name");
				break;
			}
			if ((key = parse_string(p)) == NULL)
				break;
			if (p->strict && has_member(j, key)) {
				free(key);
				fail(p, "duplicate member name");
				break;
			}
			skip_ws(p);
			if (*p->s != ':') {
				free(key);
				fail(p, "expected ':'");
				break;
			}
			p->s++;
		}
		if ((v = parse_value(p, depth + 1)) == NULL) {
			free(key);
			break;
		}
		v->key = key;
		*tail = v;
		tail = &v->next;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close) {
			p->s++;
			return j;
		}
		fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(j);
	return NULL;
}

static struct json *
parse_value(struct parser *p, int depth)
{
	struct json *j;

	if (depth > MAX_DEPTH) {
		fail(p, "nested too deeply");
		return NULL;
	}
	skip_ws(p);
	/*
	 * lava-run 2023.01 writes some values with a YAML tag in front
	 * ("size": ! "1426168"): the records are YAML flow mappings that are
	 * almost always JSON.  A tag is skipped; the value after it counts.
	 */
	if (*p->s == '!' && !p->strict) {
		p->s += strcspn(p->s, " \t");
		skip_ws(p);
	}
	switch (*p->s) {
	case '{':
	case '[':
		return parse_container(p, depth, *p->s == '{');
	case '"': {
		char *s = parse_string(p);
		if (s == NULL)
			return NULL;
		j = xcalloc(1, sizeof(*j));
		j->type = J_STR;
		j->str = s;
		return j;
	}
	}
	j = xcalloc(1, sizeof(*j));
	if (strncmp(p->s, "null", 4) == 0) {
		j->type = J_NULL;
		p->s += 4;
	} else if (strncmp(p->s, "true", 4) == 0) {
		j->type = J_BOOL;
		j->boolean = 1;
		p->s += 4;
	} else if (strncmp(p->s, "false", 5) == 0) {
		j->type = J_BOOL;
		p->s += 5;
	} else {
		size_t n = strspn(p->s, "+-0123456789.eE");
		if (n == 0) {
			free(j);
			fail(p, "unexpected character");
			return NULL;
		}
		j->type = J_NUM;
		j->str = xstrndup(p->s, n);
		if (p->strict && !number_ok(j->str)) {
			json_free(j);
			fail(p, "malformed number");
			return NULL;
		}
		p->s += n;
	}
	return j;
}

static struct json *
parse(const char *text, char *err, size_t errlen, int strict)
{
	struct parser p = {text, text, err, errlen, 0, strict};
	struct json *j = parse_value(&p, 0);

	if (j == NULL)
		return NULL;
	skip_ws(&p);
	if (*p.s != '\0') {
		fail(&p, "trailing data");
		json_free(j);
		return NULL;
	}
	return j;
}

struct json *
json_parse(const char *text, char *err, size_t errlen)
{
	return parse(text, err, errlen, 0);
}

struct json *
json_parse_strict(const char *text, char *err, size_t errlen)
{
	return parse(text, err, errlen, 1);
}

void
json_free(struct json *j)
{
	while (j != NULL) {
		struct json *next = j->next;
		json_free(j->child);
		free(j->str);
		free(j->key);
		free(j);
		j = next;
	}
}

const struct json *
json_get(const struct json *obj, const char *key)
{
	if (obj == NULL || obj->type != J_OBJ)
		return NULL;
	for (const struct json *c = obj->child; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const char *
json_str(const struct json *obj, const char *key)
{
	const struct json *v = json_get(obj, key);

	return v && v->type == J_STR ? v->str : NULL;
}

/* ---- writing ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void
json_quote(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	sb_adds(sb, "\"");
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			sb_adds(sb, *p == '"' ? "\\\"" : "\\\\");
			p++;
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			sb_adds(sb, *p == '\n'   ? "\\n"
			            : *p == '\t' ? "\\t"
			                         : "\\r");
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			sb_addf(sb, "\\u%04x", *p);
			p++;
		} else if (*p < 0x80) {
			sb_add(sb, (const char *)p, 1);
			p++;
		} else if ((n = utf8_len(p)) > 0) {
			sb_add(sb, (const char *)p, n);
			p += n;
		} else {
			sb_adds(sb, "\\ufffd");
			p++;
		}
	}
	sb_adds(sb, "\"");
}
