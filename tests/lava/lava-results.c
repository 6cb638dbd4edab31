/*
 * lava-results: reads what LAVA recorded for modref jobs.
 *
 *   lava-results cases LOG          every test case of one job, one line
 *                                   each: "definition.case result"
 *   lava-results compare LOG TAP    the KTAP cases LAVA saw against the
 *                                   harness's TAP for the same image
 *   lava-results report DIR         a directory of job logs (NAME.log,
 *                                   with NAME.yaml beside it when the
 *                                   job file is at hand) into the
 *                                   campaign report, Markdown on stdout
 *   lava-results kcidb [--origin O] [--kernel ELF] [--out FILE]
 *                      DIR|LOG...   the jobs as KCIDB report data
 *                                   (tests/kcidb/kcidb.h): one test per
 *                                   job, modref.JOB, and one per case,
 *                                   modref.JOB.SUITE.CASE
 *
 * A log is what lava-run prints, or what a LAVA server's API returns for a
 * job: one JSON record per line, {"dt", "lvl", "msg"}.  Records with lvl
 * "results" are test cases; those with definition "lava" are LAVA's own
 * actions and the job verdict, which is not the test verdict: lava-run
 * exits 0 with failing cases, and a monitor whose pattern never matched
 * still passes.  So `cases` and `compare` fail on a job with zero cases
 * and on any failing case, and `compare` on any difference.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/harness/util.h"
#include "tests/kcidb/kcidb.h"
#include "tests/lava/json.h"

struct tcase {
	char *name;     /* suite.case for KTAP, definition.case otherwise */
	char *result;   /* pass, fail, skip, unknown */
	char *dt;       /* when LAVA recorded it, or NULL */
	double seconds; /* LAVA's duration, or -1 */
};

struct job {
	char *name;
	struct tcase *cases;
	int ncases;
	char *verdict; /* LAVA's "job" result, or NULL if none was logged */
	char *error;   /* the job's error_msg, if any */
	char *replay;  /* the kernel's own replay line, if it printed one */
	int panics;    /* KERNEL PANIC / EXCEPTION lines in the output */
	char *first_dt, *last_dt; /* the first and last record's "dt" */
};

static void
add_case(struct job *j, const char *name, const char *result, const char *dt,
         double seconds)
{
	j->cases = xrealloc(j->cases, (j->ncases + 1) * sizeof(*j->cases));
	j->cases[j->ncases].name = xstrdup(name);
	j->cases[j->ncases].result = xstrdup(result);
	j->cases[j->ncases].dt = dt ? xstrdup(dt) : NULL;
	j->cases[j->ncases].seconds = seconds;
	j->ncases++;
}

/* LAVA's "duration": "0.04" as seconds, or -1. */
static double
lava_seconds(const char *s)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtod(s, &end);
	return *end == '\0' && v >= 0 && v < 1e9 ? v : -1;
}

/* One "results" record: LAVA's own, or a test case. */
static void
take_result(struct job *j, const struct json *msg, const char *dt)
{
	const char *def = json_str(msg, "definition");
	const char *cas = json_str(msg, "case");
	const char *res = json_str(msg, "result");
	const char *id = json_str(json_get(msg, "extra"), "test_case_id");

	if (def == NULL || cas == NULL || res == NULL)
		return;
	if (strcmp(def, "lava") == 0) {
		if (strcmp(cas, "job") == 0) {
			const char *e = json_str(msg, "error_msg");
			free(j->verdict);
			j->verdict = xstrdup(res);
			if (e != NULL && j->error == NULL)
				j->error = xstrdup(e);
		}
		return;
	}
	/* KTAP monitors keep the original "suite.case" in extra. */
	if (strcmp(def, "ktest") == 0 && id != NULL) {
		add_case(j, id, res, dt,
		         lava_seconds(json_str(msg, "duration")));
	} else {
		char *n = xasprintf("%s.%s", def, cas);
		add_case(j, n, res, dt,
		         lava_seconds(json_str(msg, "duration")));
		free(n);
	}
}

static void
take_target(struct job *j, const char *line)
{
	const char *r = strstr(line, "replay: ");

	if (strstr(line, "KERNEL PANIC") || strstr(line, "EXCEPTION") ||
	    strstr(line, "use-after-unload:"))
		j->panics++;
	if (r != NULL && j->replay == NULL && strstr(line, "stress"))
		j->replay = xstrdup(r + 8);
}

