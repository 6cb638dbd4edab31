/*
 * Unit tests: the KTAP parser, on documents shaped like what KUnit and
 * the modref kernel print, including the broken ones.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness/ktap.h"

#include "tests/harness/unittest.h"

/* ---- ktap ---------------------------------------------------------------- */

static bool
feed_all(struct ktap *k, const char *const *lines, int n)
{
	bool done = false;

	for (int i = 0; i < n; i++) {
		if (done)
			return false; /* must not be done before the end */
		done = ktap_feed(k, lines[i]);
	}
	return done;
}

static const struct ktap_case *
find(const struct ktap *k, const char *name)
{
	for (int i = 0; i < k->ncases; i++)
		if (strcmp(k->cases[i].name, name) == 0)
			return &k->cases[i];
	return NULL;
}

/* The document from the harness brief, with the console's noise. */
static void
ktap_example(void)
{
	static const char *const doc[] = {
	    "modref> ktest",
	    "KTAP version 1",
	    "1..2",
	    "    KTAP version 1",
	    "    # Subtest: alloc",
	    "    1..3",
	    "    ok 1 alloc_one_page",
	    "[    0.100000] page_alloc: 12 pages",
	    "    not ok 2 alloc_many",
	    "    # alloc_many: kernel/ktest/alloc.c:42: expected 3 == 4",
	    "    ok 3 free_twice # SKIP reason",
	    "ok 1 alloc",
	    "    KTAP version 1",
	    "    # Subtest: list",
	    "    1..1",
	    "    ok 1 list_add",
	    "ok 2 list",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 4);
	CHECK((c = find(&k, "alloc.alloc_one_page")) && c->status == KTAP_PASS);
	CHECK((c = find(&k, "alloc.alloc_many")) && c->status == KTAP_FAIL);
	CHECK_HAS(c->reason, "alloc.c:42: expected 3 == 4");
	CHECK((c = find(&k, "alloc.free_twice")) && c->status == KTAP_SKIP);
	CHECK_STR(c->reason, "reason");
	CHECK((c = find(&k, "list.list_add")) && c->status == KTAP_PASS);
	CHECK(ktap_has_suite(&k, "alloc") && ktap_has_suite(&k, "list"));
	CHECK(!ktap_has_suite(&k, "net"));
	ktap_free(&k);
}

/* A test announced by the plan but never reported is a crash. */
static void
ktap_crashed(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",     "    KTAP version 1",
	    "    # Subtest: mod", "    1..3", "    ok 1 load",
	    "    ok 2 unload",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(!feed_all(&k, doc, N(doc)));
	ktap_finish(&k, "prompt returned");
	CHECK(k.done);
	CHECK(k.ncases == 3);
	CHECK((c = find(&k, "mod.#3")) != NULL);
	CHECK(c->status == KTAP_FAIL);
	CHECK_STR(c->reason, "crashed: no result line (prompt returned)");
	CHECK(ktap_count(&k, KTAP_PASS) == 2);
	ktap_free(&k);
}

/* A whole suite that never started is one crashed case. */
static void
ktap_truncated_top(void)
{
	static const char *const doc[] = {
	    "KTAP version 1", "1..2",       "    KTAP version 1",
	    "    1..1",       "    ok 1 a", "ok 1 first",
	};
	struct ktap k;

	ktap_init(&k);
	CHECK(!feed_all(&k, doc, N(doc)));
	ktap_finish(&k, "QEMU exited");
	CHECK(k.ncases == 2);
	CHECK(find(&k, "first.a") != NULL);
	CHECK(find(&k, "#2") != NULL && find(&k, "#2")->status == KTAP_FAIL);
	ktap_free(&k);
}

/* KUnit prints failure diagnostics before the result line. */
static void
ktap_diag_before(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",
	    "    KTAP version 1", "    # Subtest: s",
	    "    1..1",           "    # t: EXPECTATION FAILED at x.c:9",
	    "    not ok 1 t",     "not ok 1 s",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 1);
	CHECK((c = find(&k, "s.t")) != NULL);
	CHECK_HAS(c->reason, "EXPECTATION FAILED at x.c:9");
	ktap_free(&k);
}

/* A suite that fails with every case passing (init failed) still fails. */
static void
ktap_suite_only_failure(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",
	    "1..1",
	    "    KTAP version 1",
	    "    1..0",
	    "    # s: init failed: ENOMEM",
	    "not ok 1 s",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK((c = find(&k, "s.(suite)")) != NULL);
	CHECK(c->status == KTAP_FAIL);
	CHECK_HAS(c->reason, "ENOMEM");
	ktap_free(&k);
}

/* Parameterised tests: three levels, no "# Subtest" lines (older KUnit). */
static void
ktap_three_levels(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",
	    "    1..1",           "        1..2",
	    "        ok 1 p0",    "        not ok 2 p1",
	    "    not ok 1 param", "not ok 1 outer",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 2);
	CHECK((c = find(&k, "outer.param.p1")) && c->status == KTAP_FAIL);
	CHECK((c = find(&k, "outer.param.p0")) && c->status == KTAP_PASS);
	ktap_free(&k);
}

/* Flat documents (host programs) name cases without a suite. */
static void
ktap_flat(void)
{
	static const char *const doc[] = {"TAP version 14", "1..3", "ok 1 a",
	                                  "not ok 2 - b # TODO later", "ok 3"};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(find(&k, "a") != NULL);
	CHECK((c = find(&k, "b")) && c->status == KTAP_FAIL);
	CHECK(find(&k, "#3") != NULL);
	ktap_free(&k);
}

/* Without a header nothing counts, and no plan at all is not a pass. */
static void
ktap_needs_header(void)
{
	struct ktap k;

	ktap_init(&k);
	CHECK(!ktap_feed(&k, "ok 1 looks_like_tap"));
	CHECK(!k.started && k.ncases == 0);
	CHECK(!ktap_feed(&k, "KTAP version 1"));
	ktap_finish(&k, "timeout");
	CHECK(k.ncases == 1 && k.cases[0].status == KTAP_FAIL);
	ktap_free(&k);
}

static const struct tcase ktap_cases[] = {T(ktap_example),
                                          T(ktap_crashed),
                                          T(ktap_truncated_top),
                                          T(ktap_diag_before),
                                          T(ktap_suite_only_failure),
                                          T(ktap_three_levels),
                                          T(ktap_flat),
                                          T(ktap_needs_header)};
const struct suite ktap_suite = {"ktap", ktap_cases, N(ktap_cases)};
