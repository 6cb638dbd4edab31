/*
 * The mutation campaign (docs/repro.md): how strong is the test suite?
 * Each mutant file (tests/mutants/NAME.mutant) re-injects one bug, a
 * historical one as it was or a new one of a known family, as a header
 * and a unified diff.  For each, in a scratch copy of the tree:
 * restore the copy, apply the diff, build, then run the campaign's
 * scenarios in order until one fails.  A mutant is detected by the
 * first scenario that fails; the time to detection runs from the first
 * scenario's start to that failure.  One row per mutant, then the score.
 *
 *   mutants [-w DIR] [-l LIST] [-o REPORT] [-L LOGS] [-j N] [-P N]
 *           [-p PROBES] [-r RUNS] [-T SECS] [--no-repro] [--no-probes]
 *           [--ktap] MUTANT...
 *     -w DIR     the scratch copy (default build/mutants/tree): made from
 *                the tracked files of the tree and its build/, then kept
 *                between campaigns, so a build only redoes what a mutant
 *                touched
 *     -l LIST    the scenarios, one path a line, in the order they run
 *                (default tests/mutants/campaign.list; # comments)
 *     -o REPORT  a markdown table (default build/mutants/report.md)
 *     -L LOGS    the detecting runs' logs and make repro's output, per
 *                mutant (default build/mutants/logs)
 *     -j N       jobs for make and the harness (default 2)
 *     -P N       mutants at once (default 1, at most 8), each in a
 *                scratch copy of its own: DIR, DIR.1, DIR.2, ...
 *     -p PROBES  the repro probes (default tests/mutants/probes.list):
 *                for each detected mutant, make repro (build/host/repro
 *                -r RUNS) shrinks the detecting run (a lifetime
 *                stress run, a KTAP case, a fault sweep point or a
 *                scenario's steps), and if that is not reduced the
 *                failing runs of these lifetime stress scenarios under
 *                controlled schedules, then of the scenarios after
 *                the detecting one, in order, until one is; the
 *                table says to how many ops, from which run, and
 *                whether it fails every time
 *     -r RUNS    make repro's verifying runs (default 10)
 *     -T SECS    make repro's time for delta debugging, per run it
 *                shrinks (default 1800): a scenario whose trials take
 *                half a minute would otherwise use its 400 trials
 * make repro gets this tree, built and without the mutant, as its tree
 * without the bug (-S): a scenario trial that fails there too is not
 * the bug's.
 *     --no-repro the detection alone
 *     --no-probes make repro on the detecting run alone (no probes,
 *                no later scenarios)
 *     --ktap     a KTAP point per mutant, ok when its outcome is the one
 *                its header's `smoke:` line says (detected|undetected),
 *                for the campaign's own test in make test
 *
 * Run from the repo root.  Mutant files are input like any other: a
 * header line it does not know, a name that is not the file's, a path
 * outside the tree or a missing diff is refused with one line naming the
 * file, before anything runs.  The control mutant (family "control", a
 * comment changed) must come out undetected, or the campaign itself is
 * broken: exit 1.
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MUTANTS 64
#define MAX_TESTS   64
#define MAX_SLOTS   8
#define FIELD       256

struct mutant {
	char file[FIELD];
	char name[64];
	char family[FIELD];
	char origin[FIELD];
	char bug[FIELD];
	char expect[FIELD];
	char smoke[16]; /* "", "detected", "undetected" */
	/* outcome */
	const char *status; /* detected, undetected, no-apply, no-build */
	char by[FIELD];
	double secs;          /* to detection */
	bool expected_caught; /* by a scenario its expect: line names */
	/* make repro on the first failing probe's log */
	char repro[FIELD]; /* what came of it, for the table */
	long repro_ops;    /* the script's ops, -1: none */
	bool reduced;      /* to at most REDUCED_OPS, failing every run */
	double repro_secs; /* probes and make repro */
	int repro_runs;    /* make repro's runs so far */
};

static struct mutant mutants[MAX_MUTANTS];
static int nmutants;
static char tests[MAX_TESTS][FIELD];
static int ntests;
/* the repro probes (-p): lifetime stress runs under controlled
 * schedules, whose first failure make repro shrinks */
