/*
 * make repro on a run that failed in a KTAP case (docs/repro.md): the
 * reproducer is the case alone (`ktest SUITE.CASE`), after as little of
 * the scenario's setup as it needs.
 *
 *   1. the log: its scenario and profile, and the first case reported
 *      `not ok`, or the case a report, a panic or the run's end stopped
 *      (the one whose diagnostics came last; with none, the whole
 *      suite: `ktest SUITE`); for those, the failure line (or the case's
 *      first diagnostic) is what a trial must show again, and the
 *      scenario rejects it, so a hung case ends at once; a case that
 *      hung before it printed anything is known by its number alone
 *      (`ktest SUITE.N`), and the trials boot with a case timeout that
 *      turns the hang into its `not ok` line, which names it
 *   2. the scenario: its boot directives and rejects, its steps before
 *      the `send ktest` that ran the suite (a step is a command with the
 *      expects, prompts and polls after it)
 *   3. the case alone after every step; then each step left out (last
 *      first) if the case still fails without it
 *   4. the result run R times with the timeline on: it must fail every
 *      time
 *
 * A trial shows the bug when its log has the case's `not ok` line, or
 * that case's first diagnostic (a run may die after it: the case's
 * failure, then a panic in what it left behind), or, when the run died
 * in it, the log's own failure line again (a report, a panic); one that
 * fails otherwise (a step it needed left out) does not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/repro/repro.h"
#include "tests/repro/steps.h"

static struct steps sc; /* the scenario before its ktest command */
static char suite[64], kcase[128], sel[200]; /* SUITE, CASE, SUITE[.CASE] */
static char bug_line[LINE]; /* the log's failure line (a report, a panic) */
static bool by_result;      /* the case's `not ok` line is the bug */
/* and its first diagnostic (numbers masked): a trial that died after it
 * (the case's failure, then a panic in what it left behind) showed it */
static char case_diag[LINE];
/* A silent hang: the case's number in the suite's run, until a trial's
 * `not ok` line names it; trials time it out (ktest_timeout_s). */
static int silent_case;
/* A hang (a silent one, or a case the run's case timeout ended): trials
 * boot with a case timeout of HANG_TIMEOUT_S and a run limit that leaves
 * room for it (the scenario's limit, made for a suite whose cases end,
 * raced the default 120 s case timeout: half the trials of
 * n-unreg-notifier-skips-dst-ifdown ended at the limit, not the bug) */
static bool hang;
#define HANG_TIMEOUT_S 60
/* how kernel/debug/ktest.c reports a case its timeout ended */
#define TIMED_OUT ": timed out after "

/* Is D ("# CASE: ...") a failure: a check's (ktest_fail: "FILE:LINE: ")
 * or the case timing out, not a note (ktest_note: what it measured)? */
static bool
failure_diag(const char *d)
{
	const char *p = strchr(d, ':');
	int n;

	return strstr(d, TIMED_OUT) != NULL ||
	       (p != NULL && sscanf(p + 1, " %*[^: ]:%d:", &n) == 1);
}

/* The first nested `not ok N NAME` of the log, with its suite; or, if
 * the run died in a suite without one, that suite and its failure line.
 * False if the log is no failed KTAP run. */
