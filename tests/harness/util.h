/*
 * Small helpers shared by the harness programs: checked allocation, a
 * growable string buffer, a growable argv, monotonic time and C-escape
 * decoding.  Allocation failure exits the process: the harness has no way
 * to report results without memory, so there is nothing to unwind to.
 */
#ifndef HARNESS_UTIL_H
#define HARNESS_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NUL-terminated byte buffer that grows as text is appended. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_consume(struct strbuf *sb, size_t n);

/* A NULL-terminated vector of owned strings, used for exec argv. */
struct argv {
	char **v;
	int n;
	int cap;
};

void argv_init(struct argv *a);
void argv_free(struct argv *a);
void argv_add(struct argv *a, const char *s);
void argv_addf(struct argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *argv_join(const struct argv *a);

/* Milliseconds from CLOCK_MONOTONIC; only differences are meaningful. */
int64_t now_ms(void);

/*
 * Decode C escapes (\xNN \r \n \t \0 \\ \") from src into a new buffer.
 * Returns NULL and a message in err on a malformed escape.
 */
char *unescape(const char *src, size_t *outlen, char *err, size_t errlen);

/* Strip leading and trailing blanks in place; returns the start. */
char *trim(char *s);

bool starts_with(const char *s, const char *prefix);

/* Read a whole file; NULL with errno set on failure. */
char *read_file(const char *path);
/* The same, with its length (a binary file may hold NUL bytes). */
char *read_file_n(const char *path, size_t *len);

#endif