static char probes[MAX_TESTS][FIELD];
static int nprobes;
static bool repro = true;       /* --no-repro: off */
static int repro_budget = 1800; /* -T: make repro's delta debugging, s */
/* this tree, built: make repro's tree without the bug (-S) */
static char root[4096];
#define REDUCED_OPS 10 /* the bar for a reduced reproducer */

static double
now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Characters a path or name may have: it goes into a shell command. */
static bool
safe(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._/-", *s) != NULL))
			return false;
	return true;
}

static bool
tree_path(const char *p)
{
	return safe(p) && p[0] != '/' && strstr(p, "..") == NULL;
}

/* A mutant's process, stopped: its group with it (SA_RESETHAND: the
 * signal it sends itself then ends it). */
static void
stop_group(int sig)
{
	kill(0, sig);
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int
run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == -1 ? -1 : WIFEXITED(r) ? WEXITSTATUS(r) : 128;
}

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	                 s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* "# key: value" into the mutant; 0, or -1 with why. */
static int
header_line(struct mutant *m, const char *line, const char **why)
{
	static const char *const keys[] = {"mutant", "family", "origin",
	                                   "bug",    "expect", "smoke"};
	char *field[] = {m->name, m->family, m->origin,
	                 m->bug,  m->expect, m->smoke};
	size_t size[] = {sizeof(m->name), sizeof(m->family), sizeof(m->origin),
	                 sizeof(m->bug),  sizeof(m->expect), sizeof(m->smoke)};

	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		size_t n = strlen(keys[k]);

		if (strncmp(line + 2, keys[k], n) != 0 || line[2 + n] != ':')
			continue;
		const char *v = line + 3 + n;
		while (*v == ' ')
			v++;
		if (strlen(v) >= size[k]) {
			*why = "a header value is too long";
			return -1;
		}
		strcpy(field[k], v);
		return 0;
	}
	*why = "unknown header line";
	return -1;
}

/* Every path the diff touches must be inside the tree. */
static int
diff_line(const char *line, bool *has_diff, const char **why)
{
	char path[FIELD];

	if (strncmp(line, "--- ", 4) != 0 && strncmp(line, "+++ ", 4) != 0)
		return 0;
	if (sscanf(line + 4, "%255s", path) != 1 ||
	    (strncmp(path, "a/", 2) != 0 && strncmp(path, "b/", 2) != 0) ||
	    !tree_path(path + 2)) {
		*why = "a diff path is not a/... or b/... inside the tree";
		return -1;
	}
	*has_diff = true;
	return 0;
}