/* Reads a log; exits 2 with a one-line error on unreadable input. */
static struct job *
read_log(const char *path)
{
	char *text = read_file(path), *line, *save = NULL;
	struct job *j = xcalloc(1, sizeof(*j));
	int lineno = 0;

	if (text == NULL) {
		fprintf(stderr, "lava-results: %s: %s\n", path,
		        strerror(errno));
		exit(2);
	}
	j->name = xstrdup(path);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char err[128];
		struct json *rec;
		const char *lvl, *dt;
		const struct json *msg;

		lineno++;
		/* lava-run's own YAML-ish lines ("- {...}") from older
		 * versions carry the record after the dash. */
		if (line[0] == '-' && line[1] == ' ')
			line += 2;
		if (line[0] != '{')
			continue;
		rec = json_parse(line, err, sizeof(err));
		if (rec == NULL) {
			fprintf(stderr, "lava-results: %s:%d: %s\n", path,
			        lineno, err);
			exit(2);
		}
		lvl = json_str(rec, "lvl");
		msg = json_get(rec, "msg");
		dt = json_str(rec, "dt");
		if (dt != NULL) {
			if (j->first_dt == NULL)
				j->first_dt = xstrdup(dt);
			free(j->last_dt);
			j->last_dt = xstrdup(dt);
		}
		if (lvl != NULL && strcmp(lvl, "results") == 0)
			take_result(j, msg, dt);
		else if (lvl != NULL && strcmp(lvl, "target") == 0 && msg &&
		         msg->type == J_STR)
			take_target(j, msg->str);
		json_free(rec);
	}
	free(text);
	return j;
}

static int
count(const struct job *j, const char *result)
{
	int n = 0;

	for (int i = 0; i < j->ncases; i++)
		n += strcmp(j->cases[i].result, result) == 0;
	return n;
}

static int
cmd_cases(const char *log)
{
	struct job *j = read_log(log);
	int bad = 0;

	for (int i = 0; i < j->ncases; i++)
		printf("%s %s\n", j->cases[i].name, j->cases[i].result);
	printf("# %d cases: %d pass, %d fail, %d skip; job %s\n", j->ncases,
	       count(j, "pass"), count(j, "fail"), count(j, "skip"),
	       j->verdict ? j->verdict : "(no verdict)");
	if (j->ncases == 0) {
		fprintf(stderr, "lava-results: %s: no test cases recorded\n",
		        log);
		bad = 1;
	}
	if (count(j, "fail") + count(j, "unknown") > 0)
		bad = 1;
	if (j->verdict == NULL || strcmp(j->verdict, "pass") != 0) {
		fprintf(stderr, "lava-results: %s: job %s%s%s\n", log,
		        j->verdict ? j->verdict : "ended without a verdict",
		        j->error ? ": " : "", j->error ? j->error : "");
		bad = 1;
	}
	return bad;
}

/*
 * The harness's TAP: "ok N - scn[profile] suite.case[ # SKIP why]" or
 * "not ok N - scn[profile] suite.case # why".  Lines without a case name
 * after the bracket are the scenario's own result.
 */
static int
read_tap(const char *path, struct job *t)
{
	char *text = read_file(path), *line, *save = NULL;

	if (text == NULL) {
		fprintf(stderr, "lava-results: %s: %s\n", path,
		        strerror(errno));
		exit(2);
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int notok = starts_with(line, "not ok ");
		char *br, *name, *end;
		const char *res;

		if (!notok && !starts_with(line, "ok "))
			continue;
		if ((br = strstr(line, "] ")) == NULL)
			continue;
		name = br + 2;
		end = name + strcspn(name, " ");
		if (end == name || *name == '#')
			continue;
		res = notok                           ? "fail"
		      : strstr(end, "# SKIP") != NULL ? "skip"
		                                      : "pass";
		*end = '\0';
		add_case(t, name, res, NULL, -1);
	}
	free(text);
	return 0;
}

static const char *
find_result(const struct job *j, const char *name)
{
	for (int i = 0; i < j->ncases; i++)
		if (strcmp(j->cases[i].name, name) == 0)
			return j->cases[i].result;
	return NULL;
}

static int
cmd_compare(const char *log, const char *tap)
{
	struct job *l = read_log(log), h = {0};
	int diffs = 0;

	read_tap(tap, &h);
	for (int i = 0; i < l->ncases; i++) {
		const char *r = find_result(&h, l->cases[i].name);
		if (r == NULL) {
			printf("only in LAVA: %s %s\n", l->cases[i].name,
			       l->cases[i].result);
			diffs++;
		} else if (strcmp(r, l->cases[i].result) != 0) {
			printf("differs: %s: LAVA %s, harness %s\n",
			       l->cases[i].name, l->cases[i].result, r);
			diffs++;
		}
	}
	for (int i = 0; i < h.ncases; i++)
		if (find_result(l, h.cases[i].name) == NULL) {
			printf("only in harness: %s %s\n", h.cases[i].name,
			       h.cases[i].result);
			diffs++;
		}
	printf("# %s: %d LAVA cases, %d harness cases, %d differences\n", log,
	       l->ncases, h.ncases, diffs);
	if (l->ncases == 0) {
		fprintf(stderr, "lava-results: %s: no test cases recorded\n",
		        log);
		return 1;
	}
	return diffs > 0;
}

