/*
 * A small JSON reader for the records lava-run prints (one object per
 * line: {"dt": .., "lvl": .., "msg": ..}), and the string quoting every
 * JSON writer of the host tools uses.  It parses a whole value into a
 * tree of nodes; strings are decoded (escapes, \u as UTF-8).  Input is
 * hostile: depth and size are bounded and every error is a message with
 * the byte offset, never a crash.
 */
#ifndef LAVA_JSON_H
#define LAVA_JSON_H

#include <stddef.h>

struct strbuf;

enum json_type { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum json_type type;
	char *str; /* J_STR: decoded text; J_NUM: the literal */
	int boolean;
	char *key; /* member name when inside an object */
	struct json *child, *next;
};

/* NULL on error, with a reason in err. */
struct json *json_parse(const char *text, char *err, size_t errlen);
/*
 * The same without lava-run's leniency: no YAML tags, numbers exactly as
 * RFC 8259 writes them, no member name twice in an object.
 */
struct json *json_parse_strict(const char *text, char *err, size_t errlen);
void json_free(struct json *j);
/* Member of an object by name, or NULL; J_STR member's text, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
const char *json_str(const struct json *obj, const char *key);

/* s as a JSON string literal, quotes included: '"', '\\' and control
 * characters escaped, bytes that are not valid UTF-8 replaced by U+FFFD
 * (the writers: KCIDB, tests/kcidb/kcidb.c; traces, tests/trace/). */
void json_quote(struct strbuf *sb, const char *s);

#endif