static int
load_mutant(const char *file)
{
	struct mutant *m = &mutants[nmutants];
	const char *why = NULL, *base = strrchr(file, '/');
	bool in_header = true, has_diff = false;
	char line[4096], want[64];
	FILE *f;
	int lineno = 0;

	if (nmutants == MAX_MUTANTS) {
		fprintf(stderr, "mutants: %s: more than %d mutants\n", file,
		        MAX_MUTANTS);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	if (strlen(file) >= sizeof(m->file) || !safe(file)) {
		fprintf(stderr, "mutants: %s: unusable file name\n", file);
		return -1;
	}
	strcpy(m->file, file);
	f = fopen(file, "r");
	if (f == NULL) {
		fprintf(stderr, "mutants: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (why == NULL && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		chomp(line);
		if (in_header && strncmp(line, "# ", 2) == 0)
			header_line(m, line, &why);
		else if (in_header && line[0] != '\0' &&
		         strncmp(line, "diff ", 5) != 0 &&
		         strncmp(line, "--- ", 4) != 0)
			why = "header lines are '# key: value'";
		else
			in_header = false;
		if (!in_header && why == NULL)
			diff_line(line, &has_diff, &why);
	}
	fclose(f);
	base = base != NULL ? base + 1 : file;
	snprintf(want, sizeof(want), "%.*s", (int)strcspn(base, "."), base);
	if (why == NULL && strcmp(m->name, want) != 0)
		why = "'# mutant:' is not the file's name";
	else if (why == NULL && (m->family[0] == '\0' || m->origin[0] == '\0' ||
	                         m->bug[0] == '\0'))
		why = "family, origin and bug lines are required";
	else if (why == NULL && m->smoke[0] != '\0' &&
	         strcmp(m->smoke, "detected") != 0 &&
	         strcmp(m->smoke, "undetected") != 0)
		why = "smoke: is detected or undetected";
	else if (why == NULL && !has_diff)
		why = "no diff";
	if (why != NULL) {
		fprintf(stderr, "mutants: %s:%d: %s\n", file, lineno, why);
		return -1;
	}
	nmutants++;
	return 0;
}

static int
load_list(const char *file, char (*list)[FIELD], int *n)
{
	char line[FIELD + 2];
	FILE *f = fopen(file, "r");
	struct stat st;

	if (f == NULL) {
		fprintf(stderr, "mutants: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		chomp(line);
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (*n == MAX_TESTS || !tree_path(line) ||
		    stat(line, &st) != 0) {
			fprintf(stderr, "mutants: %s: '%s': no such scenario\n",
			        file, line);
			fclose(f);
			return -1;
		}
		strcpy(list[(*n)++], line);
	}
	fclose(f);
	if (*n == 0) {
		fprintf(stderr, "mutants: %s: no scenarios\n", file);
		return -1;
	}
	return 0;
}

/* Is file a's content b's? */
static bool
same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa != NULL && fb != NULL;
	char ba[8192], bb[8192];

	while (same) {
		size_t na = fread(ba, 1, sizeof(ba), fa),
		       nb = fread(bb, 1, sizeof(bb), fb);

		same = na == nb && memcmp(ba, bb, na) == 0;
		if (na == 0)
			break;
	}
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	return same;
}

/* A kept scratch copy made like the tree now: each tracked file whose
 * content differs copied in (a new time: make rebuilds what uses it),
 * the others left alone.  Copying every file with its own time would
 * give a source the last mutant touched its old time back, older than
 * the mutant's object, which make would then keep. */
/* The next NUL-terminated name of a `git ls-files -z` listing into
 * path; false at its end. */
static bool
next_listed(FILE *ls, char *path, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = fgetc(ls)) != EOF && c != '\0')
		if (n + 1 < size)
			path[n++] = (char)c;
	path[n] = '\0';
	return c != EOF || n > 0;
}

static int
sync_tree(const char *work)
{
	FILE *ls = popen("git ls-files -z", "r");
	char path[4096], dst[8192];
	int copied = 0;

	if (ls == NULL)
		return -1;
	while (next_listed(ls, path, sizeof(path))) {
		snprintf(dst, sizeof(dst), "%s/%s", work, path);
		if (same_file(path, dst))
			continue;
		if (!tree_path(path) ||
		    run("mkdir -p \"$(dirname %s)\" && cp %s %s", dst, path,
		        dst) != 0) {
			fprintf(stderr, "mutants: cannot copy %s into %s\n",
			        path, work);
			pclose(ls);
			return -1;
		}
		copied++;
	}
	pclose(ls);
	/* and what the tree no longer tracks goes */
	snprintf(dst, sizeof(dst), "git -C %s ls-files -z", work);
	ls = popen(dst, "r");
	if (ls == NULL)
		return -1;
	while (next_listed(ls, path, sizeof(path))) {
		struct stat st;

		snprintf(dst, sizeof(dst), "%s/%s", work, path);
		if (stat(path, &st) != 0 && errno == ENOENT && unlink(dst) == 0)
			copied++;
	}
	pclose(ls);
	fprintf(stderr, "mutants: the scratch copy %s: %d file(s) changed\n",
	        work, copied);
	return 0;
}

/* The scratch copy: tracked files and the build as they are (times
 * kept, so nothing is rebuilt that no mutant touched), a git of its
 * own to restore it between mutants. */
static int
make_work(const char *work, int jobs)
{
	struct stat st;
	char git[FIELD + 8];

	snprintf(git, sizeof(git), "%s/.git", work);
	if (stat(git, &st) == 0) {
		/* the tree as it is now (a kept copy is the last campaign's):
		 * its tracked files replaced, times kept, a new base */
		if (run("cd %s && git checkout -q -- . && git clean -qfd -e "
		        "build",
		        work) != 0 ||
		    sync_tree(work) != 0 ||
		    run("cd %s && git add -A . && git -c user.name=mutants -c "
		        "user.email=mutants@localhost commit -q --allow-empty "
		        "-m base",
		        work) != 0)
			return -1;
		return run("make -s -C %s -j %d mutant-build >/dev/null", work,
		           jobs);
	}
	fprintf(stderr, "mutants: making the scratch copy %s\n", work);
	if (run("mkdir -p %s && git ls-files -z | tar --null -T - -cf - | "
	        "tar -xf - -C %s",
	        work, work) != 0 ||
	    run("tar --exclude=build/test-logs --exclude=build/stress "
	        "--exclude=build/mutants --exclude=build/bench -cf - build "
	        "2>/dev/null | tar -xf - -C %s",
	        work) != 0 ||
	    run("cd %s && git init -q && git add -A . && git -c "
	        "user.name=mutants -c user.email=mutants@localhost commit -qm "
	        "base",
	        work) != 0)
		return -1;
	return run("make -s -C %s -j %d mutant-build >/dev/null", work, jobs);
}

