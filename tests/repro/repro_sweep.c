/*
 * make repro on a run that failed in the fault sweep (docs/repro.md):
 * the sweep prints, after each FAIL line, the command that replays that
 * point alone (`stress faultsweep [MODULE] point=KEY:N`,
 * lifetime/faultsweep.c); the reproducer is that command after as few
 * of the scenario's setup steps as it needs.
 *
 *   1. the log: its scenario and profile, the first FAIL line of the
 *      sweep and its replay command
 *   2. the scenario: its boot directives and rejects, its steps before
 *      the `send stress faultsweep` (a host echo server the TCP points
 *      need), and the host steps after it (the servers' teardown); the
 *      replay takes the ports from the scenario's own command (the
 *      harness forwards new ones each boot)
 *   3. the point after every step; then each step left out, the last
 *      first, if it still fails without it
 *   4. the result run R times with the timeline on: it must fail every
 *      time
 *
 * A trial shows the bug when its log has the same FAIL line up to what
 * went wrong (the command, call and site: `FAIL: 'rmmod selfput' with
 * call 1 failing (thread)`); what went wrong may differ in its numbers.
 *
 * A sweep run that failed with no FAIL line of the sweep (a capture's
 * audit at the end, a report): the harness's first FAIL is the bug, and
 * the point is found by narrowing: each command and context the log's
 * summary lines name (`KEY: N failure points`), in their order, runs
 * its points 1-N alone (`point=KEY:1-N`) until one shows the bug; then
 * halves of that range while one half still does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/repro/repro.h"
#include "tests/repro/steps.h"

static struct steps sc;       /* the scenario before its faultsweep command */
static struct steps after;    /* ... and after it */
static char fail_line[LINE];  /* the first FAIL line, as it was */
static char sig[LINE];        /* its command, call and site */
static char replay[LINE];     /* the point's command, ports the scenario's */
static unsigned sweep_cmds;   /* the commands the point runs before it */
static char sweep_line[LINE]; /* the scenario's `send stress faultsweep` */

/* Narrowing: the harness's first FAIL (normalised), the sweep's commands
 * and contexts from its summary lines, the log's own ports. */
#define MAXCANDS 96
static bool narrowing;
static char fail_sig[LINE];
static struct cand {
	char key[128], mod[32];
	unsigned points;
} cands[MAXCANDS];
static int ncands;
static char old_ports[128];
static unsigned first_call, last_call; /* the replay's calls */

static bool
runs_sweep(const char *line)
{
	return strncmp(line, "send stress faultsweep", 22) == 0 &&
	       (line[22] == ' ' || line[22] == '\0');
}

/* The value of ARG= in LINE's words ("" if none), for the ports. */
static void
arg_of(const char *line, const char *arg, char *out, size_t size)
{
	size_t n = strlen(arg);

	out[0] = '\0';
	for (const char *p = line; (p = strstr(p, arg)) != NULL; p += n)
		if ((p == line || p[-1] == ' ') && p[n] == '=') {
			snprintf(out, size, "%.*s",
			         (int)strcspn(p + n + 1, " "), p + n + 1);
			return;
		}
}

/* A summary line of the sweep: "KEY text: N failure points (...)", a
 * module's commands between its insmod's and its rmmod's. */
static void
read_summary(const char *text, char *mod, size_t modsize)
{
	char what[128], work[32];
	unsigned n;
	struct cand *c = &cands[ncands];
	const char *colon = strstr(text, ": ");

	if (colon == NULL || sscanf(colon, ": %u failure points", &n) != 1 ||
	    (size_t)(colon - text) >= sizeof(what) || ncands == MAXCANDS)
		return;
	snprintf(what, sizeof(what), "%.*s", (int)(colon - text), text);
	if (strncmp(what, "insmod ", 7) == 0)
		snprintf(mod, modsize, "%.31s", what + 7);
	if (sscanf(what, "context %31s (%31[^ )]", c->key, work) == 2) {
		snprintf(c->key + strlen(c->key),
		         sizeof(c->key) - strlen(c->key), ",%s", work);
		memmove(c->key + 8, c->key, strlen(c->key) + 1);
		memcpy(c->key, "context,", 8);
		c->mod[0] = '\0';
	} else {
		snprintf(c->key, sizeof(c->key), "%s", what);
		for (char *p = c->key; *p != '\0'; p++)
			if (*p == ' ')
				*p = ',';
		snprintf(c->mod, sizeof(c->mod), "%s", mod);
	}
	c->points = n;
	if (strncmp(what, "rmmod ", 6) == 0)
		mod[0] = '\0'; /* the module's commands end */
	if (n > 0)
		ncands++;
}

