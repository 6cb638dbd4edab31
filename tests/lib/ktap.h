/*
 * A minimal KTAP v1 test runner for host unit tests, shaped like KUnit:
 * suites of cases, each suite a nested subtest.  Output:
 *
 *   KTAP version 1
 *   1..2
 *       KTAP version 1
 *       # Subtest: check
 *       1..3
 *       ok 1 bad_magic
 *       # test_check.c:42: expected ... got ...   (diagnostics of case 2)
 *       not ok 2 bad_class
 *       ...
 *   not ok 1 check
 *
 * KT_EXPECT*() records a failure and goes on; KT_ASSERT*() also ends the
 * case.  main() exits non-zero if any case failed.
 */
#ifndef TESTS_MODLOADER_KTAP_H
#define TESTS_MODLOADER_KTAP_H

#include <setjmp.h>
#include <stdbool.h>

struct kt {
	bool failed;
	jmp_buf abort;
};

struct kt_case {
	const char *name;
	void (*fn)(struct kt *t);
};

struct kt_suite {
	const char *name;
	const struct kt_case *cases; /* ends with a {NULL, NULL} entry */
};

#define KT_CASE(fn)                                                            \
	{                                                                      \
#fn, fn                                                        \
	}
#define KT_END                                                                 \
	{                                                                      \
		NULL, NULL                                                     \
	}

void kt_fail(struct kt *t, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void kt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs the suites; returns the exit status for main(). */
int kt_run(const struct kt_suite *const *suites, int n);

#define KT_EXPECT(t, cond)                                                     \
	((cond) ? (void)0                                                      \
	        : kt_fail(t, __FILE__, __LINE__, "expected %s", #cond))
#define KT_ASSERT(t, cond)                                                     \
	do {                                                                   \
		if (!(cond)) {                                                 \
			kt_fail(t, __FILE__, __LINE__, "assertion %s failed",  \
			        #cond);                                        \
			longjmp((t)->abort, 1);                                \
		}                                                              \
	} while (0)
#define KT_EXPECT_EQ(t, a, b)                                                  \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ != b_)                                                  \
			kt_fail(t, __FILE__, __LINE__,                         \
			        "%s == %s: 0x%llx != 0x%llx", #a, #b, a_, b_); \
	} while (0)
#define KT_EXPECT_STREQ(t, a, b)                                               \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)           \
			kt_fail(t, __FILE__, __LINE__,                         \
			        "%s == %s: \"%s\" != \"%s\"", #a, #b,          \
			        a_ ? a_ : "(null)", b_ ? b_ : "(null)");       \
	} while (0)

#endif