static void
try_mutant(struct mutant *m, const char *work, const char *logs, int jobs)
{
	double t0;

	m->status = "undetected";
	if (run("cd %s && git checkout -q -- . && git clean -qfd -e build",
	        work) != 0 ||
	    run("patch -s -p1 -d %s < %s >/dev/null", work, m->file) != 0) {
		m->status = "no-apply";
		return;
	}
	if (run("make -s -C %s -j %d mutant-build > %s/%s.build.log 2>&1", work,
	        jobs, logs, m->name) != 0) {
		m->status = "no-build";
		return;
	}
	t0 = now_s();
	for (int i = 0; i < ntests; i++) {
		fprintf(stderr, "mutants: %s: %s\n", m->name, tests[i]);
		/* the harness's own log directory: scenarios name their
		 * captures there (build/test-logs/X-nN.pcap) */
		if (run("cd %s && build/host/modref-harness test -j %d %s >> "
		        "%s/%s.test.log 2>&1",
		        work, jobs, tests[i], logs, m->name) == 0)
			continue;
		run("mkdir -p %s/%s && cp %s/build/test-logs/*.log %s/%s/ "
		    "2>/dev/null",
		    logs, m->name, work, logs, m->name);
		m->status = "detected";
		strcpy(m->by, tests[i]);
		m->secs = now_s() - t0;
		m->expected_caught = strstr(m->expect, tests[i]) != NULL;
		return;
	}
}

/* make repro on one failing log; m->repro says what came of it, from
 * repro's last line ("repro: ... result: N op(s) (a script), K of R
 * runs fail, T trials").  True if reduced. */
static bool
repro_on(struct mutant *m, const char *work, const char *logs, int runs,
         const char *log, const char *what)
{
	char line[4096], path[4096 + FIELD * 2];
	FILE *f;

	fprintf(stderr, "mutants: %s: make repro on %s %s\n", m->name, what,
	        log);
	/* an earlier run's output stays, as NAME.repro-K.err/.scn: the
	 * last is the one the table names */
	if (m->repro_runs > 0)
		run("cd %s && for x in err scn; do [ -f %s.repro.$x ] && mv "
		    "%s.repro.$x %s.repro-%d.$x; done; true",
		    logs, m->name, m->name, m->name, m->repro_runs);
	m->repro_runs++;
	run("cd %s && build/host/repro -r %d -T %d -S %s -o %s/%s.repro.scn %s "
	    "2> %s/%s.repro.err",
	    work, runs, repro_budget, root, logs, m->name, log, logs, m->name);
	snprintf(m->repro, sizeof(m->repro), "repro broke (see %s.repro.err)",
	         m->name);
	snprintf(path, sizeof(path), "%s/%s.repro.err", logs, m->name);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *r = strstr(line, "] result: ");
		long ops;
		int k, n, t;

		if (r == NULL)
			continue;
		chomp(line);
		if (sscanf(r + 10, "%ld op(s)", &ops) == 1 &&
		    (r = strstr(r, "), ")) != NULL &&
		    sscanf(r + 3, "%d of %d runs fail, %d trials", &k, &n,
		           &t) == 3) {
			m->repro_ops = ops;
			m->reduced = ops <= REDUCED_OPS && k == n;
			snprintf(
			    m->repro, sizeof(m->repro),
			    "%ld op(s), %d of %d runs fail, %d trials (%s)",
			    ops, k, n, t, what);
		} else {
			snprintf(m->repro, sizeof(m->repro), "%s (%s)",
			         strstr(line, "] result: ") + 10, what);
		}
	}
	if (f != NULL)
		fclose(f);
	return m->reduced;
}

