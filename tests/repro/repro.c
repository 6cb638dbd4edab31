/*
 * make repro LOG=build/.../X.log: from a failing lifetime stress run to
 * a small deterministic reproducer (docs/repro.md).  The log's header
 * names its scenario and profile; the scenario gives the boot (profile,
 * cmdline, modules, forwards) and whatever it did before the stress;
 * the log gives the run's parameters ("stress: lifetime: run: ...").
 * Each trial boots that with one stress command and fails if the run
 * does not end in PASS (or the scenario's rejects match).  In order:
 *
 *   1. the run as it was; if it passes (the failure was an interleaving
 *      of the multi-CPU stress), the same under sched=pct:S for S = 1..N
 *      until one fails: from here every trial is a controlled schedule
 *   2. fewer workers (1, 2, ...)
 *   3. fewer ops: the shortest prefix that still fails (bisection; each
 *      worker's ops depend only on the seed, so a prefix is a prefix)
 *   4. fewer modules (each left out if the run still fails without
 *      it), then the ops again (the ops' targets moved); op kinds are
 *      not shrunk by their weights: delta debugging removes any op
 *   5. the ops the run started (oplog=1) as an explicit script (stress
 *      script, script=1), and its schedule's change points as places
 *      (at=: a worker, an op, a point in it), so they stay with their
 *      ops; then delta debugging (ddmin) over the ops: any op may go,
 *      not only a tail; then each change point left out if it may be
 *   6. the result run R times (default 10): it must fail every time
 *
 * A trial shows the bug when its log has a failure line (a report, a
 * panic, a broken invariant, the stress's FAIL or end-state lines); one
 * that fails without (a refused command) counts as passing.
 *
 * Progress and the size at each step go to stderr; the result is a
 * scenario (default tests/scenarios/repro-NAME.scn) that fails today
 * and passes once the bug is fixed, and the ops of the last trial (its
 * oplog lines) are printed as the script.  Trials run in
 * build/repro/PID.
 *
 *   repro [-o SCN] [-r RUNS] [-s SEEDS] [-j JOBS] [-m MAXTRIALS] [-T SECS]
 *         [-S DIR] LOG
 *
 * -S DIR names a built tree without the bug (the fix applied): a
 * scenario-mode trial that fails the same way counts only if it passes
 * there (a timeout also comes when a trial left out what made the
 * awaited line come: only the fixed tree tells the two apart).
 * -m bounds the trials make repro may use (default 400), -T its time
 * from the start (default none), every step's alike (seeds, workers,
 * ops, modules, delta debugging): past them it keeps the smallest
 * failing run found by then.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/repro/repro.h"

#define MAXSETUP 64
#define MAXKV    32

char scenario[LINE], profile[128];
static char cmdline[LINE], modules[LINE];
static char setup[MAXSETUP][LINE]; /* scenario lines before the stress */
static int nsetup;
static char failure[LINE]; /* the first line that says what failed */

/* The stress command as KEY=VALUE pairs, so steps can change one. */
static struct {
	char k[32], v[LINE];
} kv[MAXKV];
static int nkv;
int trials;
double t0;

/* Delta debugging: the ops as a list, each with its worker and
 * argument, run by `stress script` + script=1 instead of a seed. */
#define MAXOPS 512
struct op {
	int w;
	unsigned idx; /* its number in the worker's ops of the oplog run */
	char name[24];
	unsigned arg;
	unsigned fault; /* 0, or the injected failure it ran with (faults=) */
};
static struct op script[MAXOPS];
static int nscript;
/* The schedule's change points as places (at=, kernel/sched/schedctl.h): a
 * worker, an op (its oplog number) and a point within it.  A trial
 * renumbers them for the ops it keeps; a place whose op went moves to
 * the start of the worker's next op. */
#define MAXPLACES 7
struct place {
	int w;
	unsigned idx, pt;
};
static struct place places[MAXPLACES];
static int nplaces;
static bool use_script; /* trials run script[] */
bool tracing;
static int max_trials = 400; /* delta debugging stops there */
static double max_secs;      /* -T: and after this long (0: never) */

double
now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void
say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "repro: [%4.0f s] ", now_s() - t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* May delta debugging try one more trial?  Within -m trials and -T
 * seconds: past them the smallest failing run so far is the result
 * (said once). */