/* "modref.KEY: 'value'" from the job file beside the log, or NULL. */
static char *
job_meta(const char *log, const char *key)
{
	size_t n = strlen(log);
	char *yaml, *text, *p, *q, *want, *val = NULL;

	if (n < 4 || strcmp(log + n - 4, ".log") != 0)
		return NULL;
	yaml = xasprintf("%.*s.yaml", (int)(n - 4), log);
	text = read_file(yaml);
	free(yaml);
	if (text == NULL)
		return NULL;
	want = xasprintf("modref.%s: '", key);
	if ((p = strstr(text, want)) != NULL) {
		p += strlen(want);
		if ((q = strchr(p, '\'')) != NULL)
			val = xstrndup(p, (size_t)(q - p));
	}
	free(want);
	free(text);
	return val;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every NAME.log in dir, sorted; NULL (with a message) if unreadable. */
static char **
list_logs(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0;

	if (d == NULL) {
		fprintf(stderr, "lava-results: %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l > 4 && strcmp(e->d_name + l - 4, ".log") == 0) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), by_name);
	*count = n;
	return names ? names : xcalloc(1, sizeof(*names));
}

static int
cmd_report(const char *dir)
{
	char **names;
	int n = 0, jobs_failed = 0;

	if ((names = list_logs(dir, &n)) == NULL)
		return 2;
	printf("# modref LAVA results: %s\n\n", dir);
	printf("| job | refmode | cases | pass | fail | skip | verdict |\n"
	       "|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		struct job *j = read_log(names[i]);
		char *rm = job_meta(names[i], "refmode");
		int bad = j->ncases == 0 || count(j, "fail") > 0 ||
		          (j->verdict && strcmp(j->verdict, "pass") != 0);

		printf("| %s | %s | %d | %d | %d | %d | %s |\n", names[i],
		       rm ? rm : "-", j->ncases, count(j, "pass"),
		       count(j, "fail"), count(j, "skip"),
		       j->verdict ? j->verdict : "none");
		free(rm);
		jobs_failed += bad;
	}
	printf("\n## Failures, with the command that replays each\n\n");
	for (int i = 0; i < n; i++) {
		struct job *j = read_log(names[i]);
		char *rm = job_meta(names[i], "refmode");
		char *replay = job_meta(names[i], "replay");
		int bad = j->ncases == 0 || count(j, "fail") > 0 ||
		          (j->verdict && strcmp(j->verdict, "pass") != 0);

		if (bad) {
			printf("- %s (refmode %s): %d failing case(s)%s%s\n",
			       names[i], rm ? rm : "-", count(j, "fail"),
			       j->ncases == 0 ? ", no cases recorded" : "",
			       j->panics ? ", kernel reports in the output"
			                 : "");
			for (int c = 0; c < j->ncases; c++)
				if (strcmp(j->cases[c].result, "fail") == 0)
					printf("  - %s\n", j->cases[c].name);
			printf("  - replay: `%s`\n", j->replay ? j->replay
			                             : replay
			                                 ? replay
			                                 : "(not recorded)");
		}
		free(rm);
		free(replay);
	}
	if (jobs_failed == 0)
		printf("none: %d job(s), all passed\n", n);
	return jobs_failed > 0 || n == 0;
}

/* LAVA's "dt" (UTC, no zone) as RFC 3339; NULL when it is not a time. */
static char *
lava_time(const char *dt)
{
	char *t;

	if (dt == NULL)
		return NULL;
	t = kcidb_time_ok(dt) ? xstrdup(dt) : xasprintf("%s+00:00", dt);
	if (!kcidb_time_ok(t)) {
		free(t);
		return NULL;
	}
	return t;
}

/* Seconds from LAVA's dt a to dt b, or -1. */
static double
lava_span(const char *a, const char *b)
{
	struct tm ta = {0}, tb = {0};
	const char *ea, *eb;

	if (a == NULL || b == NULL ||
	    (ea = strptime(a, "%Y-%m-%dT%H:%M:%S", &ta)) == NULL ||
	    (eb = strptime(b, "%Y-%m-%dT%H:%M:%S", &tb)) == NULL)
		return -1;
	double d = difftime(timegm(&tb), timegm(&ta)) +
	           (*eb == '.' ? atof(eb) : 0) - (*ea == '.' ? atof(ea) : 0);
	return d >= 0 ? d : -1;
}

static const char *
case_status(const char *result)
{
	return strcmp(result, "pass") == 0   ? "PASS"
	       : strcmp(result, "fail") == 0 ? "FAIL"
	       : strcmp(result, "skip") == 0 ? "SKIP"
	                                     : "ERROR";
}

/*
 * The job as a whole: ERROR when LAVA did not finish it (no verdict or
 * not pass) or it has no case (a monitor that matched nothing), FAIL
 * with a failing case, else PASS.
 */
static const char *
job_status(const struct job *j)
{
	if (j->verdict == NULL || strcmp(j->verdict, "pass") != 0 ||
	    j->ncases == 0)
		return "ERROR";
	for (int i = 0; i < j->ncases; i++)
		if (strcmp(case_status(j->cases[i].result), "PASS") != 0 &&
		    strcmp(j->cases[i].result, "skip") != 0)
			return "FAIL";
	return "PASS";
}

static void
kcidb_job(struct kcidb *k, const char *log)
{
	struct job *j = read_log(log);
	const char *base = strrchr(log, '/');
	char *name, *url = kcidb_log_url(log), *start = lava_time(j->first_dt);
	char *replay = job_meta(log, "replay");
	struct strbuf path;
	const char *misc[] = {"lava_job",
	                      NULL,
	                      "lava_verdict",
	                      j->verdict ? j->verdict : "none",
	                      replay ? "replay" : NULL,
	                      replay,
	                      NULL};

	base = base ? base + 1 : log;
	name =
	    xstrndup(base, strlen(base) > 4 &&
	                           strcmp(base + strlen(base) - 4, ".log") == 0
	                       ? strlen(base) - 4
	                       : strlen(base));
	misc[1] = name;
	sb_init(&path);
	kcidb_path_add1(&path, "modref");
	kcidb_path_add1(&path, name);
	kcidb_add_test(k, &(struct kcidb_test){
	                      .path = path.buf,
	                      .status = job_status(j),
	                      .start_time = start,
	                      .duration = lava_span(j->first_dt, j->last_dt),
	                      .log_url = url,
	                      .comment = j->error,
	                      .misc = misc});
	for (int i = 0; i < j->ncases; i++) {
		struct strbuf cp;
		char *cs = lava_time(j->cases[i].dt);

		sb_init(&cp);
		sb_adds(&cp, path.buf);
		kcidb_path_add(&cp, j->cases[i].name);
		kcidb_add_test(k, &(struct kcidb_test){
		                      .path = cp.buf,
		                      .status = case_status(j->cases[i].result),
		                      .start_time = cs,
		                      .duration = j->cases[i].seconds,
		                      .log_url = url,
		                      .misc = misc});
		sb_free(&cp);
		free(cs);
	}
	sb_free(&path);
	free(name);
	free(url);
	free(start);
	free(replay);
}

static int
cmd_kcidb(int argc, char **argv)
{
	const char *out = "-", *origin_opt = NULL, *kernel = NULL, *origin;
	char err[256];
	struct kcidb k;
	int i = 0, njobs = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
		if (i + 1 >= argc)
			return -1;
		if (strcmp(argv[i], "--origin") == 0)
			origin_opt = argv[i + 1];
		else if (strcmp(argv[i], "--kernel") == 0)
			kernel = argv[i + 1];
		else if (strcmp(argv[i], "--out") == 0)
			out = argv[i + 1];
		else
			return -1;
	}
	if (i >= argc)
		return -1;
	if ((origin = kcidb_origin(origin_opt, err, sizeof(err))) == NULL) {
		fprintf(stderr, "lava-results: %s\n", err);
		return 2;
	}
	kcidb_begin(&k, origin, kernel);
	for (; i < argc; i++) {
		struct stat st;
		char **names;
		int n = 0;

		if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			kcidb_job(&k, argv[i]);
			njobs++;
			continue;
		}
		if ((names = list_logs(argv[i], &n)) == NULL)
			return 2;
		for (int l = 0; l < n; l++) {
			kcidb_job(&k, names[l]);
			free(names[l]);
		}
		free(names);
		njobs += n;
	}
	if (njobs == 0) {
		fprintf(stderr, "lava-results: kcidb: no job logs\n");
		return 1;
	}
	if (kcidb_write(&k, out) < 0) {
		fprintf(stderr, "lava-results: %s: %s\n", out, strerror(errno));
		return 2;
	}
	if (strcmp(out, "-") != 0)
		printf("# %d job(s), %d KCIDB test(s) in %s\n", njobs, k.ntests,
		       out);
	kcidb_free(&k);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "cases") == 0)
		return cmd_cases(argv[2]);
	if (argc == 4 && strcmp(argv[1], "compare") == 0)
		return cmd_compare(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "report") == 0)
		return cmd_report(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "kcidb") == 0) {
		int rc = cmd_kcidb(argc - 2, argv + 2);

		if (rc >= 0)
			return rc;
	}
	fprintf(stderr, "usage: lava-results cases LOG | compare LOG TAP | "
	                "report DIR\n"
	                "       lava-results kcidb [--origin O] [--kernel ELF] "
	                "[--out FILE] DIR|LOG...\n");
	return 2;
}