/* Is the log a failed run?  make repro shrinks every kind: a lifetime
 * stress run, a KTAP case, a fault sweep point, any other scenario's
 * steps (tests/repro/). */
static bool
failed_run(const char *log)
{
	char line[4096];
	bool failed = false;
	FILE *f = fopen(log, "r");

	while (f != NULL && !failed && fgets(line, sizeof(line), f) != NULL)
		/* a failed case fails its KTAP point, not always the run */
		failed = strncmp(line, "### harness: FAIL", 17) == 0 ||
		         strncmp(line, "    not ok ", 11) == 0;
	if (f != NULL)
		fclose(f);
	return failed;
}

/* Is the log a run of SCENARIO?  (NAME-*.log also matches the logs of
 * NAME-more.scn: stress-faultsweep's, stress-faultsweep-point's.) */
static bool
of_scenario(const char *log, const char *scenario)
{
	char line[4096], want[FIELD + 64];
	FILE *f = fopen(log, "r");
	bool of = false;

	snprintf(want, sizeof(want), "### harness: scenario %s, ", scenario);
	if (f != NULL && fgets(line, sizeof(line), f) != NULL)
		of = strncmp(line, want, strlen(want)) == 0;
	if (f != NULL)
		fclose(f);
	return of;
}

/* The detecting scenario's failed run (its logs were kept in logs/NAME/
 * at detection). */
static bool
detecting_run(const struct mutant *m, const char *logs, char *out, size_t size)
{
	const char *base = strrchr(m->by, '/');
	char pattern[4096 + FIELD * 2];
	glob_t g;
	bool found = false;

	base = base != NULL ? base + 1 : m->by;
	snprintf(pattern, sizeof(pattern), "%s/%s/%.*s-*.log", logs, m->name,
	         (int)strcspn(base, "."), base);
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	for (size_t i = 0; i < g.gl_pathc && !found; i++)
		if (of_scenario(g.gl_pathv[i], m->by) &&
		    failed_run(g.gl_pathv[i])) {
			snprintf(out, size, "%s", g.gl_pathv[i]);
			found = true;
		}
	globfree(&g);
	return found;
}

/* One more run for make repro on the mutant's build: scenario SCN in
 * its own log directory; make repro on its failed run (WHAT says which
 * kind, for the table).  -1: it passed; else whether it was reduced. */
static int
probe(struct mutant *m, const char *work, const char *logs, int jobs, int runs,
      const char *scn, const char *what)
{
	char failed[FIELD * 2], line[4096], path[4096 + FIELD * 2];
	FILE *f;

	fprintf(stderr, "mutants: %s: %s %s\n", m->name, what, scn);
	snprintf(path, sizeof(path), "%s/%s.probe.out", logs, m->name);
	if (run("cd %s && build/host/modref-harness test -j %d --logs "
	        "%s/%s/probes %s > %s 2>&1",
	        work, jobs, logs, m->name, scn, path) == 0)
		return -1;
	/* "# FAILED NAME[PROFILE] (log: PATH)": its log */
	failed[0] = '\0';
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *l = strstr(line, "(log: ");

		if (strncmp(line, "# FAILED ", 9) == 0 && l != NULL &&
		    sscanf(l + 6, "%511[^)]", failed) == 1)
			break;
	}
	if (f != NULL)
		fclose(f);
	if (failed[0] == '\0')
		return -1;
	return repro_on(m, work, logs, runs, failed, what);
}

/* The detecting run, then the probes in order on the mutant's build, then
 * the campaign's scenarios after the detecting one (a bug its first
 * scenario shows only now and then, by the order of two lines, may fail
 * another every time): make repro on each failing one until one is
 * reduced, while the phase is within twice make repro's budget. */
