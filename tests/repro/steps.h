/*
 * A scenario as make repro's trials rebuild it (docs/repro.md): its boot
 * directives and the rejects before its first step (the header, kept
 * whole), then its steps, each a command with the expects, prompts and
 * polls after it, which a trial keeps or leaves out as a whole (a reject
 * among them stays where it was).  Shared by the KTAP mode (the steps
 * before the suite's `send ktest`) and the scenario mode (the steps
 * before a failing directive).
 */
#ifndef TESTS_REPRO_STEPS_H
#define TESTS_REPRO_STEPS_H

#include <stdbool.h>
#include <stdio.h>

#define MAXSTEPS  128
#define STEPLINES 4096 /* the text of one step */

struct steps {
	char header[4 * 4096];
	char text[MAXSTEPS][STEPLINES];
	int first[MAXSTEPS], last[MAXSTEPS]; /* their lines in the file */
	bool keep[MAXSTEPS];
	/* written bare: its commands and prompts, not its checks (expect,
	 * poll, ktap): a step the bug needs for what it does, not for what
	 * it checks */
	bool bare[MAXSTEPS];
	/* and a bare step keeps its waits: polls and expects with a
	 * timeout of their own (`expect -t N`: a line that comes in its
	 * time, such as a lease or a timer), not its answers' checks */
	bool bare_waits;
	int n;
};

/* Does LINE (ended by '\0' or '\n') start with the directive WORD? */
bool starts(const char *line, const char *word);
/* Read PATH into S up to the first line STOP accepts (not included; NULL
 * or none: the whole file).  0, or -1 with one line said; *stopped
 * tells whether STOP matched (may be NULL). */
int steps_read(struct steps *s, const char *path,
               bool (*stop)(const char *line), bool *stopped);
/* The header, EXTRA added to its first cmdline (or a cmdline of its own),
 * and every kept step before step UPTO; the `timeout` and `reject` lines
 * of the steps left out too (they set the waits of the steps after them,
 * and what must not appear from there on). */
void steps_write(const struct steps *s, FILE *f, const char *profile,
                 const char *extra, int upto);
/* Each step but the first (the boot prompt) left out, the last first,
 * if TRIAL (true: the bug showed) still fails without it. */
void steps_leave_out(struct steps *s, bool (*trial)(const char *why));
/* The console commands the kept steps before step UPTO send. */
int steps_sends(const struct steps *s, int upto);
/* `reject LINE`, LINE matched literally (ERE specials escaped). */
void write_reject(FILE *f, const char *line);

/* The first "### harness: FAIL: " message of a log; false if none. */
bool first_fail(const char *log, char *out, size_t size);
/* A FAIL message made comparable between runs: a directive's line number
 * (to *line, else 0), what follows a ';', an audit's capture file and
 * counts go, a path of a run's own capture or log becomes "FILE" and
 * numbers '#'. */
void fail_normalise(const char *msg, char *out, size_t size, int *line);
/* Has LOG a capture audit that found SIG (an audit's FAIL message,
 * normalised), as any one of its problems and after any other FAIL? */
bool audit_finding_in(const char *log, const char *sig);
/* IN with every number (decimal, 0x hex) as '#'. */
void mask_numbers(const char *in, char *out, size_t size);

#endif
