/* KTAP v1 output for the host unit tests; see ktap.h. */
#include <stdarg.h>
#include <stdio.h>

#include "tests/modloader/ktap.h"

void
kt_diag(const char *fmt, ...)
{
	va_list ap;

	printf("    # ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void
kt_fail(struct kt *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	t->failed = true;
	printf("    # %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static bool
run_suite(const struct kt_suite *s)
{
	const struct kt_case *c;
	bool suite_failed = false;
	int n = 0, i = 0;
	static struct kt t; /* static: survives longjmp */

	for (c = s->cases; c->name != NULL; c++)
		n++;
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", s->name,
	       n);
	for (c = s->cases; c->name != NULL; c++) {
		t.failed = false;
		if (setjmp(t.abort) == 0)
			c->fn(&t);
		printf("    %s %d %s\n", t.failed ? "not ok" : "ok", ++i,
		       c->name);
		fflush(stdout);
		suite_failed |= t.failed;
	}
	return !suite_failed;
}

int
kt_run(const struct kt_suite *const *suites, int n)
{
	int i, failed = 0;

	printf("KTAP version 1\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		bool ok = run_suite(suites[i]);

		printf("%s %d %s\n", ok ? "ok" : "not ok", i + 1,
		       suites[i]->name);
		failed += !ok;
	}
	fflush(stdout);
	return failed == 0 ? 0 : 1;
}
