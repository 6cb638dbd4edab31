/*
 * Unit tests of the KCIDB writer (tests/kcidb/kcidb.c) and of the
 * harness's runs as KCIDB tests (kcidbrun.c): JSON string escaping
 * (json_quote, tests/lava/json.c),
 * path components, origins, times, bench lines, statuses.
 */
#include <stdlib.h>
#include <unistd.h>

#include "tests/harness/kcidbrun.h"
#include "tests/harness/unittest.h"
#include "tests/lava/json.h"

static char *
json_of(const char *s)
{
	struct strbuf sb;

	sb_init(&sb);
	json_quote(&sb, s);
	return sb.buf;
}

static char *
path_of(const char *dotted)
{
	struct strbuf sb;

	sb_init(&sb);
	kcidb_path_add1(&sb, "modref");
	kcidb_path_add(&sb, dotted);
	return sb.buf;
}

/* fn(in) must give out; the failure says what it gave. */
#define CHECK_GIVES(fn, in, out)                                               \
	do {                                                                   \
		char *g_ = fn(in);                                             \
		int same_ = strcmp(g_, out) == 0;                              \
		if (!same_ && ut_failure[0] == '\0')                           \
			snprintf(ut_failure, sizeof(ut_failure),               \
			         "%s:%d: %s gave %s", __FILE__, __LINE__, #in, \
			         g_);                                          \
		free(g_);                                                      \
		if (!same_)                                                    \
			return;                                                \
	} while (0)

static void
kcidb_json_escape(void)
{
	CHECK_GIVES(json_of, "plain", "\"plain\"");
	CHECK_GIVES(json_of, "", "\"\"");
	CHECK_GIVES(json_of, "a\"b\\c", "\"a\\\"b\\\\c\"");
	CHECK_GIVES(json_of, "l1\nl2\tx\r", "\"l1\\nl2\\tx\\r\"");
	CHECK_GIVES(json_of, "bell\x07 esc\x1b del\x7f",
	            "\"bell\\u0007 esc\\u001b "
	            "del\\u007f\"");
	/* Valid UTF-8 stays as it is; broken bytes become U+FFFD. */
	CHECK_GIVES(json_of, "caf\xc3\xa9 \xe2\x82\xac",
	            "\"caf\xc3\xa9 \xe2\x82\xac\"");
	CHECK_GIVES(json_of, "bad\xff\xfe", "\"bad\\ufffd\\ufffd\"");
	CHECK_GIVES(json_of, "cut\xc3", "\"cut\\ufffd\"");
	CHECK_GIVES(json_of, "overlong\xc0\xaf", "\"overlong\\ufffd\\ufffd\"");
	CHECK_GIVES(json_of, "surrogate\xed\xa0\x80",
	            "\"surrogate\\ufffd\\ufffd\\ufffd\"");
}

static void
kcidb_paths(void)
{
	struct strbuf sb;

	CHECK_GIVES(path_of, "refs.dev_hold_put", "modref.refs.dev_hold_put");
	CHECK_GIVES(path_of, "refs.dev/hold", "modref.refs.dev_hold");
	CHECK_GIVES(path_of, "suite.#3", "modref.suite.3");
	CHECK_GIVES(path_of, "suite.(suite)", "modref.suite.suite");
	CHECK_GIVES(path_of, "a..b", "modref.a._.b");
	CHECK_GIVES(path_of, ".x.", "modref._.x._");
	CHECK_GIVES(path_of, "k-8 sp ace", "modref.k-8_sp_ace");
	CHECK_GIVES(path_of, "\xc3\xa9t\xc3\xa9", "modref.t");
	sb_init(&sb);
	kcidb_path_add1(&sb, "rmmod[default].x");
	CHECK_STR(sb.buf, "rmmod_default_x");
	sb_free(&sb);
}

