/* KTAP v1 output for the host unit tests; see ktap.h. */
#include <stdarg.h>
#include <stdio.h>

#include "tests/lib/ktap.h"

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

/* Runs one case; setjmp lives here alone so nothing else is clobbered. */
static bool
run_case(const struct kt_case *c)
{
	static struct kt t; /* static: survives longjmp */

	t.failed = false;
	if (setjmp(t.abort) == 0)
		c->fn(&t);
	return !t.failed;
}

static bool
run_suite(const struct kt_suite *s)
{
	const struct kt_case *c;
	bool suite_ok = true, ok;
	int n = 0, i = 0;

	for (c = s->cases; c->name != NULL; c++)
		n++;
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", s->name,
	       n);
	for (c = s->cases; c->name != NULL; c++) {
		ok = run_case(c);
		printf("    %s %d %s\n", ok ? "ok" : "not ok", ++i, c->name);
		fflush(stdout);
		suite_ok &= ok;
	}
	return suite_ok;
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