static bool
read_ktap_log(const char *log)
{
	char line[LINE], cur[64] = "", running[128] = "", diag[LINE] = "";
	bool lifetime = false, failed = false, cur_done = false;
	int last_result = 0, plan = 0;
	FILE *f = fopen(log, "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[128];
		int n;

		chomp(line);
		read_run_header(line);
		lifetime |= strstr(line, "stress: lifetime: run: ") != NULL;
		/* the harness fails the run, or only the case's point */
		failed |= strncmp(line, "### harness: FAIL", 17) == 0 ||
		          strncmp(line, "    not ok ", 11) == 0;
		if (sscanf(line, "    # Subtest: %63s", cur) == 1) {
			running[0] = '\0';
			last_result = plan = 0;
			cur_done = false;
			continue;
		}
		if (sscanf(line, "    1..%d", &n) == 1)
			plan = n;
		/* the suite's own result line (not nested) ends it */
		cur_done |=
		    cur[0] != '\0' && (strncmp(line, "ok ", 3) == 0 ||
		                       strncmp(line, "not ok ", 7) == 0);
		if (sscanf(line, "    ok %d", &n) == 1 ||
		    sscanf(line, "    not ok %d", &n) == 1)
			last_result = n;
		/* a result ends a case; its diagnostics name the running one
		 * ("        # CASE: ...": the one a panic stops in) */
		if (sscanf(line, "    ok %d", &n) == 1) {
			running[0] = '\0';
		} else if (cur[0] != '\0' &&
		           strncmp(line, "        # ", 10) == 0 &&
		           sscanf(line + 10, "%127[^: ]:", name) == 1 &&
		           strcmp(name, running) != 0) {
			snprintf(running, sizeof(running), "%s", name);
			snprintf(diag, sizeof(diag), "%s", line + 8);
		} else if (running[0] != '\0' &&
		           strncmp(line, "        # ", 10) == 0 &&
		           !failure_diag(diag) && failure_diag(line + 8)) {
			/* its first failure, not a note before it */
			snprintf(diag, sizeof(diag), "%s", line + 8);
		}
		if (suite[0] == '\0' && cur[0] != '\0' &&
		    sscanf(line, "    not ok %d %127s", &n, name) == 2 &&
		    strstr(line, "# SKIP") == NULL) {
			const char *dot = strchr(name, '.');
			bool prefixed =
			    dot != NULL && strncmp(name, cur, strlen(cur)) == 0;

			snprintf(suite, sizeof(suite), "%s", cur);
			/* ktest_names=suite prints SUITE.CASE */
			snprintf(kcase, sizeof(kcase), "%s",
			         prefixed ? dot + 1 : name);
			by_result = true;
			if ((strcmp(running, name) == 0 ||
			     strcmp(running, kcase) == 0) &&
			    failure_diag(diag))
				mask_numbers(diag, case_diag,
				             sizeof(case_diag));
		}
		if (suite[0] == '\0' && bug_line[0] == '\0' && cur[0] != '\0' &&
		    (strstr(line, "KERNEL PANIC") != NULL ||
		     strstr(line, "use-after-unload") != NULL ||
		     strstr(line, "invariant:") != NULL)) {
			/* the run died in a case: no result line for it;
			 * its first diagnostic counts too (the race it lost
			 * may end in another BUG the next time) */
			snprintf(bug_line, sizeof(bug_line), "%s", line);
			snprintf(suite, sizeof(suite), "%s", cur);
			snprintf(kcase, sizeof(kcase), "%s", running);
			if (running[0] != '\0' && failure_diag(diag))
				mask_numbers(diag, case_diag,
				             sizeof(case_diag));
		}
	}
	fclose(f);
	/* the run stopped in a case that never ended (a wait that hangs):
	 * its first diagnostic is what a trial must show again */
	if (suite[0] == '\0' && failed && running[0] != '\0') {
		snprintf(suite, sizeof(suite), "%s", cur);
		snprintf(kcase, sizeof(kcase), "%s", running);
		snprintf(bug_line, sizeof(bug_line), "%s", diag);
	}
	/* ... and one that never printed anything: the next by number */
	if (suite[0] == '\0' && failed && cur[0] != '\0' && !cur_done &&
	    last_result < plan) {
		snprintf(suite, sizeof(suite), "%s", cur);
		silent_case = last_result + 1;
		by_result = true;
	}
	if (lifetime || !failed || scenario[0] == '\0' || suite[0] == '\0')
		return false;
	if (kcase[0] != '\0')
		snprintf(sel, sizeof(sel), "%s.%s", suite, kcase);
	else if (silent_case > 0)
		snprintf(sel, sizeof(sel), "%s.%d", suite, silent_case);
	else
		snprintf(sel, sizeof(sel), "%s", suite);
	return true;
}

