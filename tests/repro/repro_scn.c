/*
 * make repro on a scenario run that failed neither in a lifetime stress
 * run nor in a KTAP case (docs/repro.md): an expect that timed out, a
 * host check, a reject, a panic, a capture's audit.  The reproducer is
 * the scenario itself with as few of its steps as still fail the same
 * way.
 *
 *   1. the log: its scenario and profile, and the harness's first FAIL
 *      line: which directive failed (its line, and so its text) and how,
 *      or, for a failure of no directive (a reject, a panic, an audit),
 *      what it says
 *   2. the scenario: its boot directives and rejects, and its steps (a
 *      command with the expects, prompts and polls after it); a trial
 *      keeps the boot prompt, the failing directive's step and the
 *      `host` steps after it that stop a server (`kill`), or for a
 *      failure of no directive the last step (its exit)
 *   3. the other steps with their waits alone (polls, `expect -t N`: a
 *      lease, a timer, a client that connected), not their answers'
 *      checks (a step whose check fails once a step before it goes
 *      would otherwise stay with it), if the run still fails so; then
 *      delta debugging (ddmin, Zeller and Hildebrandt 2002) over those
 *      steps: chunks of steps, then single ones, go while the run still
 *      fails; when a trial fails instead at a wait of a step it kept
 *      (it needed one that went), that step goes too and the trial
 *      runs again, up to 4 times: a pair that needs each other (a
 *      probe, and the unload whose wait sees it refused) goes together
 *   4. the result run R times with the timeline on: it must fail every
 *      time
 *
 * A trial shows the bug when its first FAIL is the same: the same
 * directive (by its text: the trial's lines are numbered anew) failing
 * the same way, numbers aside, after the failing step's command answered
 * with the same first line; or the same reject or panic; or, for an
 * audit's finding, the same finding among the trial's audit's (after
 * whatever failed first: the audit reads the whole capture).
 * A trial that fails otherwise (a step it needed left out: an earlier
 * expect times out, or the failing one does because its command now
 * meets nothing to act on) does not count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/repro/repro.h"
#include "tests/repro/steps.h"

static struct steps sc;
static char fail_msg[LINE];  /* the log's first FAIL, as it was */
static char sig[LINE];       /* the same, normalised: what a trial shows */
static char directive[LINE]; /* the failing directive's text, or "" */
static int fail_step = -1;   /* its step; -1: a failure of no directive */
static char answer[LINE];    /* the first line its command printed */

/* Line NO of PATH, or "". */
static void
line_of(const char *path, int no, char *out, size_t size)
{
	char line[LINE];
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	for (int i = 1; f != NULL && fgets(line, sizeof(line), f) != NULL; i++)
		if (i == no) {
			chomp(line);
			snprintf(out, size, "%s", line);
			break;
		}
	if (f != NULL)
		fclose(f);
}

/* Scenario, profile and the first failure; false if the log is no failed
 * run of a scenario, or a lifetime stress run that failed (repro.c's).
 * A lifetime run that passed in a scenario that failed (an expect of
 * its op log's order that timed out) is the scenario's. */
static bool
read_scn_log(const char *log)
{
	char line[LINE];
	bool in_run = false, lifetime = false;
	FILE *f = fopen(log, "r");
	int no;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "### harness: FAIL", 17) == 0)
			break;
		in_run |= strstr(line, "stress: lifetime: run: ") != NULL;
		lifetime |= in_run && is_failure_line(line);
		read_run_header(line);
	}
	if (f != NULL)
		fclose(f);
	if (lifetime || scenario[0] == '\0' ||
	    !first_fail(log, fail_msg, sizeof(fail_msg)))
		return false;
	fail_normalise(fail_msg, sig, sizeof(sig), &no);
	if (no > 0)
		line_of(scenario, no, directive, sizeof(directive));
	return true;
}

/* Is step i kept in every trial? */
static bool
fixed(int i)
{
	if (i == 0)
		return true; /* the boot prompt */
	if (fail_step < 0)
		return i == sc.n - 1;
	return i >= fail_step; /* the failure's step, the teardown after */
}

/* A step after the failing one that a trial keeps: a host command that
 * stops a server the scenario started (`kill PID`, not `kill -0`, a
 * wait).  Not the others: a trial that does not show the bug goes on
 * past the failing step, and a host step there waits for what the steps
 * after it would have made happen (a client's "reset seen", 30 s). */