/* The first FAIL line and its replay command, or (narrowing) the
 * harness's first FAIL and the sweep's summary lines; false if neither. */
static bool
read_sweep_log(const char *log)
{
	char line[LINE], cmd[LINE] = "", mod[32] = "";
	char msg[LINE];
	FILE *f = fopen(log, "r");
	const char *p;
	int no;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		chomp(line);
		if ((p = strstr(line, "> stress faultsweep")) != NULL)
			for (int i = 0; i < 2; i++) {
				const char *k = i ? "listenport" : "tcpport";
				char v[64];

				arg_of(p + 2, k, v, sizeof(v));
				if (v[0] != '\0')
					snprintf(old_ports + strlen(old_ports),
					         sizeof(old_ports) -
					             strlen(old_ports),
					         " %s=%s", k, v);
			}
		if ((p = strstr(line, "stress: faultsweep: ")) != NULL &&
		    strstr(p, " failure points") != NULL)
			read_summary(p + 20, mod, sizeof(mod));
		read_run_header(line);
		if (fail_line[0] == '\0' &&
		    (p = strstr(line, "stress: faultsweep: FAIL: ")) != NULL)
			snprintf(fail_line, sizeof(fail_line), "%s", p);
		else if (fail_line[0] != '\0' && cmd[0] == '\0' &&
		         (p = strstr(line, "stress: faultsweep: replay: ")) !=
		             NULL)
			snprintf(cmd, sizeof(cmd), "%s", p + 28);
	}
	if (f != NULL)
		fclose(f);
	if (scenario[0] == '\0')
		return false;
	if (cmd[0] == '\0') {
		/* no FAIL of the sweep: narrow, if the sweep ran */
		if (ncands == 0 || !first_fail(log, msg, sizeof(msg)))
			return false;
		fail_normalise(msg, fail_sig, sizeof(fail_sig), &no);
		snprintf(fail_line, sizeof(fail_line), "%s", msg);
		narrowing = true;
		return true;
	}
	/* "FAIL: 'LINE' with call N failing (SITE): what" */
	p = strstr(fail_line, " failing (");
	if (p == NULL || strstr(p, "): ") == NULL)
		return false;
	snprintf(sig, sizeof(sig), "%.*s",
	         (int)(strstr(p, "): ") - fail_line + 1), fail_line);
	/* the replay without its ports: the scenario's go in */
	snprintf(replay, sizeof(replay), "%s", cmd);
	return true;
}

/* KEY's ",OLD," or ",OLD:" (a port in a swept command's line: the
 * tcpconnect point's key names it) becomes NEW. */
static void
key_port(char *key, size_t size, const char *old, const char *new)
{
	char buf[LINE * 2], pat[LINE];
	char *p;

	for (int end = 0; end < 2 && old[0] != '\0'; end++) {
		snprintf(pat, sizeof(pat), ",%s%c", old, end ? ':' : ',');
		if ((p = strstr(key, pat)) == NULL)
			continue;
		snprintf(buf, sizeof(buf), "%.*s,%s%s", (int)(p - key), key,
		         new, p + strlen(pat) - 1);
		if (strlen(buf) < size)
			memcpy(key, buf, strlen(buf) + 1);
		return;
	}
}

/* The replay with the scenario's own tcpport= and listenport= (each
 * boot forwards other host ports), in its point's key too. */