static void
kcidb_origins(void)
{
	char err[256];

	CHECK(kcidb_origin_ok("modref"));
	CHECK(kcidb_origin_ok("lab_2"));
	CHECK(!kcidb_origin_ok(""));
	CHECK(!kcidb_origin_ok("Modref"));
	CHECK(!kcidb_origin_ok("mod-ref"));
	CHECK(!kcidb_origin_ok("a:b"));
	unsetenv("KCIDB_ORIGIN");
	CHECK_STR(kcidb_origin(NULL, err, sizeof(err)), "modref");
	setenv("KCIDB_ORIGIN", "lab_x", 1);
	CHECK_STR(kcidb_origin(NULL, err, sizeof(err)), "lab_x");
	CHECK_STR(kcidb_origin("opt", err, sizeof(err)), "opt");
	setenv("KCIDB_ORIGIN", "Bad Lab", 1);
	CHECK(kcidb_origin(NULL, err, sizeof(err)) == NULL);
	unsetenv("KCIDB_ORIGIN");
	CHECK_STR(err, "KCIDB_ORIGIN 'Bad Lab': a KCIDB origin is lower-case "
	               "letters, digits and '_' (^[a-z0-9_]+$)");
}

static void
kcidb_times(void)
{
	struct timeval tv = {.tv_sec = 1700000000, .tv_usec = 42};
	char buf[64];

	kcidb_time(buf, sizeof(buf), &tv);
	CHECK_STR(buf, "2023-11-14T22:13:20.000042+00:00");
	CHECK(kcidb_time_ok(buf));
	CHECK(kcidb_time_ok("2024-02-29T00:00:00Z"));
	CHECK(kcidb_time_ok("2024-05-01T10:00:00.5-02:30"));
	CHECK(!kcidb_time_ok("2023-02-29T00:00:00Z"));
	CHECK(!kcidb_time_ok("2024-05-01T24:00:00Z"));
	CHECK(!kcidb_time_ok("2024-05-01T10:00:00"));
	CHECK(!kcidb_time_ok("2024-05-01T10:00:00.Z"));
	CHECK(!kcidb_time_ok("2024-5-01T10:00:00Z"));
	CHECK(!kcidb_time_ok(""));
}

static void
kcidb_bench(void)
{
	char *g = NULL, *l = NULL, *u = NULL;
	double v = 0;

	CHECK(kcidb_bench_line("bench: devref: owner          37 cycles    "
	                       "11.2 ns  1.30x",
	                       &g, &l, &v, &u));
	CHECK_STR(g, "devref");
	CHECK_STR(l, "owner");
	CHECK(v == 37);
	CHECK_STR(u, "cycles");
	free(g), free(l), free(u);
	CHECK(kcidb_bench_line("### harness: host| bench: devref-contended: "
	                       "wait/atomic  cpus 2    41 cycles/pair  99 "
	                       "kpairs/s",
	                       &g, &l, &v, &u));
	CHECK_STR(g, "devref-contended");
	CHECK_STR(l, "wait/atomic cpus 2");
	CHECK(v == 41);
	CHECK_STR(u, "cycles/pair");
	free(g), free(l), free(u);
	CHECK(kcidb_bench_line("bench: jumps: call far 2.125 ns a round, "
	                       "+1.000 ns on add10",
	                       &g, &l, &v, &u));
	CHECK_STR(l, "call far");
	CHECK(v == 2.125);
	CHECK_STR(u, "ns");
	free(g), free(l), free(u);
	/* Headers (a figure first), words only, other lines: nothing. */
	CHECK(!kcidb_bench_line("bench: jumps: 1000000 rounds, best of 3: "
	                        "add10 1.0 ns a round",
	                        &g, &l, &v, &u));
	CHECK(!kcidb_bench_line(
	    "bench: devref: owner variant used module e1000", &g, &l, &v, &u));
	CHECK(!kcidb_bench_line("modref> bench devref 50", &g, &l, &v, &u));
	CHECK(!kcidb_bench_line("bench: ERANGE: PAIRS 0 is out of range "
	                        "1..10000000",
	                        &g, &l, &v, &u));
	CHECK(!kcidb_bench_line("bench: nocolon 5 ms", &g, &l, &v, &u));
	CHECK(!kcidb_bench_line("bench: x: label inf ms", &g, &l, &v, &u));
}