/* The reproducer runs one case (else the whole suite). */
static bool
one_case(void)
{
	return kcase[0] != '\0' || silent_case > 0;
}

/* Does this `send ktest ...` run the suite? */
static bool
runs_suite(const char *line)
{
	char buf[LINE], *save = NULL;

	if (!starts(line, "send") || strncmp(line + 5, "ktest ", 6) != 0)
		return false;
	snprintf(buf, sizeof(buf), "%s", line + 11);
	for (char *w = strtok_r(buf, " ", &save); w != NULL;
	     w = strtok_r(NULL, " ", &save))
		if (strcmp(w, suite) == 0 || strcmp(w, "all") == 0)
			return true;
	return false;
}

/* The scenario up to the ktest command: directives, then steps. */
static int
read_ktap_scenario(void)
{
	bool found;

	if (steps_read(&sc, scenario, runs_suite, &found) != 0)
		return -1;
	if (!found) {
		fprintf(stderr,
		        "repro: %s: no 'send ktest' line runs suite %s (a "
		        "boot-time ktest= run is not reduced)\n",
		        scenario, suite);
		return -1;
	}
	return 0;
}

/* The run limit the scenario gives (the harness's default if none). */
static int
scenario_limit(void)
{
	int limit = 300; /* tests/harness/script.h: DEFAULT_LIMIT_S */

	for (const char *l = sc.header; *l != '\0'; l = strchr(l, '\n') + 1)
		if (starts(l, "limit"))
			sscanf(l + 5, "%d", &limit);
	return limit;
}

/* The scenario of a trial (and of the result). */
static void
write_ktap_scn(FILE *f)
{
	char extra[64];

	/* boot parameters of our own, on the scenario's first cmdline */
	snprintf(extra, sizeof(extra), "%s", tracing ? " trace=on" : "");
	if (hang)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
		         " ktest_timeout_s=%d", HANG_TIMEOUT_S);
	steps_write(&sc, f, profile, extra, sc.n);
	if (hang) /* the last limit given is the run's */
		fprintf(f, "# a hang: room for its case timeout\nlimit %d\n",
		        scenario_limit() + 2 * HANG_TIMEOUT_S);
	/* a bug with no result line of its own: its line ends the run at
	 * once (a hung case would otherwise cost the run's limit) */
	if (!by_result && bug_line[0] != '\0')
		write_reject(f, bug_line);
	fprintf(f,
	        "send ktest %s\nktap -t 300 %s\nprompt -t 60\n"
	        "send poweroff\nexit success\n",
	        sel, suite);
}

/* The case's `not ok` (or the suite's failure line) in the trial's log.
 * A case known by number takes its name from the first `not ok` line. */
static bool
showed_bug(void)
{
	char path[512], line[LINE], want1[200], want2[400];
	bool seen = false, timed_out = false;
	FILE *f;

	trial_log(path, sizeof(path));
	snprintf(want1, sizeof(want1), " %s", kcase);
	snprintf(want2, sizeof(want2), " %s.%s", suite, kcase);
	f = fopen(path, "r");
	while (f != NULL && !seen && fgets(line, sizeof(line), f) != NULL) {
		int n, len = 0;

		chomp(line);
		/* a silent hang comes back as the case timing out */
		timed_out |= strncmp(line, "        # ", 10) == 0 &&
		             strstr(line, TIMED_OUT) != NULL;
		if (case_diag[0] != '\0' &&
		    strncmp(line, "        # ", 10) == 0) {
			char masked[LINE];

			mask_numbers(line + 8, masked, sizeof(masked));
			if (strcmp(masked, case_diag) == 0) {
				seen = true;
				continue;
			}
		}
		if (!by_result) {
			seen = strstr(line, bug_line) != NULL;
			continue;
		}
		if (sscanf(line, "    not ok %d%n", &n, &len) != 1 ||
		    len == 0 || (silent_case > 0 && !timed_out))
			continue;
		if (kcase[0] == '\0' && silent_case > 0 &&
		    sscanf(line + len, " %127s", kcase) == 1) {
			/* ktest_names=suite prints SUITE.CASE */
			size_t sl = strlen(suite);

			if (strncmp(kcase, suite, sl) == 0 && kcase[sl] == '.')
				memmove(kcase, kcase + sl + 1,
				        strlen(kcase + sl + 1) + 1);
			snprintf(sel, sizeof(sel), "%s.%s", suite, kcase);
			say("case number %d of %s is %s", silent_case, suite,
			    kcase);
			seen = true;
			continue;
		}
		seen = strcmp(line + len, want1) == 0 ||
		       strcmp(line + len, want2) == 0;
	}
	if (f != NULL)
		fclose(f);
	return seen;
}