static bool
teardown(const char *text)
{
	const char *k;

	if (!starts(text, "host"))
		return false;
	for (k = strstr(text, "kill "); k != NULL; k = strstr(k + 5, "kill "))
		if (strncmp(k + 5, "-0", 2) != 0 &&
		    (k == text || k[-1] == ' ' || k[-1] == '\'' ||
		     k[-1] == ';' || k[-1] == 'p'))
			return true;
	return false;
}

/* Is a step's last line a prompt (the console ready again)? */
static bool
ends_at_prompt(const char *text)
{
	size_t n = strlen(text);
	const char *last = text;

	for (size_t i = 0; n > 0 && i + 1 < n; i++)
		if (text[i] == '\n')
			last = text + i + 1;
	return starts(last, "prompt");
}

static void
write_scn_trial(FILE *f)
{
	steps_write(&sc, f, profile, tracing ? " trace=on" : "",
	            fail_step < 0 ? sc.n : fail_step + 1);
	if (fail_step < 0)
		return;
	/* after the failing step: a server's teardown */
	for (int i = fail_step + 1; i < sc.n; i++)
		if (teardown(sc.text[i]))
			fputs(sc.text[i], f);
	/* the console ready again before the poweroff: a step that ends
	 * in its checks may have had its prompt already (before a line it
	 * awaited: after Ctrl-C, a probe's "done"), so a prompt of its own
	 * would wait for nothing; a command typed ahead gives a new one */
	if (!ends_at_prompt(sc.text[fail_step]))
		fprintf(f, "send echo repro-sync\nexpect -t 60 "
		           "^repro-sync$\nprompt\n");
	fprintf(f, "send poweroff\nexit success\n");
}

/* The first line the console printed after it echoed CMD (its last
 * echo before the run's first FAIL), numbers masked; "" if none. */
static void
first_answer(const char *log, const char *cmd, char *out, size_t size)
{
	char line[LINE], echo[LINE];
	bool after = false;
	FILE *f = fopen(log, "r");

	out[0] = '\0';
	snprintf(echo, sizeof(echo), "> %s", cmd);
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		chomp(line);
		if (strncmp(line, "### harness: FAIL: ", 19) == 0)
			break;
		/* the echo follows the prompt, or, when a harness line
		 * came between them, stands alone */
		if (strcmp(line, cmd) == 0 ||
		    (strlen(line) >= strlen(echo) &&
		     strcmp(line + strlen(line) - strlen(echo), echo) == 0)) {
			after = true;
			out[0] = '\0';
		} else if (after && out[0] == '\0' && line[0] != '\0' &&
		           strncmp(line, "###", 3) != 0) {
			mask_numbers(line, out, size);
		}
	}
	if (f != NULL)
		fclose(f);
}

/* The failing step's command, if it is a console command ("" if not). */
static const char *
failing_cmd(char *out, size_t size)
{
	out[0] = '\0';
	if (fail_step >= 0 && strncmp(sc.text[fail_step], "send ", 5) == 0)
		snprintf(out, size, "%.*s",
		         (int)strcspn(sc.text[fail_step] + 5, "\n"),
		         sc.text[fail_step] + 5);
	return out;
}

/* The trial's first FAIL is the log's (the same directive by its text)
 * and the failing step's command answered as it did in the log: a
 * directive that timed out waiting for a line also times out when a
 * step it needed went (rmmod of a module never loaded), and its answer
 * tells the two apart. */
static bool
showed_bug(void)
{
	char path[512], msg[LINE], norm[LINE], text[LINE];
	int no;

	trial_log(path, sizeof(path));
	/* The audit reads the whole capture after the run, whatever failed
	 * before it, and lists each problem it found: a timing race shows
	 * as one finding or another, and a check of the scenario's own
	 * may fail first. */
	if (strncmp(sig, "audit: ", 7) == 0)
		return audit_finding_in(path, sig);
	if (!first_fail(path, msg, sizeof(msg)))
		return false;
	fail_normalise(msg, norm, sizeof(norm), &no);
	if (strcmp(norm, sig) != 0)
		return false;
	if (directive[0] == '\0')
		return true;
	if (answer[0] != '\0') {
		char cmd[LINE], got[LINE];

		first_answer(path, failing_cmd(cmd, sizeof(cmd)), got,
		             sizeof(got));
		if (strcmp(got, answer) != 0)
			return false;
	}
	snprintf(path, sizeof(path), "%s/trial.scn", workdir);
	line_of(path, no, text, sizeof(text));
	return strcmp(text, directive) == 0;
}