bool
reducing(void)
{
	static bool said;

	if (trials < max_trials && (max_secs <= 0 || now_s() - t0 < max_secs))
		return true;
	if (!said)
		say("the budget is spent (%d trials, %.0f s): the smallest "
		    "failing run so far is the result",
		    trials, now_s() - t0);
	said = true;
	return false;
}

void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static const char *
get(const char *k)
{
	for (int i = 0; i < nkv; i++)
		if (strcmp(kv[i].k, k) == 0)
			return kv[i].v;
	return NULL;
}

static void
set(const char *k, const char *v)
{
	for (int i = 0; i < nkv; i++)
		if (strcmp(kv[i].k, k) == 0) {
			snprintf(kv[i].v, sizeof(kv[i].v), "%s", v);
			return;
		}
	if (nkv < MAXKV) {
		snprintf(kv[nkv].k, sizeof(kv[nkv].k), "%s", k);
		snprintf(kv[nkv].v, sizeof(kv[nkv].v), "%s", v);
		nkv++;
	}
}

static void
unset(const char *k)
{
	for (int i = 0; i < nkv; i++)
		if (strcmp(kv[i].k, k) == 0) {
			kv[i] = kv[--nkv];
			return;
		}
}

static long
getnum(const char *k, long dflt)
{
	const char *v = get(k);

	return v != NULL ? strtol(v, NULL, 10) : dflt;
}

static void
setnum(const char *k, long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%ld", v);
	set(k, b);
}

static void
command(char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "stress lifetime");

	for (int i = 0; i < nkv && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, " %s=%s", kv[i].k,
		                      kv[i].v);
}

/* "stress lifetime k=v k=v ..." into kv[]; -1 if not that. */
static int
parse_command(const char *line)
{
	char buf[LINE], *save = NULL, *tok;

	if (strncmp(line, "stress lifetime ", 16) != 0)
		return -1;
	snprintf(buf, sizeof(buf), "%s", line + 16);
	nkv = 0;
	for (tok = strtok_r(buf, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || eq - tok >= 32)
			return -1;
		*eq = '\0';
		set(tok, eq + 1);
	}
	return nkv > 0 ? 0 : -1;
}

/* A line of a stress run's log that says it failed: a report, a
 * panic, a broken invariant, the stress's own verdict. */
bool
is_failure_line(const char *line)
{
	return strstr(line, "stress: FAIL") != NULL ||
	       strstr(line, "stress: end state:") != NULL ||
	       strstr(line, "use-after-unload") != NULL ||
	       strstr(line, "KERNEL PANIC") != NULL ||
	       strstr(line, "invariant:") != NULL;
}

/* The log: its scenario and profile, the run's parameters, the first
 * failure line. */
