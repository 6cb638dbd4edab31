/*
 * What the ways of make repro share (tests/repro/repro.c shrinks a
 * failing lifetime stress run; tests/repro/repro_ktap.c a run that failed
 * in a KTAP case; tests/repro/repro_sweep.c one that failed in the fault
 * sweep; tests/repro/repro_scn.c any other failed scenario run): the log's scenario and profile, the work directory of
 * the trials, the progress lines, the trial count, the timeline kept
 * beside the last verifying run.
 */
#ifndef TESTS_REPRO_REPRO_H
#define TESTS_REPRO_REPRO_H

#include <stdbool.h>
#include <stdio.h>

#define LINE 4096

extern char scenario[LINE], profile[128];
extern char workdir[64];             /* build/repro/PID: the trials' */
extern char profiles_opt[LINE + 64]; /* --profiles DIR, or "" */
extern int jobs, trials;
extern double t0;

double now_s(void);
/* A log's "### harness: scenario S, profile P" line: scenario and profile
 * taken from the first one.  True if LINE is one. */
bool read_run_header(const char *line);
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Does a line of a lifetime stress run say it failed (a report, a
 * panic, a broken invariant, the stress's verdict)? */
bool is_failure_line(const char *line);
/* -S DIR: a built tree without the bug, or NULL. */
extern const char *sound_dir;
/* Does the last trial's scenario fail on -S DIR's tree too (false
 * without -S)?  A failure there is not the bug's. */
bool trial_fails_without_bug(void);
/* The last trial's serial log (WORKDIR/logs/trial-PROFILE.log). */
void trial_log(char *path, size_t size);
/* May delta debugging try one more trial (-m trials, -T seconds)? */
bool reducing(void);
void chomp(char *s);
/* The scenario's profiles directory, when it has one of its own. */
void find_profiles(void);
/* build/repro/PID, for the trials. */
void make_workdir(void);
/* A trial: its scenario file (WORKDIR/trial.scn) opened for writing; then
 * closed and run by the harness (its log WORKDIR/logs/trial-PROFILE.log),
 * returning the harness's exit status (0: the run passed). */
FILE *trial_scn_open(void);
int trial_run(FILE *f);
/* The last trial's timeline (trace=on) as Perfetto JSON beside its log. */
void keep_trace(void);
/* Trials boot with trace=on (the verifying ones). */
extern bool tracing;
/* The result run RUNS times by TRIAL (true: it failed) with the timeline
 * on, the last one's kept; how many failed. */
int verify(int runs, bool (*trial)(const char *why));
/* The reproducer's file, to write (a message and exit 2 if it cannot). */
FILE *reproducer_open(const char *path);

/* The KTAP mode: LOG failed in a KTAP case (not a lifetime stress run).
 * Returns repro's exit status, or -1 if LOG is not such a run. */
int repro_ktap(const char *log, const char *out, int runs);

/* The fault sweep mode: LOG failed in `stress faultsweep`, whose FAIL
 * line's replay (`point=KEY:N`) is the reproducer.  Returns repro's exit
 * status, or -1 if LOG is no such run. */
int repro_sweep(const char *log, const char *out, int runs);

/* The scenario mode: LOG is a failed run of a scenario, neither in a KTAP
 * case nor in a lifetime stress run; its steps shrunk, at most MAX
 * trials.  Returns repro's exit status, or -1 if LOG is no such run. */
int repro_scn(const char *log, const char *out, int runs);

#endif
