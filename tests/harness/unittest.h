/*
 * The small unit-test framework shared by harness-unittest's files: a
 * test is a void function that leaves at its first failed CHECK, having
 * recorded file, line and expression in ut_failure.  Suites are tables
 * of tests; unittest.c prints them as KTAP.
 */
#ifndef HARNESS_UNITTEST_H
#define HARNESS_UNITTEST_H

#include <stdio.h>
#include <string.h>

extern char ut_failure[512];

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			if (ut_failure[0] == '\0')                             \
				snprintf(ut_failure, sizeof(ut_failure),       \
				         "%s:%d: %s", __FILE__, __LINE__,      \
				         #cond);                               \
			return;                                                \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)        CHECK(strcmp((a), (b)) == 0)
#define CHECK_HAS(hay, needle) CHECK(strstr((hay), (needle)) != NULL)

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define T(f)                                                                   \
	{                                                                      \
#f, f                                                          \
	}

struct tcase {
	const char *name;
	void (*fn)(void);
};

struct suite {
	const char *name;
	const struct tcase *cases;
	int n;
};

extern const struct suite script_suite, profile_suite, ktap_suite, qemu_suite,
    console_suite, report_suite, audit_suite, tap_suite, kcidb_suite;

#endif