static void
try_repro(struct mutant *m, const char *work, const char *logs, int jobs,
          int runs)
{
	char path[4096 + FIELD * 2];
	double t0 = now_s();
	bool tried = false;
	int r = -1, by = 0;

	m->repro_ops = -1;
	if (detecting_run(m, logs, path, sizeof(path))) {
		tried = true;
		if (repro_on(m, work, logs, runs, path, "the detecting run")) {
			m->repro_secs = now_s() - t0;
			return;
		}
	}
	for (int i = 0; i < nprobes && r != 1; i++) {
		r = probe(m, work, logs, jobs, runs, probes[i], "a probe");
		tried |= r >= 0;
	}
	while (by < ntests && strcmp(tests[by], m->by) != 0)
		by++;
	for (int i = by + 1; i < ntests && nprobes > 0 && r != 1 &&
	                     now_s() - t0 < 2.0 * repro_budget;
	     i++) {
		r = probe(m, work, logs, jobs, runs, tests[i],
		          "a later scenario");
		tried |= r >= 0;
	}
	if (!tried)
		snprintf(m->repro, sizeof(m->repro), "%s",
		         nprobes > 0 ? "no probe fails" : "no probes run");
	m->repro_secs = now_s() - t0;
}

/* A reproducer is a regression test only if it passes once the bug is
 * gone: run it on the tree without the mutant.  One that fails there too
 * (a timeout also shown by leaving out what made the awaited line come,
 * say) is not counted as reduced. */
static void
check_sound(struct mutant *m, const char *work, const char *logs, int jobs)
{
	size_t len = strlen(m->repro);

	fprintf(stderr, "mutants: %s: its reproducer on the tree without it\n",
	        m->name);
	if (run("cd %s && git checkout -q -- . && git clean -qfd -e build && "
	        "make -s -j %d mutant-build > %s/%s.sound.log 2>&1",
	        work, jobs, logs, m->name) != 0) {
		m->reduced = false;
		snprintf(m->repro + len, sizeof(m->repro) - len,
		         "; the tree without it did not build");
		return;
	}
	if (run("cd %s && build/host/modref-harness test -j %d --logs "
	        "%s/%s/sound %s/%s.repro.scn >> %s/%s.sound.log 2>&1",
	        work, jobs, logs, m->name, logs, m->name, logs, m->name) != 0) {
		m->reduced = false;
		snprintf(m->repro + len, sizeof(m->repro) - len,
		         "; it fails without the bug too");
		return;
	}
	snprintf(m->repro + len, sizeof(m->repro) - len, "; passes without it");
}

static double
median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
report(FILE *f)
{
	int valid = 0, detected = 0, hist = 0, hist_det = 0, nd = 0, tried = 0,
	    reduced = 0;
	double t[MAX_MUTANTS], tr[MAX_MUTANTS];

	fprintf(f, "| mutant | family | origin | outcome | by | time to "
	           "detection | make repro |\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nmutants; i++) {
		struct mutant *m = &mutants[i];
		bool control = strcmp(m->family, "control") == 0;

		fprintf(f, "| %s | %s | %s | %s | %s%s | ", m->name, m->family,
		        m->origin, m->status, m->by[0] ? m->by : "-",
		        m->expected_caught ? " (its expect:)" : "");
		if (strcmp(m->status, "detected") == 0)
			fprintf(f, "%.0f s | %s%s |\n", m->secs,
			        m->repro[0] ? m->repro : "not run",
			        m->reduced ? " (reduced)" : "");
		else
			fprintf(f, "- | - |\n");
		if (control || strncmp(m->status, "no-", 3) == 0)
			continue;
		valid++;
		if (strncmp(m->origin, "historical", 10) == 0)
			hist++;
		if (strcmp(m->status, "detected") == 0) {
			detected++;
			t[nd++] = m->secs;
			if (strncmp(m->origin, "historical", 10) == 0)
				hist_det++;
			tried += m->repro[0] != '\0';
			if (m->reduced)
				tr[reduced++] = m->repro_secs;
		}
	}
	fprintf(f,
	        "\nmutation score: %d of %d detected (%d%%); historical %d "
	        "of %d; median time to detection %.0f s\n",
	        detected, valid, valid ? detected * 100 / valid : 0, hist_det,
	        hist, median(t, nd));
	if (tried > 0)
		fprintf(f,
		        "make repro: %d of %d detected mutants (%d of %d in "
		        "all, %d%%) reduced to a script of at most %d ops that "
		        "fails every run; median time to reduction %.0f s "
		        "(probes and make repro)\n",
		        reduced, tried, reduced, valid,
		        valid ? reduced * 100 / valid : 0, REDUCED_OPS,
		        median(tr, reduced));
	else
		fprintf(f, "make repro: not run (%s)\n",
		        repro ? "no mutant detected" : "--no-repro");
}