/* The steps a trial writes, and their console commands. */
static int
kept_steps(void)
{
	int n = 0;

	for (int i = 0; i < sc.n; i++)
		n += fail_step < 0 || i <= fail_step ? sc.keep[i]
		                                     : teardown(sc.text[i]);
	return n;
}

static int
kept_sends(void)
{
	return steps_sends(&sc, fail_step < 0 ? sc.n : fail_step + 1);
}

/* The reproducer's size.  A console command is an op, but a stress run
 * (`stress lifetime`, a whole `stress faultsweep`) is thousands: it
 * counts STRESS_OPS, so that a scenario cut down to one is never called
 * a short script (the lifetime and sweep modes shrink those). */
#define STRESS_OPS 1000
static int
ops(void)
{
	int n = kept_sends(), upto = fail_step < 0 ? sc.n : fail_step + 1;

	for (int i = 0; i < upto; i++)
		for (const char *l = sc.text[i]; sc.keep[i] && *l != '\0';) {
			if (strncmp(l, "send stress lifetime", 20) == 0 ||
			    (strncmp(l, "send stress faultsweep", 22) == 0 &&
			     strstr(l, " point=") == NULL))
				n += STRESS_OPS;
			l = strchr(l, '\n') + 1;
		}
	return n;
}

static bool
scn_trial(const char *why)
{
	FILE *f = trial_scn_open();
	bool bug;

	write_scn_trial(f);
	bug = trial_run(f) != 0 && showed_bug();
	if (bug && trial_fails_without_bug()) {
		say("trial %d (%s): %d step(s), %d console command(s): fails "
		    "on %s too (not the bug)",
		    trials, why, kept_steps(), kept_sends(), sound_dir);
		return false;
	}
	say("trial %d (%s): %d step(s), %d console command(s): %s", trials, why,
	    kept_steps(), kept_sends(), bug ? "FAILS" : "passes");
	return bug;
}

/* The kept step (not a fixed one) whose check the last trial failed
 * at, if that was not the bug's directive: a step that needed one that
 * went.  -1 if none (the trial failed otherwise, or passed). */
static int
step_that_failed(void)
{
	char path[512], msg[LINE], norm[LINE], text[LINE];
	size_t len;
	int no;

	trial_log(path, sizeof(path));
	if (!first_fail(path, msg, sizeof(msg)))
		return -1;
	fail_normalise(msg, norm, sizeof(norm), &no);
	snprintf(path, sizeof(path), "%s/trial.scn", workdir);
	line_of(path, no, text, sizeof(text));
	len = strlen(text);
	if (no <= 0 || len == 0 || strcmp(text, directive) == 0)
		return -1;
	for (int i = 0; i < sc.n; i++) {
		const char *t = sc.text[i];

		if (fixed(i) || !sc.keep[i]) /* the failing step on: fixed */
			continue;
		for (; (t = strstr(t, text)) != NULL; t += len)
			if ((t == sc.text[i] || t[-1] == '\n') &&
			    (t[len] == '\n' || t[len] == '\0'))
				return i;
	}
	return -1;
}

/* The steps in GO left out; if the trial then fails at the check of a
 * kept step instead (it needed one of them: a wait for what a left-out
 * step did), that step goes too, and again, a few times.  ddmin alone
 * keeps such a pair for ever: neither goes without the other.  True
 * (and the steps left out) if the bug showed. */
#define CASCADE 4
static bool
without(const int *go, int n)
{
	int extra[CASCADE], ne = 0;

	for (int k = 0; k < n; k++)
		sc.keep[go[k]] = false;
	for (;;) {
		int j;

		if (scn_trial(ne == 0
		                  ? "without some steps"
		                  : "and the steps whose checks needed them"))
			return true;
		if (ne == CASCADE || !reducing() ||
		    (j = step_that_failed()) < 0)
			break;
		sc.keep[j] = false;
		extra[ne++] = j;
	}
	for (int k = 0; k < n; k++)
		sc.keep[go[k]] = true;
	for (int k = 0; k < ne; k++)
		sc.keep[extra[k]] = true;
	return false;
}

/* ddmin over the steps that are not fixed: a chunk goes when the run
 * still fails without it (complements only, the common reduction), with
 * the steps whose checks then fail (without()). */
