/*
 * Writing KCIDB report data (the JSON that KernelCI's common results
 * database takes, schema v4.5: checkouts, builds, tests; see
 * docs/lava.md, "KCIDB").  modref-harness and lava-results both build one
 * document with these helpers: one checkout (the git tree), one build
 * (the kernel ELF), and any number of tests, each with a dot-separated
 * path.  build/host/kcidb-check (tests/kcidb/kcidb-check.c) validates
 * what comes out.
 */
#ifndef KCIDB_KCIDB_H
#define KCIDB_KCIDB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/time.h>

#include "tests/harness/util.h"

#define KCIDB_MAJOR          4
#define KCIDB_MINOR          5
#define KCIDB_DEFAULT_ORIGIN "modref"

/* KCIDB's origin pattern, ^[a-z0-9_]+$. */
bool kcidb_origin_ok(const char *origin);

/*
 * The origin to use: opt if given, else $KCIDB_ORIGIN, else "modref".
 * NULL, with a one-line message in err, when it breaks the pattern.
 */
const char *kcidb_origin(const char *opt, char *err, size_t errlen);

/*
 * Append the dot-separated name to a test path, one component at a time:
 * every byte outside [A-Za-z0-9_-] becomes '_', an empty component '_',
 * so "refs.dev/hold" adds "refs.dev_hold".  A separating dot is put
 * first when path is not empty.
 */
void kcidb_path_add(struct strbuf *path, const char *dotted);

/* The same for one component: dots are replaced like any other byte. */
void kcidb_path_add1(struct strbuf *path, const char *component);

/* s is an RFC 3339 date-time (2024-05-01T10:00:00(.123)?(Z|+02:00)). */
bool kcidb_time_ok(const char *s);

/* RFC 3339 in UTC with microseconds: 2024-05-01T10:00:00.123456+00:00. */
void kcidb_time(char *buf, size_t len, const struct timeval *tv);

/*
 * One "bench: GROUP: LABEL... VALUE UNIT ..." line (leading blanks and a
 * "host| " prefix allowed): the first number that is followed by a word
 * that is not a number is the figure, that word its unit, the words
 * before it the label ("bench: devref: owner 37 cycles 11.2 ns" is devref,
 * owner, 37, cycles; "bench: devref-contended: wait/atomic cpus 2 41
 * cycles/pair ..." is devref-contended, "wait/atomic cpus 2", 41,
 * cycles/pair).  Returns false for lines that are not bench lines, are
 * a command's error (GROUP an errno name: "bench: ERANGE: ..."), or have
 * no label or no figure.  The strings are allocated.
 */
bool kcidb_bench_line(const char *line, char **group, char **label,
                      double *value, char **unit);

struct kcidb_test {
	const char *path;       /* already built with kcidb_path_add */
	const char *status;     /* PASS FAIL ERROR MISS DONE SKIP */
	const char *start_time; /* RFC 3339, or NULL */
	double duration;        /* seconds, < 0 when unknown */
	const char *log_url;    /* or NULL */
	const char *comment;    /* or NULL or "" */
	bool has_number;
	double value;
	const char *unit; /* or NULL */
	/* misc: NULL-terminated key, value pairs of strings, or NULL */
	const char *const *misc;
};

/* The document being built. */
struct kcidb {
	char *origin;
	char *checkout_id, *build_id, *test_prefix;
	struct strbuf checkout, build, tests;
	int ntests;
};

/*
 * Start a document: the checkout from git in the current directory
 * ($KCIDB_GIT_COMMIT, $KCIDB_GIT_URL override it), the build from the
 * kernel ELF (its compiler read from the ELF's .comment, or
 * $KCIDB_COMPILER; valid when the file is there, not valid when it is
 * missing, no verdict when kernel is NULL).  Test ids are origin:COMMIT:i386:STAMP.N, STAMP
 * made from the time and pid, so two documents never share an id.
 */
void kcidb_begin(struct kcidb *k, const char *origin, const char *kernel);
void kcidb_add_test(struct kcidb *k, const struct kcidb_test *t);
/* The whole document to path ("-": stdout); 0, or -1 with errno. */
int kcidb_write(struct kcidb *k, const char *path);
void kcidb_free(struct kcidb *k);

/* file:// URL of a local path (made absolute), or PREFIX/basename when
 * $KCIDB_LOG_URL is set (where a lab publishes its logs). */
char *kcidb_log_url(const char *path);

#endif
