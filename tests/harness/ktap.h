/*
 * Incremental KTAP v1 parser, in the spirit of Linux's kunit_parser.py.
 * Feed it output one line at a time (without the newline); lines that do
 * not look like KTAP (kernel log lines, command echoes) are ignored, so it
 * can read a console directly.  Nesting follows indentation.  Every leaf
 * test becomes one case named "suite.sub.case"; a suite that fails without
 * a failing case, or is skipped whole, becomes a case of its own.  When the
 * output stops early, ktap_finish() turns every test announced by a plan
 * but never reported into a "crashed" failure.
 */
#ifndef HARNESS_KTAP_H
#define HARNESS_KTAP_H

#include <stdbool.h>

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

struct ktap_case {
	char *name;
	enum ktap_status status;
	char *reason; /* diagnostics or skip reason; may be "" */
};

#define KTAP_MAX_DEPTH 8

struct ktap_level {
	int indent;
	char *name; /* from "# Subtest:", may be NULL */
	int plan;   /* -1 until "1..N" is seen */
	int nresults;
	int first_case; /* cases[] index where this level's cases start */
	int last_case;  /* case made by the latest leaf result, or -1 */
	char *pending;  /* diagnostics waiting for the next result */
};

struct ktap {
	bool started;
	bool done;
	int depth; /* open levels in lv[] */
	struct ktap_level lv[KTAP_MAX_DEPTH];
	struct ktap_case *cases;
	int ncases;
	char **suites; /* names of every suite seen, for ktap_has_suite */
	int nsuites;
};

void ktap_init(struct ktap *k);
void ktap_free(struct ktap *k);

/* Returns true once the top-level plan is complete. */
bool ktap_feed(struct ktap *k, const char *line);

/* Close open levels; missing results become "crashed: no result line (why)". */
void ktap_finish(struct ktap *k, const char *why);

bool ktap_has_suite(const struct ktap *k, const char *name);

/* Counts of cases by status, for summaries and tests. */
int ktap_count(const struct ktap *k, enum ktap_status st);

#endif