static int
read_log(const char *path)
{
	char line[LINE];
	FILE *f = fopen(path, "r");
	bool have_cmd = false;

	if (f == NULL) {
		fprintf(stderr, "repro: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p;

		chomp(line);
		if (read_run_header(line))
			continue;
		/* the run that failed: a scenario may run several */
		if (failure[0] == '\0' &&
		    (p = strstr(line, "stress: lifetime: run: ")) != NULL) {
			have_cmd = parse_command(p + 23) == 0;
			continue;
		}
		if (failure[0] == '\0' && have_cmd && is_failure_line(line))
			snprintf(failure, sizeof(failure), "%s", line);
	}
	fclose(f);
	if (scenario[0] == '\0' || profile[0] == '\0') {
		fprintf(stderr,
		        "repro: %s: no '### harness: scenario S, "
		        "profile P' line (not a harness log)\n",
		        path);
		return -1;
	}
	if (!have_cmd) {
		fprintf(stderr,
		        "repro: %s: no 'stress: lifetime: run:' line "
		        "(not a lifetime stress run)\n",
		        path);
		return -1;
	}
	/* how it ran, not what: a trial shows no progress, runs in front */
	set("progress", "0");
	return 0;
}

/* A value the scenario gave as a harness variable (tcpport=${PORT0}: a
 * port forwarded for each boot) goes into the trials as the variable,
 * not as the log's value, which was the old boot's. */
static void
keep_vars(const char *stress_line)
{
	char buf[LINE], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", stress_line);
	for (char *tok = strtok_r(buf, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || strstr(eq, "${") == NULL || eq - tok >= 32)
			continue;
		*eq = '\0';
		set(tok, eq + 1);
	}
}

/* The scenario: its boot directives and what it did before the stress
 * command (setup sends, host servers); rejects too. */
static int
read_scenario(void)
{
	char line[LINE];
	FILE *f = fopen(scenario, "r");

	if (f == NULL) {
		fprintf(stderr, "repro: %s: %s\n", scenario, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		chomp(line);
		if (strncmp(line, "send stress lifetime", 20) == 0) {
			keep_vars(line + 5);
			break;
		}
		if (line[0] == '#' || line[0] == '\0' ||
		    strncmp(line, "profiles ", 9) == 0 ||
		    strncmp(line, "limit ", 6) == 0 ||
		    strncmp(line, "expect", 6) == 0)
			continue;
		if (strncmp(line, "cmdline ", 8) == 0) {
			snprintf(cmdline, sizeof(cmdline), "%s", line);
			continue;
		}
		if (strncmp(line, "modules ", 8) == 0) {
			snprintf(modules, sizeof(modules), "%s", line);
			continue;
		}
		if (nsetup == MAXSETUP) {
			fprintf(stderr,
			        "repro: %s: more than %d lines before "
			        "the stress\n",
			        scenario, MAXSETUP);
			fclose(f);
			return -1;
		}
		snprintf(setup[nsetup++], LINE, "%s", line);
	}
	fclose(f);
	return 0;
}

/* `stress script` lines for script[], each under the console's 255
 * characters, workers in order and each worker's ops in order. */
static void
write_script(FILE *f)
{
	fprintf(f, "send stress script clear\nprompt\n");
	for (int w = 0; w < 16; w++) {
		char line[256];
		size_t n = 0;

		for (int i = 0; i < nscript; i++) {
			char item[48];

			if (script[i].w != w)
				continue;
			if (script[i].fault != 0)
				snprintf(item, sizeof(item), " %s:0x%x:%u",
				         script[i].name, script[i].arg,
				         script[i].fault);
			else
				snprintf(item, sizeof(item), " %s:0x%x",
				         script[i].name, script[i].arg);
			if (n != 0 && n + strlen(item) > 200) {
				fprintf(f, "send %s\nprompt\n", line);
				n = 0;
			}
			if (n == 0)
				n = (size_t)snprintf(line, sizeof(line),
				                     "stress script %d", w);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s",
			                      item);
		}
		if (n != 0)
			fprintf(f, "send %s\nprompt\n", line);
	}
}

static void
write_scn(FILE *f, const char *cmd)
{
	fprintf(f, "profiles %s\n", profile);
	/* the timeline (docs/trace.md): a failing run's log carries it */
	if (cmdline[0] || tracing)
		fprintf(f, "%s%s\n", cmdline[0] ? cmdline : "cmdline",
		        tracing ? " trace=on" : "");
	if (modules[0])
		fprintf(f, "%s\n", modules);
	/* a refused command fails at once, not at the expect's timeout;
	 * so does a run that failed (its end state, its EIO verdict: an
	 * expect of PASS would wait its 500 s) */
	fprintf(f, "limit 600\nreject KERNEL PANIC\nreject use-after-unload\n"
	           "reject stress: FAIL\nreject invariant:\n"
	           "reject stress: end state:\nreject ^stress: EIO: lifetime: "
	           "\nreject ^stress: E(INVAL|NOENT|NOSPC): \n");
	for (int i = 0; i < nsetup; i++)
		if (strncmp(setup[i], "reject ", 7) != 0 ||
		    (strstr(setup[i], "PANIC") == NULL &&
		     strstr(setup[i], "use-after-unload") == NULL &&
		     strstr(setup[i], "stress: FAIL") == NULL &&
		     strstr(setup[i], "invariant:") == NULL))
			fprintf(f, "%s\n", setup[i]);
	if (use_script)
		write_script(f);
	fprintf(f,
	        "send %s\nexpect -t 500 ^stress: lifetime: PASS\nprompt\n"
	        "send poweroff\nexit success\n",
	        cmd);
}

/* build/repro/PID: two repros at once must not share their trials */
char workdir[64];
int jobs = 1;
/* make stress's runs use profiles of their own (build/stress/profiles,
 * beside the scenarios in build/stress/scn): found from the scenario */
char profiles_opt[LINE + 64];

void
find_profiles(void)
{
	char dir[LINE], path[LINE + 256];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", scenario);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/../profiles/%s.profile", dir, profile);
	if (stat(path, &st) == 0)
		snprintf(profiles_opt, sizeof(profiles_opt),
		         "--profiles %s/../profiles", dir);
}