static int
set_ports(const char *sweep_line)
{
	char words[LINE], out[LINE] = "", v[256], old[2][64] = {"", ""};
	char key[LINE] = "", *save = NULL;

	snprintf(words, sizeof(words), "%s", replay);
	for (char *w = strtok_r(words, " ", &save); w != NULL;
	     w = strtok_r(NULL, " ", &save)) {
		if (strncmp(w, "tcpport=", 8) == 0)
			snprintf(old[0], sizeof(old[0]), "%s", w + 8);
		else if (strncmp(w, "listenport=", 11) == 0)
			snprintf(old[1], sizeof(old[1]), "%s", w + 11);
		else if (strncmp(w, "point=", 6) == 0)
			snprintf(key, sizeof(key), "%s", w);
		else
			snprintf(out + strlen(out), sizeof(out) - strlen(out),
			         "%s%s", out[0] ? " " : "", w);
	}
	for (int i = 0; i < 2; i++) {
		const char *k = i == 0 ? "tcpport" : "listenport";

		arg_of(sweep_line, k, v, sizeof(v));
		if (v[0] == '\0')
			continue;
		snprintf(out + strlen(out), sizeof(out) - strlen(out), " %s=%s",
		         k, v);
		key_port(key, sizeof(key), old[i], v);
	}
	snprintf(out + strlen(out), sizeof(out) - strlen(out), " %s", key);
	if (strlen(out) + 5 > 255) { /* "send " aside: the console's limit */
		fprintf(stderr, "repro: the replay is too long: %s\n", out);
		return -1;
	}
	snprintf(replay, sizeof(replay), "%s", out);
	return 0;
}

/* The scenario: the steps before the sweep, the host steps after. */
static int
read_sweep_scenario(void)
{
	char line[LINE];
	bool found;
	FILE *f;

	if (steps_read(&sc, scenario, runs_sweep, &found) != 0)
		return -1;
	if (!found) {
		fprintf(stderr,
		        "repro: %s: no 'send stress faultsweep' line (a "
		        "sweep run otherwise is not reduced)\n",
		        scenario);
		return -1;
	}
	/* its line, and what comes after it */
	f = fopen(scenario, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		chomp(line);
		if (runs_sweep(line)) {
			snprintf(sweep_line, sizeof(sweep_line), "%s", line);
			break;
		}
	}
	if (f != NULL)
		fclose(f);
	if (steps_read(&after, scenario, NULL, NULL) != 0)
		return -1;
	return narrowing ? 0 : set_ports(sweep_line);
}

/* The replay of candidate C's calls A to B. */
static int
set_replay(const struct cand *c, unsigned a, unsigned b)
{
	char calls[32];

	if (a == b)
		snprintf(calls, sizeof(calls), "%u", a);
	else
		snprintf(calls, sizeof(calls), "%u-%u", a, b);
	snprintf(replay, sizeof(replay), "stress faultsweep%s%s%s point=%s:%s",
	         c->mod[0] ? " " : "", c->mod, old_ports, c->key, calls);
	first_call = a;
	last_call = b;
	return set_ports(sweep_line);
}

static void
write_sweep_scn(FILE *f)
{
	bool past = false;

	steps_write(&sc, f, profile, tracing ? " trace=on" : "", sc.n);
	/* a point that no longer runs (its command gone, its call never
	 * reached, the sweep stopped) fails at once, not at the expect's end */
	fprintf(f, "reject ^stress: E[A-Z]+: faultsweep: \n");
	fprintf(f,
	        "send %s\nexpect -t 600 ^stress: faultsweep: PASS: point "
	        "\nprompt -t 60\n",
	        replay);
	/* the host steps after the sweep: its servers' teardown */
	for (int i = 0; i < after.n; i++) {
		if (runs_sweep(after.text[i]))
			past = true;
		else if (past && starts(after.text[i], "host"))
			fputs(after.text[i], f);
	}
	fprintf(f, "send poweroff\nexit success\n");
}

/* The FAIL line again, and how many commands the point ran first. */
static bool
showed_bug(void)
{
	char path[512], line[LINE];
	bool seen = false;
	FILE *f;

	trial_log(path, sizeof(path));
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, "stress: faultsweep: point ");
		const char *a = p ? strstr(p, " after ") : NULL;

		if (a != NULL)
			sscanf(a, " after %u command(s)", &sweep_cmds);
		seen |= !narrowing && strstr(line, sig) != NULL;
	}
	if (f != NULL)
		fclose(f);
	if (narrowing) {
		char msg[LINE], norm[LINE];
		int no;

		if (!first_fail(path, msg, sizeof(msg)))
			return false;
		fail_normalise(msg, norm, sizeof(norm), &no);
		seen = strcmp(norm, fail_sig) == 0;
	}
	return seen;
}

