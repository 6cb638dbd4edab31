/*
 * harness-unittest: unit tests of the harness's own parsers and builders
 * (scenario scripts, profiles, KTAP, QEMU argv, console matching, report
 * format).  It prints KTAP, so tests/scenarios/harness-unit.scn runs it
 * with `host-ktap` and every case becomes a TAP point.  Exit status is 1
 * if any case failed.  The tests live in ut_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "tests/harness/unittest.h"

char ut_failure[512];

static const struct suite *const suites[] = {
    &script_suite, &profile_suite, &qemu_suite, &ktap_suite, &console_suite,
    &report_suite, &audit_suite,   &tap_suite,  &kcidb_suite};

int
main(void)
{
	int bad_suites = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", N(suites));
	for (int s = 0; s < N(suites); s++) {
		int bad = 0;

		printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n",
		       suites[s]->name, suites[s]->n);
		for (int i = 0; i < suites[s]->n; i++) {
			const char *name = suites[s]->cases[i].name +
			                   strlen(suites[s]->name) + 1;

			ut_failure[0] = '\0';
			suites[s]->cases[i].fn();
			if (ut_failure[0] == '\0') {
				printf("    ok %d %s\n", i + 1, name);
				continue;
			}
			bad++;
			printf("    not ok %d %s\n    # %s: %s\n", i + 1, name,
			       name, ut_failure);
		}
		printf("%s %d %s\n", bad ? "not ok" : "ok", s + 1,
		       suites[s]->name);
		bad_suites += bad > 0;
	}
	return bad_suites ? 1 : 0;
}