/* -S DIR: a built tree without the bug (the fix applied), or NULL */
const char *sound_dir;

bool
trial_fails_without_bug(void)
{
	char here[LINE], opt[2 * LINE + 64], sh[8 * LINE];
	const char *prof = profiles_opt;

	if (sound_dir == NULL || getcwd(here, sizeof(here)) == NULL)
		return false;
	/* its harness, kernel and modules; the trial's paths from here */
	if (strncmp(prof, "--profiles ", 11) == 0 && prof[11] != '/')
		snprintf(opt, sizeof(opt), "--profiles %s/%s", here, prof + 11);
	else
		snprintf(opt, sizeof(opt), "%s", prof);
	snprintf(sh, sizeof(sh),
	         "cd %s && build/host/modref-harness test -j %d %s --logs "
	         "%s/%s/sound %s/%s/trial.scn >%s/%s/sound.out 2>&1",
	         sound_dir, jobs, opt, here, workdir, here, workdir, here,
	         workdir);
	return system(sh) != 0;
}

/* The last trial's serial log. */
void
trial_log(char *path, size_t size)
{
	snprintf(path, size, "%s/logs/trial-%s.log", workdir, profile);
}

/* The first failure line of the last trial's log, "" if none. */
static void
last_failure(char *out, size_t size)
{
	char path[512], line[LINE];
	FILE *f;

	out[0] = '\0';
	trial_log(path, sizeof(path));
	f = fopen(path, "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (is_failure_line(line)) {
			chomp(line);
			snprintf(out, size, "%s", line);
			break;
		}
	fclose(f);
}

/* Is there a line in the last trial's log that says the run failed
 * (what read_log looks for)?  A trial that fails without one (its
 * command refused, the boot broken) did not show the bug. */
static bool
failed_as_bug(void)
{
	char line[LINE];

	last_failure(line, sizeof(line));
	return line[0] != '\0';
}

/* The last trial's timeline as Perfetto JSON beside its log. */
void
keep_trace(void)
{
	char sh[1024];

	snprintf(sh, sizeof(sh),
	         "grep -q '^trace: begin ' %s/logs/trial-%s.log && "
	         "build/host/modref-trace json %s/logs/trial-%s.log "
	         "%s/logs/trial-%s.trace.json",
	         workdir, profile, workdir, profile, workdir, profile);
	if (system(sh) == 0)
		say("the last verifying run's timeline: "
		    "%s/logs/trial-%s.trace.json "
		    "(docs/trace.md)",
		    workdir, profile);
	else
		say("the last verifying run left no timeline in its log");
}

int
verify(int runs, bool (*trial)(const char *why))
{
	int failed = 0;

	tracing = true;
	for (int r = 0; r < runs; r++) {
		char log[512], sh[1280];

		if (trial("verifying")) {
			failed++;
			continue;
		}
		/* a run that did not fail: its log stays, to tell a bug
		 * that shows only now and then from a broken run */
		trial_log(log, sizeof(log));
		snprintf(sh, sizeof(sh), "cp %s %s/logs/verify-%d-passed.log",
		         log, workdir, r + 1);
		if (system(sh) == 0)
			say("verifying run %d did not fail: its log is "
			    "%s/logs/verify-%d-passed.log",
			    r + 1, workdir, r + 1);
	}
	keep_trace();
	tracing = false;
	return failed;
}

FILE *
reproducer_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(2);
	}
	return f;
}

bool
read_run_header(const char *line)
{
	char sc[LINE], pr[128];

	if (sscanf(line, "### harness: scenario %4000[^,], profile %127s", sc,
	           pr) != 2)
		return false;
	if (scenario[0] == '\0') {
		snprintf(scenario, sizeof(scenario), "%s", sc);
		snprintf(profile, sizeof(profile), "%s", pr);
	}
	return true;
}

void
make_workdir(void)
{
	mkdir("build", 0755);
	mkdir("build/repro", 0755);
	snprintf(workdir, sizeof(workdir), "build/repro/%d", (int)getpid());
	mkdir(workdir, 0755);
}