/* One mutant, start to end, in its scratch copy WORK: detection, then
 * make repro and the reproducer's run without it. */
static void
one_mutant(struct mutant *m, const char *work, const char *logs, int jobs,
           int runs)
{
	bool control = strcmp(m->family, "control") == 0;

	try_mutant(m, work, logs, jobs);
	fprintf(stderr, "mutants: %s: %s%s%s", m->name, m->status,
	        m->by[0] ? " by " : "", m->by);
	if (m->by[0])
		fprintf(stderr, " after %.0f s", m->secs);
	fprintf(stderr, "\n");
	if (repro && !control && strcmp(m->status, "detected") == 0) {
		try_repro(m, work, logs, jobs, runs);
		if (m->reduced)
			check_sound(m, work, logs, jobs);
		fprintf(stderr, "mutants: %s: make repro: %s\n", m->name,
		        m->repro);
	}
	run("cd %s && git checkout -q -- . && git clean -qfd -e build", work);
}

static void
ktap_line(int i)
{
	const struct mutant *m = &mutants[i];

	printf("%sok %d %s # %s%s%s\n",
	       m->smoke[0] == '\0' || strcmp(m->smoke, m->status) == 0 ? ""
	                                                               : "not ",
	       i + 1, m->name, m->status, m->by[0] ? " by " : "", m->by);
	fflush(stdout);
}

/* The scratch copy of slot K: WORK itself, then WORK.1, WORK.2, ... */
static void
slot_work(char *out, size_t size, const char *work, int k)
{
	if (k == 0)
		snprintf(out, size, "%s", work);
	else
		snprintf(out, size, "%s.%d", work, k);
}

/* Every mutant, PARALLEL at a time, each slot in its own scratch copy
 * (the harness picks free ports and tap namespaces under a lock, so
 * runs of different slots do not meet).  A mutant runs in a child that
 * hands its outcome back through a pipe; the KTAP lines come in the
 * mutants' order.  0, or -1 if a scratch copy does not build. */