static void
kcidb_statuses(void)
{
	struct point p = {.status = PT_PASS, .reason = ""};

	CHECK_STR(kcidb_point_status(&p), "PASS");
	p.status = PT_SKIP;
	CHECK_STR(kcidb_point_status(&p), "SKIP");
	p.status = PT_FAIL;
	p.reason = "line 3: timeout after 30s";
	CHECK_STR(kcidb_point_status(&p), "FAIL");
	p.reason = "harness run process killed by signal 9";
	CHECK_STR(kcidb_point_status(&p), "ERROR");
}

/* A run's points and the bench line in its log, as tests of a document. */
static void
kcidb_run_tests(void)
{
	char log[] = "/tmp/ut-kcidb-XXXXXX";
	int fd = mkstemp(log);
	struct report r;
	struct kcidb k;
	struct timeval tv = {.tv_sec = 1700000000};
	static const char text[] = "modref> bench devref\n"
	                           "bench: devref: wait/atomic 37 cycles\n";
	bool wrote;

	CHECK(fd >= 0);
	wrote = write(fd, text, sizeof(text) - 1) == sizeof(text) - 1;
	close(fd);
	CHECK(wrote);
	setenv("KCIDB_GIT_COMMIT", "0123456789abcdef0123456789abcdef01234567",
	       1);
	setenv("KCIDB_LOG_URL", "https://lab.example/logs", 1);
	kcidb_begin(&k, "modref", NULL);
	unsetenv("KCIDB_GIT_COMMIT");
	report_init(&r);
	report_add(&r, PT_FAIL, "rm[smp2] refs.dev_hold", "refs.c:8: \"x\"");
	report_add(&r, PT_PASS, "rm[smp2]", "");
	kcidb_add_run(&k, "rm", "smp2", &r, log, &tv, 1.5);
	unsetenv("KCIDB_LOG_URL");
	unlink(log);
	report_free(&r);
	CHECK_STR(k.checkout_id,
	          "modref:0123456789abcdef0123456789abcdef01234567");
	CHECK_STR(k.build_id,
	          "modref:0123456789abcdef0123456789abcdef01234567:i386");
	CHECK(k.ntests == 3);
	CHECK_HAS(k.tests.buf, "\"path\": \"modref.rm.smp2.refs.dev_hold\",\n"
	                       "      \"status\": \"FAIL\"");
	CHECK_HAS(k.tests.buf, "\"comment\": \"refs.c:8: \\\"x\\\"\"");
	CHECK_HAS(k.tests.buf, "\"path\": \"modref.rm.smp2\",\n"
	                       "      \"status\": \"PASS\",\n"
	                       "      \"start_time\": "
	                       "\"2023-11-14T22:13:20.000000+00:00\",\n"
	                       "      \"duration\": 1.500");
	CHECK_HAS(k.tests.buf, "\"path\": \"modref.rm.smp2.bench.devref."
	                       "wait_atomic\",\n      \"status\": \"DONE\"");
	CHECK_HAS(k.tests.buf, "\"number\": {\"value\": 37, \"unit\": "
	                       "\"cycles\"}");
	CHECK_HAS(k.tests.buf, "\"log_url\": \"https://lab.example/logs/ut-");
	kcidb_free(&k);
}

static const struct tcase kcidb_cases[] = {
    T(kcidb_json_escape), T(kcidb_paths),    T(kcidb_origins),  T(kcidb_times),
    T(kcidb_bench),       T(kcidb_statuses), T(kcidb_run_tests)};

const struct suite kcidb_suite = {"kcidb", kcidb_cases, N(kcidb_cases)};