/* The reproducer's size: its console commands, and the sweep's commands
 * its point runs before the point itself. */
static int
ops(void)
{
	return steps_sends(&sc, sc.n) + 1 + (int)sweep_cmds +
	       (int)(last_call - first_call);
}

static bool
sweep_trial(const char *why)
{
	FILE *f = trial_scn_open();
	bool bug;

	write_sweep_scn(f);
	bug = trial_run(f) != 0 && showed_bug();
	say("trial %d (%s): %s after %d setup command(s): %s", trials, why,
	    replay, steps_sends(&sc, sc.n), bug ? "FAILS" : "passes");
	return bug;
}

/* No FAIL line named the point: each command's or context's points
 * alone, in the sweep's order, until one shows the bug; then halves of
 * its range.  last_call is 0 if none did. */
static int
narrow(void)
{
	int found = -1;
	unsigned lo, hi;

	say("no FAIL line of the sweep names a point: narrowing over the "
	    "%d command(s) and context(s) with points; trials in %s",
	    ncands, workdir);
	for (int i = 0; i < ncands && found < 0; i++) {
		if (set_replay(&cands[i], 1, cands[i].points) != 0)
			return -1;
		if (sweep_trial("a command's or context's points"))
			found = i;
	}
	if (found < 0) {
		last_call = 0;
		return 0;
	}
	lo = 1;
	hi = cands[found].points;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (set_replay(&cands[found], lo, mid) != 0)
			return -1;
		if (sweep_trial("the first half")) {
			hi = mid;
			continue;
		}
		if (set_replay(&cands[found], mid + 1, hi) != 0)
			return -1;
		if (!sweep_trial("the second half"))
			break; /* it needs points of both */
		lo = mid + 1;
	}
	return set_replay(&cands[found], lo, hi);
}

int
repro_sweep(const char *log, const char *out, int runs)
{
	char path[512];
	int failed = 0;
	FILE *f;

	if (!read_sweep_log(log))
		return -1;
	if (read_sweep_scenario() != 0)
		return 2;
	find_profiles();
	make_workdir();
	say("%s: profile %s, failed in the fault sweep: %s", log, profile,
	    fail_line);
	if (narrowing) {
		if (narrow() != 0)
			return 2;
		if (last_call == 0) {
			say("no command's or context's points alone show it: "
			    "not reproduced");
			say("result: not reproduced");
			return 1;
		}
	} else {
		say("the point alone: %s; %d setup step(s) before it; trials "
		    "in %s",
		    replay, sc.n, workdir);
		if (!sweep_trial("the point alone")) {
			say("it passes: not reproduced");
			say("result: not reproduced");
			return 1;
		}
	}
	steps_leave_out(&sc, sweep_trial);
	say("after the setup steps: %d console command(s), the point after "
	    "%u command(s) of the sweep",
	    steps_sends(&sc, sc.n) + 1, sweep_cmds);
	failed = verify(runs, sweep_trial);
	if (out == NULL) {
		const char *k = strstr(replay, "point=") + 6;

		snprintf(path, sizeof(path),
		         "tests/scenarios/repro-faultsweep-%.*s.scn",
		         (int)strcspn(k, " "), k);
		for (char *p = path + 32; *p != '\0'; p++)
			if (*p == ',' || *p == ':' || *p == '/')
				*p = '-';
		out = path;
	}
	f = reproducer_open(out);
	fprintf(f,
	        "# A reproducer made by make repro (docs/repro.md) from\n"
	        "# %s, which failed in the fault sweep:\n#   %s\n# Reduced "
	        "in %d trials to that point alone after %d command(s) of\n"
	        "# its scenario's setup (the point runs %u of the sweep's "
	        "commands first);\n# %d of %d runs failed when it was made.  "
	        "It passes once the bug is fixed.\n",
	        log, fail_line, trials, steps_sends(&sc, sc.n), sweep_cmds,
	        failed, runs);
	write_sweep_scn(f);
	fclose(f);
	say("wrote %s", out);
	say("result: %d op(s) (a fault sweep point), %d of %d runs fail, %d "
	    "trials",
	    ops(), failed, runs, trials);
	return failed == runs ? 0 : 1;
}