static void
ddmin_steps(void)
{
	int cand[MAXSTEPS], nc = 0, chunks = 2;

	for (int i = 0; i < sc.n; i++)
		if (!fixed(i) && (fail_step < 0 || i < fail_step))
			cand[nc++] = i;
	while (nc > 0 && reducing()) {
		int size = (nc + chunks - 1) / chunks;
		bool reduced = false;

		for (int c = 0; c * size < nc && !reduced && reducing(); c++) {
			int lo = c * size, hi = lo + size < nc ? lo + size : nc;

			if (without(cand + lo, hi - lo)) {
				/* what is left: cascaded steps went too */
				int k = 0;

				for (int i = 0; i < nc; i++)
					if (sc.keep[cand[i]])
						cand[k++] = cand[i];
				nc = k;
				chunks = chunks > 2 ? chunks - 1 : 2;
				reduced = true;
			}
		}
		if (reduced)
			continue;
		if (chunks >= nc)
			break;
		chunks = chunks * 2 < nc ? chunks * 2 : nc;
	}
	say("after delta debugging: %d step(s), %d console command(s)",
	    kept_steps(), kept_sends());
}

int
repro_scn(const char *log, const char *out, int runs)
{
	char path[512], name[256];
	const char *base;
	int failed = 0, no;
	FILE *f;

	if (!read_scn_log(log))
		return -1;
	if (steps_read(&sc, scenario, NULL, NULL) != 0)
		return 2;
	fail_normalise(fail_msg, path, sizeof(path), &no);
	for (int i = 0; i < sc.n && no > 0; i++)
		if (sc.first[i] <= no && no <= sc.last[i])
			fail_step = i;
	if (no > 0 && fail_step < 0) {
		fprintf(stderr,
		        "repro: %s: line %d (its failing directive) is no "
		        "step of %s\n",
		        log, no, scenario);
		return 2;
	}
	{
		char cmd[LINE];

		if (failing_cmd(cmd, sizeof(cmd))[0] != '\0')
			first_answer(log, cmd, answer, sizeof(answer));
	}
	find_profiles();
	make_workdir();
	say("%s: profile %s, failed with: %s", log, profile, fail_msg);
	if (answer[0] != '\0')
		say("the failing step's command answered: %s", answer);
	say("scenario %s: %d step(s); %s; trials in %s", scenario, sc.n,
	    fail_step >= 0 ? "the failing directive's step kept"
	                   : "no directive failed: every step kept",
	    workdir);
	if (!scn_trial("as it was")) {
		say("it passes (or fails otherwise): not reproduced");
		say("result: not reproduced");
		return 1;
	}
	/* the checks of the steps before it: a step's expects fail when a
	 * step before it goes, which would keep both.  Their waits stay (a
	 * lease, a timer, a host client connected: what the bug may need
	 * to have happened, and what stops a trial from leaving out the
	 * step that made it happen while a timeout still looks the same),
	 * their answers' checks go, if it still fails so */
	for (int i = 0; i < sc.n; i++)
		sc.bare[i] = !fixed(i);
	sc.bare_waits = true;
	if (scn_trial("the other steps' waits kept, not their answers' "
	              "checks")) {
		say("it needs their waits at most: answers' checks left out");
	} else {
		sc.bare_waits = false;
		memset(sc.bare, 0, sizeof(sc.bare));
		say("it needs their checks: kept");
	}
	ddmin_steps();
	failed = verify(runs, scn_trial);
	if (out == NULL) {
		base = strrchr(scenario, '/');
		base = base ? base + 1 : scenario;
		snprintf(name, sizeof(name), "%.*s",
		         (int)(strlen(base) > 4 && strlen(base) < 200
		                   ? strlen(base) - 4 /* .scn */
		                   : 0),
		         base);
		snprintf(path, sizeof(path), "tests/scenarios/repro-%s-%s.scn",
		         name, profile);
		out = path;
	}
	f = reproducer_open(out);
	fprintf(f,
	        "# A reproducer made by make repro (docs/repro.md) from\n"
	        "# %s, which failed with:\n#   %s\n# Reduced in %d trials "
	        "to %d of its scenario's %d steps (%d console\n# command(s)); "
	        "%d of %d runs failed when it was made.\n# It passes once "
	        "the bug is fixed.\n",
	        log, fail_msg, trials, kept_steps(), sc.n, kept_sends(), failed,
	        runs);
	write_scn_trial(f);
	fclose(f);
	say("wrote %s", out);
	say("result: %d op(s) (console commands of %d steps%s), %d of %d "
	    "runs fail, %d trials",
	    ops(), kept_steps(),
	    ops() > kept_sends() ? ", a whole stress run among them" : "",
	    failed, runs, trials);
	return failed == runs ? 0 : 1;
}