FILE *
trial_scn_open(void)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trial.scn", workdir);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	return f;
}

int
trial_run(FILE *f)
{
	char sh[LINE + 512];
	int r;

	fclose(f);
	trials++;
	snprintf(sh, sizeof(sh),
	         "build/host/modref-harness test -j %d %s --logs %s/logs "
	         "%s/trial.scn >%s/trial.out 2>&1",
	         jobs, profiles_opt, workdir, workdir, workdir);
	r = system(sh);
	return r == -1 ? -1 : WIFEXITED(r) ? WEXITSTATUS(r) : 128;
}

/* One boot; true if the run failed (the bug showed). */
static bool
trial(const char *why)
{
	char cmd[LINE];
	FILE *f;
	int r;

	command(cmd, sizeof(cmd));
	if (strlen(cmd) > 255) { /* the console's line limit */
		say("the command is %zu characters, the console takes 255: "
		    "%s",
		    strlen(cmd), cmd);
		exit(2);
	}
	f = trial_scn_open();
	write_scn(f, cmd);
	r = trial_run(f);
	if (r != 0 && !failed_as_bug()) {
		say("trial %d (%s): %s: failed, but with no failure line "
		    "(a refused command? see %s/trial.out): counted as "
		    "passing",
		    trials, why, cmd + 16, workdir);
		return false;
	}
	say("trial %d (%s): %s: %s", trials, why, cmd + 16,
	    r == 0 ? "passes" : "FAILS");
	return r != 0;
}

static void
size_line(const char *step)
{
	const char *mix = get("mix"), *mods = get("mods");

	say("after %s: ops=%ld workers=%ld mods=%s mix=%s%s%s", step,
	    getnum("ops", 0), getnum("workers", 0), mods ? mods : "(default)",
	    mix ? mix : "(default)", get("sched") ? " sched=" : "",
	    get("sched") ? get("sched") : "");
}

/* Try kv[k]=v; keep it if the run still fails, else put back. */
static bool
try_set(const char *k, const char *v, const char *why)
{
	char old[LINE];
	const char *o = get(k);
	bool had = o != NULL;

	snprintf(old, sizeof(old), "%s", had ? o : "");
	set(k, v);
	if (trial(why))
		return true;
	if (had)
		set(k, old);
	else
		unset(k);
	return false;
}

