/*
 * In-kernel tests with KTAP v1 output (the format of Linux's KUnit).
 * A suite is a list of cases; each case runs in its own kernel thread, so
 * a failed KASSERT ends just that case.  KEXPECT_* records a failure and
 * continues; KASSERT_* records it and ends the case.  Suites declared with
 * KTEST_SUITE() are collected by the linker; modules register theirs with
 * ktest_register().
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>
#include <kernel/lib/list.h>

struct ktest {
	const char *name;
	int failures;
	bool skipped;
	char skip_reason[80];
};

struct ktest_case {
	const char *name;
	void (*fn)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	int ncases;
	struct list_head link;
};

#define KTEST_CASE(f)                                                          \
	{                                                                      \
#f, f                                                          \
	}
#define KTEST_SUITE(sname, ...)                                                \
	static const struct ktest_case __ktest_cases_##sname[] = {             \
	    __VA_ARGS__};                                                      \
	static struct ktest_suite __ktest_suite_##sname __attribute__((        \
	    section(".ktest_suites"), used, aligned(4))) = {                   \
	    #sname,                                                            \
	    __ktest_cases_##sname,                                             \
	    sizeof(__ktest_cases_##sname) / sizeof(__ktest_cases_##sname[0]),  \
	    {0, 0}}

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
/* A KTAP diagnostic line for the case ("# case: ..."), not a failure:
 * what a case measured, or why it excused something. */
void ktest_note(struct ktest *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
__attribute__((noreturn)) void ktest_abort(struct ktest *t);
void ktest_skip(struct ktest *t, const char *reason);

#define KEXPECT_MSG(t, cond, ...)                                              \
	do {                                                                   \
		if (!(cond))                                                   \
			ktest_fail(t, __FILE__, __LINE__, __VA_ARGS__);        \
	} while (0)
#define KEXPECT_TRUE(t, cond) KEXPECT_MSG(t, cond, "expected %s", #cond)
#define KEXPECT_EQ(t, a, b)                                                    \
	do {                                                                   \
		long long __a = (long long)(a), __b = (long long)(b);          \
		if (__a != __b)                                                \
			ktest_fail(t, __FILE__, __LINE__,                      \
			           "expected %s == %s, got %lld != %lld", #a,  \
			           #b, __a, __b);                              \
	} while (0)
#define KEXPECT_NE(t, a, b)                                                    \
	do {                                                                   \
		long long __a = (long long)(a), __b = (long long)(b);          \
		if (__a == __b)                                                \
			ktest_fail(t, __FILE__, __LINE__,                      \
			           "expected %s != %s, both %lld", #a, #b,     \
			           __a);                                       \
	} while (0)
#define KASSERT_TRUE(t, cond)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			ktest_fail(t, __FILE__, __LINE__, "assertion %s",      \
			           #cond);                                     \
			ktest_abort(t);                                        \
		}                                                              \
	} while (0)

void ktest_register(struct ktest_suite *s);
void ktest_unregister(struct ktest_suite *s);
/* Run suites by name (NULL or "all": every suite); prints KTAP.  Returns
 * the number of failed cases, or -ENOENT naming the unknown suite. */
int ktest_run(int nnames, char **names);

#endif