static int
kept_sends(void)
{
	return steps_sends(&sc, sc.n) + 1; /* and the ktest command */
}

static bool
ktap_trial(const char *why)
{
	FILE *f;
	bool bug;

	f = trial_scn_open();
	write_ktap_scn(f);
	bug = trial_run(f) != 0 && showed_bug();
	say("trial %d (%s): ktest %s after %d setup command(s): %s", trials,
	    why, sel, kept_sends() - 1, bug ? "FAILS" : "passes");
	return bug;
}

int
repro_ktap(const char *log, const char *out, int runs)
{
	char path[512];
	int failed = 0;
	FILE *f;

	if (!read_ktap_log(log))
		return -1;
	hang = silent_case > 0 || strstr(case_diag, TIMED_OUT) != NULL ||
	       strstr(bug_line, TIMED_OUT) != NULL;
	if (hang && !by_result) {
		/* its timeout comes back with the trials' own: numbers masked */
		mask_numbers(bug_line, case_diag, sizeof(case_diag));
		by_result = true;
	}
	if (read_ktap_scenario() != 0)
		return 2;
	find_profiles();
	make_workdir();
	say("%s: profile %s, failed in KTAP %s %s; %d setup step(s) before "
	    "its ktest command; trials in %s",
	    log, profile, one_case() ? "case" : "suite", sel, sc.n, workdir);
	/* what a trial must show (numbers masked: '#') */
	if (case_diag[0] != '\0')
		say("a trial shows the bug by the case's first failure: %s",
		    case_diag);
	if (by_result)
		say("a trial shows the bug by the case's not ok line");
	else if (bug_line[0] != '\0')
		say("a trial shows the bug by the line: %s", bug_line);
	if (!ktap_trial(one_case() ? "the case alone" : "the suite")) {
		say("it passes: not reproduced");
		say("result: not reproduced");
		return 1;
	}
	/* each setup step left out, the last first (the boot prompt stays) */
	steps_leave_out(&sc, ktap_trial);
	say("after the setup steps: %d op(s)", kept_sends());
	failed = verify(runs, ktap_trial);
	if (out == NULL) {
		snprintf(path, sizeof(path), "tests/scenarios/repro-%s.scn",
		         sel);
		for (char *p = path + 16; *p != '\0'; p++)
			if (*p == '.' && strcmp(p, ".scn") != 0)
				*p = '-';
		out = path;
	}
	f = reproducer_open(out);
	fprintf(f,
	        "# A reproducer made by make repro (docs/repro.md) from\n"
	        "# %s, which failed in KTAP %s %s.\n# Reduced in %d trials "
	        "to the %s after %d command(s) of its\n# scenario's setup; %d "
	        "of %d runs failed when it was made.\n# It passes once the "
	        "bug is fixed.\n",
	        log, one_case() ? "case" : "suite", sel, trials,
	        one_case() ? "case alone" : "suite", kept_sends() - 1, failed,
	        runs);
	write_ktap_scn(f);
	fclose(f);
	say("wrote %s", out);
	say("result: %d op(s) (a ktest %s), %d of %d runs fail, %d trials",
	    kept_sends(), one_case() ? "case" : "suite", failed, runs, trials);
	return failed == runs ? 0 : 1;
}