static void
shrink_ops(void)
{
	long lo = 1, hi = getnum("ops", 1000), ok = hi;

	while (lo < hi && reducing()) {
		long mid = lo + (hi - lo) / 2;
		char b[32];

		snprintf(b, sizeof(b), "%ld", mid);
		if (try_set("ops", b, "fewer ops")) {
			ok = mid;
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	setnum("ops", ok);
}

/* Drop each element of a comma list (mods=) if the run still fails;
 * true if any went. */
static bool
shrink_list(const char *k)
{
	char list[LINE], trialv[LINE];
	int n = 0;
	char *items[64], *save = NULL;
	bool dropped = false;

	if (get(k) == NULL)
		return false;
	snprintf(list, sizeof(list), "%s", get(k));
	for (char *t = strtok_r(list, ",", &save); t != NULL && n < 64;
	     t = strtok_r(NULL, ",", &save))
		items[n++] = t;
	for (int i = 0; i < n && n > 1 && reducing(); i++) {
		size_t len = 0;

		trialv[0] = '\0';
		for (int j = 0; j < n; j++)
			if (j != i)
				len += (size_t)snprintf(
				    trialv + len, sizeof(trialv) - len, "%s%s",
				    len ? "," : "", items[j]);
		if (try_set(k, trialv, "without one")) {
			for (int j = i; j + 1 < n; j++)
				items[j] = items[j + 1];
			n--;
			i--;
			dropped = true;
		}
	}
	return dropped;
}

/* at= for the ops cand[0..n-1] keeps and the places pl[0..np-1]: each
 * renumbered within its worker's kept ops; none if no place is left. */
static void
set_places(const struct op *cand, int n, const struct place *pl, int np)
{
	char v[LINE];
	size_t len = 0;
	int workers = 0;

	for (int i = 0; i < n; i++)
		if (cand[i].w + 1 > workers)
			workers = cand[i].w + 1;
	for (int k = 0; k < np; k++) {
		unsigned pos = 0, pt = pl[k].pt;
		bool found = false;

		if (pl[k].w >= workers) /* the worker has no ops left */
			continue;
		for (int i = 0; i < n && !found; i++) {
			if (cand[i].w != pl[k].w)
				continue;
			if (cand[i].idx >= pl[k].idx) {
				found = true;
				if (cand[i].idx > pl[k].idx)
					pt = 0; /* its op went: the next's */
			} else {
				pos++;
			}
		}
		if (!found)
			pt = 0; /* the point after the worker's last op */
		len += (size_t)snprintf(v + len, sizeof(v) - len, "%s%d.%u.%u",
		                        len ? "," : "", pl[k].w, pos, pt);
	}
	if (len == 0) { /* none: PCT of depth 1, priorities alone */
		unset("at");
		set("depth", "1");
	} else {
		unset("depth");
		set("at", v);
	}
}

/* The ops a run started (its oplog=1 lines, in the log at PATH), in order,
 * and its change points. */
static int
read_oplog(const char *path)
{
	char line[LINE];
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	nscript = 0;
	nplaces = 0;
	while (fgets(line, sizeof(line), f) != NULL && nscript < MAXOPS) {
		struct op *o = &script[nscript];
		unsigned idx;

		const char *at = strstr(line, "schedctl: change point at ");

		int n = 0;

		if (sscanf(line, "stress: op w%d #%u %23[^:]:0x%x%n", &o->w,
		           &idx, o->name, &o->arg, &n) == 4 &&
		    o->w >= 0 && o->w < 16) {
			o->idx = idx;
			/* OP:ARG:N: the op ran with its Nth call failing */
			if (line[n] != ':' ||
			    sscanf(line + n + 1, "%u", &o->fault) != 1)
				o->fault = 0;
			nscript++;
		}
		if (at != NULL && nplaces < MAXPLACES &&
		    sscanf(at + 26, "%d.%u.%u", &places[nplaces].w,
		           &places[nplaces].idx, &places[nplaces].pt) == 3 &&
		    places[nplaces].w >= 0 && places[nplaces].w < 16)
			nplaces++;
	}
	fclose(f);
	return nscript;
}

/* A trial of the ops cand[] under the places pl[]; kept if it fails. */
static bool
script_trial(const struct op *cand, int n, const struct place *pl, int np,
             const char *why)
{
	struct op saved[MAXOPS];
	struct place savedpl[MAXPLACES];
	int nsaved = nscript, npsaved = nplaces;
	bool failed;

	memcpy(saved, script, sizeof(saved));
	memcpy(savedpl, places, sizeof(savedpl));
	memmove(script, cand, (size_t)n * sizeof(*cand));
	nscript = n;
	memmove(places, pl, (size_t)np * sizeof(*pl));
	nplaces = np;
	set_places(script, nscript, places, nplaces);
	failed = trial(why);
	if (!failed) {
		memcpy(script, saved, sizeof(saved));
		nscript = nsaved;
		memcpy(places, savedpl, sizeof(savedpl));
		nplaces = npsaved;
		set_places(script, nscript, places, nplaces);
	}
	return failed;
}

/* Then the schedule: each change point left out if the run still
 * fails without it. */
static void
shrink_places(void)
{
	for (int k = 0; k < nplaces && reducing(); k++) {
		struct place cand[MAXPLACES];
		int n = 0;

		for (int j = 0; j < nplaces; j++)
			if (j != k)
				cand[n++] = places[j];
		if (script_trial(script, nscript, cand, n,
		                 "without a change point"))
			k--;
	}
}

/* ddmin (Zeller and Hildebrandt 2002) over script[]: remove chunks
 * (each worker's ops keep their order) while the run still fails, then
 * single ops. */
static void
ddmin(void)
{
	int gran = 2;

	while (nscript >= 2 && reducing()) {
		int chunk = (nscript + gran - 1) / gran;
		bool reduced = false;

		for (int start = 0; start < nscript && !reduced && reducing();
		     start += chunk) {
			struct op cand[MAXOPS];
			int n = 0;

			for (int i = 0; i < nscript; i++)
				if (i < start || i >= start + chunk)
					cand[n++] = script[i];
			if (n > 0 && script_trial(cand, n, places, nplaces,
			                          "without a chunk")) {
				reduced = true;
				gran = gran > 2 ? gran - 1 : 2;
			}
		}
		if (!reduced) {
			if (gran >= nscript)
				break;
			gran = gran * 2 < nscript ? gran * 2 : nscript;
		}
		say("ddmin: %d op(s), granularity %d", nscript, gran);
	}
}

static void
shrink_to_script(void)
{
	char ops[32], steps[32], depth[32], faults[32], mix[LINE];

	set("oplog", "1");
	if (!trial("the ops it runs")) {
		say("the run passed with oplog=1: no script");
		set("oplog", "0");
		return;
	}
	char path[512];

	trial_log(path, sizeof(path));
	if (read_oplog(path) <= 0) {
		say("no ops in the last trial's log: no script");
		set("oplog", "0");
		return;
	}
	say("%d op(s) ran before the failure, %d change point(s); now as a "
	    "script",
	    nscript, nplaces);
	snprintf(ops, sizeof(ops), "%ld", getnum("ops", 0));
	snprintf(steps, sizeof(steps), "%s", get("steps") ? get("steps") : "");
	snprintf(depth, sizeof(depth), "%s", get("depth") ? get("depth") : "");
	use_script = true;
	set("script", "1");
	/* script=1 counts its own ops and draws none: ops= and mix= say
	 * nothing any more */
	snprintf(mix, sizeof(mix), "%s", get("mix") ? get("mix") : "");
	snprintf(faults, sizeof(faults), "%s",
	         get("faults") ? get("faults") : "");
	unset("ops");
	unset("mix");
	unset("faults"); /* each op carries its own (OP:ARG:N) */
	/* the change points stay with their ops from here (at=): PCT's
	 * steps= and depth= are what they replace */
	unset("steps");
	set_places(script, nscript, places, nplaces);
	if (!trial("as a script")) {
		say("the script does not fail: kept the prefix");
		use_script = false;
		set("script", "0");
		set("ops", ops);
		if (mix[0] != '\0')
			set("mix", mix);
		if (faults[0] != '\0')
			set("faults", faults);
		set("oplog", "0");
		unset("at");
		unset("depth");
		if (steps[0] != '\0')
			set("steps", steps);
		if (depth[0] != '\0')
			set("depth", depth);
		return;
	}
	ddmin(); /* worker numbers stay: PCT's priorities are theirs */
	say("after ddmin: %d op(s)", nscript);
	shrink_places();
	say("after the schedule: %d op(s), %d change point(s)%s%s", nscript,
	    nplaces, get("at") ? " at=" : "", get("at") ? get("at") : "");
}

int
main(int argc, char **argv)
{
	const char *out = NULL, *log;
	int runs = 10, seeds = 8, i, failed = 0;
	char cmd[LINE], name[256], path[512], now[LINE];
	FILE *f;

	for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "-o") == 0)
			out = argv[i + 1];
		else if (strcmp(argv[i], "-r") == 0)
			runs = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-s") == 0)
			seeds = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-j") == 0)
			jobs = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-m") == 0)
			max_trials = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-T") == 0)
			max_secs = atof(argv[i + 1]);
		else if (strcmp(argv[i], "-S") == 0)
			sound_dir = argv[i + 1];
		else
			break;
	}
	if (i + 1 != argc || runs < 1 || runs > 100 || seeds < 0 ||
	    max_trials < 1 || seeds > 1000 || jobs < 1 || jobs > 16 ||
	    max_secs < 0) {
		fprintf(stderr, "usage: repro [-o SCN] [-r RUNS] [-s SEEDS] "
		                "[-j JOBS] [-m MAXTRIALS] [-T SECS] [-S DIR] "
		                "LOG\n");
		return 2;
	}
	log = argv[i];
	t0 = now_s();
	/* a run that failed in a KTAP case: its own way (repro_ktap.c) */
	i = repro_ktap(log, out, runs);
	if (i >= 0)
		return i;
	/* a fault sweep's failing point (repro_sweep.c) */
	i = repro_sweep(log, out, runs);
	if (i >= 0)
		return i;
	/* any other failed scenario run: its steps (repro_scn.c) */
	i = repro_scn(log, out, runs);
	if (i >= 0)
		return i;
	if (read_log(log) != 0 || read_scenario() != 0)
		return 2;
	/* a run of an explicit script (`stress script` + script=1): its ops
	 * and change points from the log's op log, so that the trials send
	 * the script too */
	if (get("script") != NULL && strcmp(get("script"), "1") == 0) {
		if (read_oplog(log) <= 0) {
			say("%s: a script=1 run without its op log (oplog=1): "
			    "cannot rebuild its script",
			    log);
			return 2;
		}
		use_script = true;
	}
	find_profiles();
	make_workdir();
	command(cmd, sizeof(cmd));
	say("%s: profile %s, failed with: %s", log, profile,
	    failure[0] ? failure : "(no failure line found)");
	size_line("reading the log");
	/* PCT's change points are drawn from steps: pinned, so a shorter
	 * run keeps the schedule's prefix */
	if (get("steps") == NULL)
		setnum("steps", (getnum("ops", 0) + getnum("cycles", 0)) * 4);
	/* 1. as it was, then under a controlled schedule */
	if (get("sched") == NULL) {
		bool found = false;

		if (trial("as it was"))
			say("it fails again as it was; now under sched=pct");
		for (int s = 1; s <= seeds && !found && reducing(); s++) {
			char v[32];

			snprintf(v, sizeof(v), "pct:%d", s);
			found = try_set("sched", v, "a controlled schedule");
		}
		if (!found) {
			say("no controlled schedule of %d made it fail: not "
			    "reproduced (try -s with more seeds)",
			    seeds);
			say("result: not reproduced");
			return 1;
		}
	} else if (!trial("as it was")) {
		say("it passes under its own schedule: not reproduced");
		say("result: not reproduced");
		return 1;
	}
	size_line("finding a failing schedule");
	/* 2. workers, 3. ops (a script run has its own: both from the
	 * script) */
	for (long w = 1; w < getnum("workers", 1) && !use_script && reducing();
	     w++) {
		char v[32];

		snprintf(v, sizeof(v), "%ld", w);
		if (try_set("workers", v, "fewer workers"))
			break;
	}
	if (!use_script) {
		size_line("fewer workers");
		shrink_ops();
		size_line("fewer ops");
	}
	if (shrink_list("mods") && !use_script) { /* the ops' targets moved */
		size_line("fewer modules");
		shrink_ops();
		size_line("fewer ops again");
	}
	/* 5. delta debugging of the ops themselves */
	shrink_to_script();
	/* 6. deterministic?  (with the timeline on, so the last failing
	 * run leaves its trace) */
	failed = verify(runs, trial);
	tracing = true; /* the reproducer boots as its verifying runs did */
	command(cmd, sizeof(cmd));
	say("%d of %d runs fail: %s", failed, runs, cmd);
	snprintf(name, sizeof(name), "repro-%s-%ld-%s", profile,
	         getnum("seed", 0), get("sched") ? get("sched") + 4 : "x");
	if (out == NULL) {
		snprintf(path, sizeof(path), "tests/scenarios/%s.scn", name);
		out = path;
	}
	f = reproducer_open(out);
	last_failure(now, sizeof(now));
	fprintf(f,
	        "# A reproducer made by make repro (docs/repro.md) from\n"
	        "# %s, which failed with:\n#   %s\n"
	        "# Reduced in %d trials to %ld ops under a controlled "
	        "schedule; %d of %d\n# runs failed when it was made, the "
	        "last with:\n#   %s\n# It passes once the bug is fixed.\n",
	        log, failure[0] ? failure : "(no failure line)", trials,
	        use_script ? (long)nscript : getnum("ops", 0), failed, runs,
	        now[0] ? now : "(no failure line)");
	write_scn(f, cmd);
	fclose(f);
	say("wrote %s", out);
	/* the script, its schedule and its signature: the last trial's op
	 * log, change points, failure and holders' signatures */
	snprintf(path, sizeof(path),
	         "grep -a -h '^stress: op w\\|^schedctl: change\\|"
	         "use-after-unload\\|^stress: FAIL\\|signature [0-9a-f]' "
	         "%s/logs/trial-%s.log | head -60 >&2",
	         workdir, profile);
	if (system(path) != 0)
		say("(no op log in the last trial's log)");
	/* for make mutants: one line to read */
	say("result: %ld op(s)%s, %d of %d runs fail, %d trials",
	    use_script ? (long)nscript : getnum("ops", 0),
	    use_script ? " (a script)" : "", failed, runs, trials);
	return failed == runs ? 0 : 1;
}