static int
campaign(const char *work, const char *logs, int jobs, int parallel, int runs,
         bool ktap)
{
	struct slot {
		pid_t pid;
		int fd, mutant;
	} slot[MAX_SLOTS];
	bool done[MAX_MUTANTS] = {false};
	int next = 0, printed = 0, busy = 0;
	char dir[FIELD];

	if (parallel > nmutants)
		parallel = nmutants > 0 ? nmutants : 1;
	for (int k = 0; k < parallel; k++) {
		slot_work(dir, sizeof(dir), work, k);
		if (make_work(dir, jobs) != 0) {
			fprintf(stderr,
			        "mutants: the scratch copy %s does not build "
			        "unmutated\n",
			        dir);
			return -1;
		}
		slot[k].pid = 0;
	}
	while (next < nmutants || busy > 0) {
		int k, status;
		pid_t pid;

		for (k = 0; k < parallel && next < nmutants; k++) {
			int p[2];

			if (slot[k].pid != 0)
				continue;
			if (pipe(p) != 0)
				return -1;
			fflush(NULL);
			pid = fork();
			if (pid < 0)
				return -1;
			if (pid == 0) {
				struct mutant *m = &mutants[next];

				/* a campaign stopped stops its mutants
				 * (not only the scenario they run), and
				 * each mutant what it started (make repro
				 * under system()'s shell): its own group */
				setpgid(0, 0);
				sigaction(SIGTERM,
				          &(struct sigaction){
				              .sa_handler = stop_group,
				              .sa_flags = SA_RESETHAND},
				          NULL);
				prctl(PR_SET_PDEATHSIG, SIGTERM);
				if (getppid() == 1)
					_exit(1);
				close(p[0]);
				slot_work(dir, sizeof(dir), work, k);
				one_mutant(m, dir, logs, jobs, runs);
				if (write(p[1], m, sizeof(*m)) !=
				    (ssize_t)sizeof(*m))
					_exit(1);
				_exit(0);
			}
			close(p[1]);
			slot[k] = (struct slot){pid, p[0], next++};
			busy++;
		}
		pid = wait(&status);
		if (pid < 0)
			return -1;
		for (k = 0; k < parallel && slot[k].pid != pid; k++)
			;
		if (k == parallel)
			continue;
		/* the child's outcome; a child that died leaves the
		 * mutant as it was loaded, "broke" */
		struct mutant *m = &mutants[slot[k].mutant];
		struct mutant got;

		if (read(slot[k].fd, &got, sizeof(got)) == (ssize_t)sizeof(got))
			*m = got;
		else
			m->status = "broke";
		close(slot[k].fd);
		done[slot[k].mutant] = true;
		slot[k].pid = 0;
		busy--;
		while (printed < nmutants && done[printed]) {
			if (ktap)
				ktap_line(printed);
			printed++;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *work = "build/mutants/tree",
	           *list = "tests/mutants/campaign.list";
	const char *out = "build/mutants/report.md",
	           *logs = "build/mutants/logs",
	           *probe_list = "tests/mutants/probes.list";
	bool ktap = false, broken = false;
	int jobs = 2, parallel = 1, i, runs = 10;
	char abslogs[4096];
	FILE *f;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--ktap") == 0) {
			ktap = true;
			continue;
		}
		if (strcmp(argv[i], "--no-repro") == 0) {
			repro = false;
			continue;
		}
		if (strcmp(argv[i], "--no-probes") == 0) {
			probe_list = NULL;
			continue;
		}
		if (i + 1 == argc)
			break;
		if (strcmp(argv[i], "-w") == 0)
			work = argv[++i];
		else if (strcmp(argv[i], "-l") == 0)
			list = argv[++i];
		else if (strcmp(argv[i], "-o") == 0)
			out = argv[++i];
		else if (strcmp(argv[i], "-L") == 0)
			logs = argv[++i];
		else if (strcmp(argv[i], "-j") == 0)
			jobs = atoi(argv[++i]);
		else if (strcmp(argv[i], "-P") == 0)
			parallel = atoi(argv[++i]);
		else if (strcmp(argv[i], "-p") == 0)
			probe_list = argv[++i];
		else if (strcmp(argv[i], "-r") == 0)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "-T") == 0)
			repro_budget = atoi(argv[++i]);
		else
			break;
	}
	if (!tree_path(work) || !tree_path(logs)) {
		fprintf(stderr,
		        "mutants: '%s': -w and -L take a path inside the tree "
		        "(relative, no '..')\n",
		        tree_path(work) ? logs : work);
		return 2;
	}
	if (i == argc || jobs < 1 || jobs > 64 || parallel < 1 ||
	    parallel > MAX_SLOTS || runs < 1 || runs > 100 ||
	    repro_budget < 1) {
		fprintf(stderr, "usage: mutants [-w DIR] [-l LIST] [-o REPORT] "
		                "[-L LOGS] "
		                "[-j N] [-P N] [-p PROBES] [-r RUNS] [-T SECS] "
		                "[--no-repro] "
		                "[--no-probes] [--ktap] MUTANT...\n");
		return 2;
	}
	for (; i < argc; i++)
		if (load_mutant(argv[i]) != 0)
			return 2;
	if (load_list(list, tests, &ntests) != 0 ||
	    (repro && probe_list != NULL &&
	     load_list(probe_list, probes, &nprobes) != 0))
		return 2;
	if (run("mkdir -p %s", logs) != 0 || realpath(logs, abslogs) == NULL ||
	    !safe(abslogs))
		return fprintf(stderr, "mutants: cannot use %s\n", logs), 2;
	if (realpath(".", root) == NULL || !safe(root))
		return fprintf(stderr,
		               "mutants: this tree's path has characters a "
		               "shell command cannot take\n"),
		       2;
	if (ktap)
		printf("KTAP version 1\n1..%d\n", nmutants);
	if (campaign(work, abslogs, jobs, parallel, runs, ktap) != 0)
		return 1;
	for (i = 0; i < nmutants; i++)
		if (strcmp(mutants[i].family, "control") == 0 &&
		    strcmp(mutants[i].status, "undetected") != 0)
			broken = true;
	f = fopen(out, "w");
	if (f != NULL) {
		report(f);
		fclose(f);
	}
	if (!ktap)
		report(stdout);
	if (broken)
		fprintf(stderr, "mutants: the control mutant was detected: the "
		                "campaign's scenarios fail on an unchanged "
		                "kernel\n");
	return broken ? 1 : 0;
}
