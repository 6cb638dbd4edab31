/*
 * One scenario run (see run.h): set up QEMU, execute directives, report.
 * Every wait is bounded twice, by the directive's timeout and by the
 * scenario's whole-run limit, so a hung guest always ends as a failure.
 */
#include "tests/harness/run.h"
#include "tests/harness/audit.h"
#include "tests/harness/initrd.h"
#include "tests/harness/qemu.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

volatile pid_t run_qemu_pgrp, run_host_pgrp;

/* run_fail with suffix after the formatted message. */
static void
run_vfail(struct run *R, const char *suffix, const char *fmt, va_list ap)
{
	char *msg, *full;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	full = xasprintf("%s%s", msg, suffix);
	free(msg);
	console_note(&R->con, "FAIL: %s", full);
	if (R->fail == NULL)
		R->fail = full;
	else
		free(full);
}

void
run_fail(struct run *R, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run_vfail(R, "", fmt, ap);
	va_end(ap);
}

/*
 * How much slower than an idle machine this one is now: the 1-minute load
 * average per online CPU, at least 1 and at most 8.  TCG guests share the
 * host's cores with everything else, so on a machine running another
 * `make test` a wait that takes 10 s when idle can take 30; awaited
 * conditions still end as soon as they hold, so a longer bound only
 * costs time when something is really stuck.
 */
static double
load_scale(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double load = 0, scale;

	if (f == NULL)
		return 1.0;
	if (fscanf(f, "%lf", &load) != 1)
		load = 0;
	fclose(f);
	scale = ncpu > 0 ? load / (double)ncpu : 1.0;
	return scale < 1.0 ? 1.0 : scale > 8.0 ? 8.0 : scale;
}

int
run_ms(const struct run *R, int ms)
{
	double scaled =
	    ms * (R->o->timeout_scale > 0 ? R->o->timeout_scale : load_scale());

	return scaled > 1e9 ? 1000000000 : (int)scaled;
}

/* NIC slot SLOT's packet capture (the log's name, -nSLOT.pcap), to free. */
static char *
capture_path(const struct run *R, int slot)
{
	return xasprintf("%.*s-n%d.pcap", (int)strlen(R->log_path) - 4,
	                 R->log_path, slot);
}

const char *
run_var(const char *name, void *ctx)
{
	struct run *R = ctx;
	static char smp[16];

	if (strcmp(name, "PROFILE") == 0)
		return R->prof->name;
	if (strcmp(name, "SMP") == 0) {
		snprintf(smp, sizeof(smp), "%d", R->prof->smp);
		return smp;
	}
	if (strcmp(name, "MEM") == 0)
		return R->prof->mem;
	if (strcmp(name, "NIC") == 0)
		return nic_name(R->prof->nic);
	if (strcmp(name, "BOOT") == 0)
		return boot_name(R->prof->boot);
	if (strcmp(name, "LOG") == 0) /* this run's serial log */
		return R->log_path;
	for (int slot = 0; slot < 2; slot++) {
		/* NIC slot n's capture: beside the log, wherever --logs
		 * put it */
		static char pcap[2][4096];
		char v[16];

		snprintf(v, sizeof(v), "PCAP%d", slot);
		if (strcmp(name, v) == 0) {
			char *p = capture_path(R, slot);

			snprintf(pcap[slot], sizeof(pcap[slot]), "%s", p);
			free(p);
			return pcap[slot];
		}
	}
	for (int i = 0; i < R->s->nfwd; i++) {
		char port[16];

		snprintf(port, sizeof(port), "PORT%d", i);
		if (strcmp(name, port) == 0)
			return R->ports[i];
	}
	if (R->s->gdbstub && strcmp(name, "GDBPORT") == 0)
		return R->gdbport;
	if (strcmp(name, "NETNS") == 0)
		return R->tap.index >= 0 ? R->tap.ns : "";
	for (int n = 0; n < 3; n++) {
		/* PEER/GUEST: the first NIC's; PEERn/GUESTn: slot n's. */
		static const char *const peer[] = {"PEER0", "PEER1", "PEER"},
		                         *const guest[] = {"GUEST0", "GUEST1",
		                                           "GUEST"};
		int slot = n < 2 ? n : (R->prof->nic == NIC_VIRTIO ? 1 : 0);

		if (strcmp(name, peer[n]) == 0)
			return R->tap.index >= 0 ? R->tap.peer[slot] : "";
		if (strcmp(name, guest[n]) == 0)
			return R->tap.index >= 0 ? R->tap.guest[slot] : "";
	}
	for (int n = 0; n < 2; n++) {
		char v[16];

		snprintf(v, sizeof(v), "NET%d_QEMU", n);
		if (strcmp(name, v) == 0)
			return R->dgram[n][0][0] ? R->dgram[n][0] : "0";
		snprintf(v, sizeof(v), "NET%d_PEER", n);
		if (strcmp(name, v) == 0)
			return R->dgram[n][1][0] ? R->dgram[n][1] : "0";
	}
	return NULL;
}

static void
reap_qemu(struct run *R)
{
	int64_t until = now_ms() + 30000;

	/* The pipe closes as QEMU exits; give it time to finish (seconds
	 * on a busy machine: a kill here would turn its status into
	 * SIGKILL and fail an `exit` check). */
	while (R->qemu > 0) {
		pid_t p = waitpid(R->qemu, &R->wstatus, WNOHANG);

		if (p == R->qemu || (p < 0 && errno != EINTR)) {
			R->exited = true;
			R->qemu = 0;
			run_qemu_pgrp = 0;
			console_note(&R->con, "QEMU exited, %s",
			             describe_status(R->wstatus));
			return;
		}
		if (now_ms() > until) {
			qemu_kill(R->qemu);
			R->qemu = 0;
			R->exited = true;
			R->wstatus = SIGKILL;
			return;
		}
		usleep(10000);
	}
}

/* After a failure the guest found (a panic, a rejected line), log what
 * it still says while it keeps talking: a panic's report ends with the
 * kernel exiting, and may carry a trace dump of thousands of lines
 * (docs/trace.md); a stress run prints its timeline, its report and its
 * verdict.  Ends after 2 s of silence, QEMU's exit, or 5 s - a minute
 * while a panic report or a trace dump is still coming (a guest that
 * prints a line a second, a waiting unregister, is never silent). */
static void
drain_output(struct run *R)
{
	int64_t start = now_ms(), quiet = start + 2000;

	while (R->qemu > 0 && now_ms() < quiet &&
	       now_ms() < start + run_ms(R, R->con.panic || R->con.trace_open
	                                        ? 60000
	                                        : 5000)) {
		int r = console_read(&R->con, 100);
		if (r < 0)
			reap_qemu(R);
		else if (r > 0)
			quiet = now_ms() + 2000;
	}
}

/* Let the panic report arrive before failing, so the reason carries it. */
static void
fail_panic(struct run *R)
{
	int64_t until = now_ms() + 3000;
	char *first, *nl;

	while (R->qemu > 0 && now_ms() < until &&
	       R->con.report_lines < PANIC_REPORT_LINES)
		if (console_read(&R->con, 100) < 0)
			reap_qemu(R);
	drain_output(R);
	first = xstrdup(R->con.report.buf);
	nl = strchr(first, '\n');
	if (nl != NULL)
		*nl = '\0';
	run_fail(R, "kernel panic: %s", trim(first + strlen(PANIC_MARK)));
	free(first);
}

int
run_pump(struct run *R, int ms)
{
	if (R->fail != NULL)
		return -1;
	if (R->qemu > 0) {
		if (console_read(&R->con, ms) < 0) {
			console_flush_partial(&R->con);
			reap_qemu(R);
		}
	} else if (ms > 0) {
		usleep((useconds_t)ms * 1000);
	}
	if (R->con.panic && !R->s->expects_panic)
		fail_panic(R);
	else if (R->con.rejected != NULL) {
		char *why = xstrdup(R->con.rejected);
		drain_output(R);
		run_fail(R, "%s", why);
		free(why);
	}
	return R->fail ? -1 : 0;
}

/* The last unconsumed line, to show what the guest was doing. */
static char *
last_output(struct run *R)
{
	size_t len;
	const char *rest = console_rest(&R->con, &len);
	const char *end = rest + len, *start;

	while (end > rest && end[-1] == '\n')
		end--;
	start = end;
	while (start > rest && start[-1] != '\n')
		start--;
	if (end - start > 120)
		start = end - 120;
	return start == end ? xstrdup("(no new output)")
	                    : xasprintf("'%.*s'", (int)(end - start), start);
}

/*
 * The guest's hang dump (kernel/debug/hangdump.h, docs/commands.md): after a
 * wait timed out, while QEMU still runs, send Ctrl-T and let the dump
 * reach the log right after the failure line, so whoever reads a failed
 * run sees which thread waits where and which locks are held.  Bounded
 * twice, so a dead guest costs little: the guest must say something
 * within HANGDUMP_QUIET_MS of the request and of each line it sends (a
 * guest that ignores Ctrl-T, e.g. one whose CPU 0 is stuck with
 * interrupts off, costs that much), and the dump must end within
 * HANGDUMP_MAX_MS.  Both scale with load like every timeout, up to a cap.
 */
#define HANGDUMP_BYTE       "\x14"
#define HANGDUMP_BEGIN      "hangdump: begin"
#define HANGDUMP_END        "hangdump: end"
#define HANGDUMP_QUIET_MS   3000
#define HANGDUMP_MAX_MS     20000
#define HANGDUMP_DIAG_LINES 40

static bool
guest_running(const struct run *R)
{
	return R->qemu > 0 && !R->exited && R->con.out_fd >= 0;
}

static int
capped_ms(const struct run *R, int ms, int cap)
{
	int scaled = run_ms(R, ms);

	return scaled < cap ? scaled : cap;
}

/* One dump line for the TAP diagnostics: threads and modules only (the
 * stacks and CPUs stay in the log), at most HANGDUMP_DIAG_LINES. */
static void
hang_dump_keep(struct run *R, const char *line, int *kept)
{
	const char *l = strstr(line, "hangdump: ");

	if (l == NULL || !(starts_with(l, "hangdump: thread ") ||
	                   starts_with(l, "hangdump: module ")))
		return;
	if (++*kept <= HANGDUMP_DIAG_LINES)
		sb_addf(&R->hangdump, "  %s\n", l);
}

static void
hang_dump(struct run *R)
{
	int quiet = capped_ms(R, HANGDUMP_QUIET_MS, 15000);
	int64_t now = now_ms(),
	        until = now + capped_ms(R, HANGDUMP_MAX_MS, 60000),
	        quiet_until = now + quiet;
	int lines = 0, kept = 0, rc = 1;
	bool begun = false, ended = false;
	char err[256], *line;

	/* Whatever was waiting to be read is history, not the dump. */
	while ((line = console_line(&R->con)) != NULL)
		free(line);
	console_note(&R->con,
	             "hang dump: sending Ctrl-T (0x14); the guest's state "
	             "follows (docs/commands.md, the hang dump)");
	if (console_send(&R->con, HANGDUMP_BYTE, 1, err, sizeof(err)) < 0) {
		console_note(&R->con, "hang dump: cannot send: %s", err);
		sb_addf(&R->hangdump, "hang dump: none: cannot send: %s\n",
		        err);
		return;
	}
	while (!ended && rc >= 0) {
		while (!ended && (line = console_line(&R->con)) != NULL) {
			quiet_until = now_ms() + quiet;
			if (!begun && strstr(line, HANGDUMP_BEGIN) != NULL)
				begun = true;
			if (begun) {
				lines++;
				hang_dump_keep(R, line, &kept);
				ended = starts_with(line, HANGDUMP_END);
			}
			free(line);
		}
		now = now_ms();
		if (ended || now >= quiet_until || now >= until)
			break;
		rc = console_read(
		    &R->con,
		    (int)(quiet_until - now > 200 ? 200 : quiet_until - now));
	}
	if (rc < 0) {
		console_flush_partial(&R->con);
		reap_qemu(R);
	}
	if (ended) {
		console_note(&R->con, "hang dump: complete, %d lines", lines);
		if (kept > HANGDUMP_DIAG_LINES)
			sb_addf(&R->hangdump, "  ... %d more\n",
			        kept - HANGDUMP_DIAG_LINES);
		line = xasprintf("hang dump: %d lines in the log; its threads "
		                 "and modules:\n",
		                 lines);
	} else if (begun) {
		line =
		    xasprintf("hang dump: cut short after %d lines (%s)", lines,
		              rc < 0 ? "QEMU exited" : "no end line in time");
	} else {
		line = xasprintf(
		    "hang dump: none: %s",
		    rc < 0 ? "QEMU exited"
		           : "the guest said nothing after Ctrl-T (its "
		             "serial interrupt CPU may be stuck with "
		             "interrupts off)");
	}
	if (!ended)
		console_note(&R->con, "%s", line);
	/* The summary line goes first. */
	{
		struct strbuf sb;

		sb_init(&sb);
		sb_adds(&sb, line);
		if (line[strlen(line) - 1] != '\n')
			sb_adds(&sb, "\n");
		if (R->hangdump.len > 0)
			sb_add(&sb, R->hangdump.buf, R->hangdump.len);
		sb_free(&R->hangdump);
		R->hangdump = sb;
	}
	free(line);
}

/*
 * run_fail for a console wait that timed out; if the guest still runs,
 * the message says a hang dump follows and hang_dump() fetches it.
 */
static void fail_timeout(struct run *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fail_timeout(struct run *R, const char *fmt, ...)
{
	bool dump = guest_running(R) && R->fail == NULL;
	va_list ap;

	va_start(ap, fmt);
	run_vfail(R, dump ? "; hang dump follows in the log" : "", fmt, ap);
	va_end(ap);
	if (dump)
		hang_dump(R);
}

enum wait_kind { W_MATCH, W_EXIT, W_SLEEP };

/*
 * Wait until the regex matches (W_MATCH), QEMU exits (W_EXIT) or time
 * passes (W_SLEEP).  what names the thing waited for, in messages.
 */
static int
wait_for(struct run *R, const struct directive *d, enum wait_kind kind,
         const regex_t *re, const char *what)
{
	int64_t until = now_ms() + run_ms(R, d->timeout_ms);

	for (;;) {
		int64_t now = now_ms(),
		        end = until < R->deadline ? until : R->deadline;

		if (kind == W_MATCH && console_match(&R->con, re))
			return run_pump(R, 0);
		if (R->fail != NULL)
			return -1;
		if (kind == W_EXIT && R->exited)
			return run_pump(R, 0);
		if (kind != W_EXIT && R->exited) {
			run_fail(R,
			         "line %d: QEMU exited, %s, while waiting "
			         "for %s",
			         d->line, describe_status(R->wstatus), what);
			return -1;
		}
		if (now >= end) {
			char *last = last_output(R);

			if (kind == W_SLEEP && now >= until) {
				free(last);
				return 0;
			}
			if (now >= R->deadline)
				fail_timeout(
				    R,
				    "line %d: run limit of %ds reached "
				    "while waiting for %s",
				    d->line, run_ms(R, R->s->limit_ms) / 1000,
				    what);
			else
				fail_timeout(
				    R,
				    "line %d: timeout after %ds waiting "
				    "for %s; last output %s",
				    d->line, run_ms(R, d->timeout_ms) / 1000,
				    what, last);
			free(last);
			return -1;
		}
		run_pump(R, (int)(end - now > 500 ? 500 : end - now));
	}
}

static int
do_send(struct run *R, const struct directive *d)
{
	char err[256];
	char *text;
	int rc;

	if (d->op != OP_SEND)
		rc = console_send(&R->con, d->text, d->textlen, err,
		                  sizeof(err));
	else {
		text = expand_vars(d->text, run_var, R, err, sizeof(err));
		if (text == NULL) {
			run_fail(R, "line %d: send: %s", d->line, err);
			return -1;
		}
		rc =
		    console_send(&R->con, text, strlen(text), err, sizeof(err));
		if (rc == 0)
			rc = console_send(&R->con, "\r", 1, err, sizeof(err));
		free(text);
	}
	if (rc < 0)
		run_fail(R, "line %d: %s: %s", d->line, op_name(d->op), err);
	return rc;
}

/*
 * poll: type the command, and if its output (up to the next prompt) has
 * no line matching the regex, type it again after a short pause, until
 * the timeout.  Awaits a condition the kernel reaches on its own time
 * (a thread exiting, a TIME_WAIT expiring) without guessing a sleep.
 */
static int
do_poll(struct run *R, const struct directive *d, const regex_t *prompt_re)
{
	int64_t until = now_ms() + run_ms(R, d->timeout_ms);
	struct directive send = *d;

	send.op = OP_SEND;
	for (;;) {
		int64_t step_end;

		if (do_send(R, &send) < 0)
			return -1;
		step_end = now_ms() + 5000;
		for (;;) {
			if (console_match(&R->con, &d->re))
				return run_pump(R, 0);
			if (R->fail != NULL)
				return -1;
			if (R->exited) {
				run_fail(R,
				         "line %d: QEMU exited, %s, while "
				         "polling '%s'",
				         d->line, describe_status(R->wstatus),
				         d->text);
				return -1;
			}
			/* Output finished without a match: try again. */
			if (console_match(&R->con, prompt_re) ||
			    now_ms() >= step_end)
				break;
			run_pump(R, 50);
		}
		if (now_ms() >= until || now_ms() >= R->deadline) {
			char *last = last_output(R);

			fail_timeout(R,
			             "line %d: poll: '%s' never printed /%s/ "
			             "in %ds; last output %s",
			             d->line, d->text, d->aux,
			             run_ms(R, d->timeout_ms) / 1000, last);
			free(last);
			return -1;
		}
		run_pump(R, 300);
	}
}

static int
do_exit(struct run *R, const struct directive *d)
{
	char want[128], what[160];

	/* A wait status with exit code N is N << 8 (see wait(2)). */
	snprintf(want, sizeof(want), "%s", describe_status(d->status << 8));
	snprintf(what, sizeof(what), "QEMU to exit with %s", want);
	if (wait_for(R, d, W_EXIT, NULL, what) < 0)
		return -1;
	if (qemu_status(R->wstatus) != d->status) {
		run_fail(R, "line %d: expected QEMU to exit with %s, got %s",
		         d->line, want, describe_status(R->wstatus));
		return -1;
	}
	return 0;
}

static const char *
ktap_prompt(struct run *R)
{
	size_t len;
	const char *rest = console_rest(&R->con, &len);

	return len >= strlen(PROMPT) && starts_with(rest, PROMPT) ? rest : NULL;
}

/*
 * Feed console lines to the KTAP parser.  The document ends when its
 * top-level plan is complete; the prompt, QEMU's exit, a panic or silence
 * for the timeout end it early and leave crashed cases behind.
 */
static int
do_ktap(struct run *R, const struct directive *d)
{
	struct ktap k;
	int64_t idle_until = now_ms() + run_ms(R, d->timeout_ms);
	const char *why = NULL;
	char *line;

	ktap_init(&k);
	while (!k.done) {
		if (k.started && ktap_prompt(R) != NULL) {
			why = "prompt returned";
			break;
		}
		if ((line = console_line(&R->con)) != NULL) {
			ktap_feed(&k, line);
			free(line);
			idle_until = now_ms() + run_ms(R, d->timeout_ms);
			continue;
		}
		if (R->fail != NULL) {
			why = R->con.panic ? "kernel panic" : "run failed";
			break;
		}
		if (R->exited) {
			/* The last partial line counts: QEMU will say no more.
			 */
			size_t len;
			const char *rest = console_rest(&R->con, &len);
			char *tail = xstrndup(rest, len);

			ktap_feed(&k, tail);
			free(tail);
			why = "QEMU exited";
			break;
		}
		if (now_ms() >= idle_until || now_ms() >= R->deadline) {
			why = now_ms() >= R->deadline ? "run limit" : "timeout";
			break;
		}
		run_pump(R, 200);
	}
	if (k.done)
		why = NULL;
	if (!k.started) {
		run_fail(R, "line %d: ktap: no 'KTAP version' line before %s",
		         d->line, why);
	} else {
		ktap_finish(&k, why);
		report_ktap(R, &k);
		if (why != NULL && R->fail == NULL &&
		    (strcmp(why, "timeout") == 0 ||
		     strcmp(why, "run limit") == 0))
			fail_timeout(R,
			             "line %d: ktap: output ended early (%s)",
			             d->line, why);
		else if (why != NULL && R->fail == NULL)
			run_fail(R, "line %d: ktap: output ended early (%s)",
			         d->line, why);
		if (d->text != NULL && !ktap_has_suite(&k, d->text))
			run_fail(R,
			         "line %d: ktap: suite '%s' not in the "
			         "KTAP output",
			         d->line, d->text);
	}
	ktap_free(&k);
	return R->fail ? -1 : 0;
}

void
report_ktap(struct run *R, const struct ktap *k)
{
	static const enum point_status map[] = {[KTAP_PASS] = PT_PASS,
	                                        [KTAP_FAIL] = PT_FAIL,
	                                        [KTAP_SKIP] = PT_SKIP};

	for (int i = 0; i < k->ncases; i++) {
		char *name = xasprintf("%s %s", R->name, k->cases[i].name);

		report_add(R->r, map[k->cases[i].status], name,
		           k->cases[i].reason);
		free(name);
	}
}

/* ${VAR} in a regex: the value matches literally. */
static const char *
run_var_re(const char *name, void *ctx)
{
	static char buf[256];
	const char *v = run_var(name, ctx);
	size_t n = 0;

	if (v == NULL)
		return NULL;
	for (; *v && n + 2 < sizeof(buf); v++) {
		if (strchr(".[]()*+?{}|^$\\", *v) != NULL)
			buf[n++] = '\\';
		buf[n++] = *v;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * expect and poll whose regex has ${VAR}s: x is d with the regex
 * expanded and compiled (free with regfree and free(src)).
 */
static int
expand_re(struct run *R, const struct directive *d, struct directive *x,
          char **src)
{
	char err[256];
	const char *orig = d->op == OP_POLL ? d->aux : d->text;
	int rc;

	*x = *d;
	*src = expand_vars(orig, run_var_re, R, err, sizeof(err));
	if (*src == NULL) {
		run_fail(R, "line %d: %s: %s", d->line, op_name(d->op), err);
		return -1;
	}
	rc = regcomp(&x->re, *src, REG_EXTENDED);
	if (rc != 0) {
		regerror(rc, &x->re, err, sizeof(err));
		run_fail(R, "line %d: %s: bad regex '%s': %s", d->line,
		         op_name(d->op), *src, err);
		free(*src);
		return -1;
	}
	if (d->op == OP_POLL)
		x->aux = *src;
	else
		x->text = *src;
	return 0;
}

static int execute_re(struct run *R, const struct directive *d,
                      const regex_t *prompt_re);

int
run_wait_match(struct run *R, const struct directive *d)
{
	return execute_re(R, d, NULL);
}

static int
execute_re(struct run *R, const struct directive *d, const regex_t *prompt_re)
{
	struct directive x;
	char what[300], *src = NULL;
	int rc;

	if (!d->re_vars)
		x = *d;
	else if (expand_re(R, d, &x, &src) < 0)
		return -1;
	if (d->op == OP_POLL && prompt_re != NULL) {
		rc = do_poll(R, &x, prompt_re);
	} else {
		snprintf(what, sizeof(what), "/%s/", x.text);
		rc = wait_for(R, &x, W_MATCH, &x.re, what);
	}
	if (d->re_vars) {
		regfree(&x.re);
		free(src);
	}
	return rc;
}

static int
execute(struct run *R, const struct directive *d)
{
	static regex_t prompt_re;
	static bool prompt_ready;

	R->line = d->line;
	if (!prompt_ready) {
		regcomp(&prompt_re, PROMPT, REG_EXTENDED);
		prompt_ready = true;
	}
	switch (d->op) {
	case OP_SEND:
	case OP_SENDRAW:
		return do_send(R, d);
	case OP_CTRLC: {
		struct directive c = *d;

		c.op = OP_SENDRAW;
		c.text = "\x03";
		c.textlen = 1;
		return do_send(R, &c);
	}
	case OP_EXPECT:
		return execute_re(R, d, &prompt_re);
	case OP_PROMPT:
		return wait_for(R, d, W_MATCH, &prompt_re, "the prompt");
	case OP_REJECT:
		if (console_reject(&R->con, &d->re, d->text) < 0)
			run_fail(R, "line %d: too many reject patterns",
			         d->line);
		return run_pump(R, 0);
	case OP_KTAP:
		return do_ktap(R, d);
	case OP_EXIT:
		return do_exit(R, d);
	case OP_SLEEP:
		return wait_for(R, d, W_SLEEP, NULL, "sleep");
	case OP_HOST:
	case OP_HOST_KTAP:
	case OP_PEER:
		return run_host(R, d);
	case OP_POLL:
		return execute_re(R, d, &prompt_re);
	case OP_STAMP:
		return run_stamp(R, d);
	case OP_ELAPSED:
		return run_elapsed(R, d);
	}
	return -1;
}

static int
check_file(struct run *R, const char *what, const char *path)
{
	if (access(path, R_OK) == 0)
		return 0;
	run_fail(R, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

/* Does the profile give the guest a NIC with a backend to capture? */
static bool
has_capture(const struct run *R)
{
	return R->prof->nic != NIC_NONE && R->prof->net != NET_NONE;
}

static int
start_qemu(struct run *R)
{
	const struct script *s = R->s;
	int host_ports[SCRIPT_MAX_FWD], dgram_port[2][2] = {{0, 0}, {0, 0}};
	struct qemu_config q;
	char err[512], *pcap = NULL, *cmd;
	struct argv a;
	int in, out, rc, gdb_port = 0, ninitrd = 0;
	char **initrd = NULL;

	for (int i = 0; i < s->nfwd; i++) {
		host_ports[i] = pick_free_port(s->fwd[i].proto);
		if (host_ports[i] < 0) {
			run_fail(R, "hostfwd: no free host port");
			return -1;
		}
		snprintf(R->ports[i], sizeof(R->ports[i]), "%d", host_ports[i]);
	}
	if (s->gdbstub) {
		gdb_port = pick_free_port(FWD_TCP);
		if (gdb_port < 0) {
			run_fail(R, "gdbstub: no free host port");
			return -1;
		}
		snprintf(R->gdbport, sizeof(R->gdbport), "%d", gdb_port);
	}
	for (int n = 0; R->prof->net == NET_DGRAM && n < 2; n++) {
		for (int k = 0; k < 2; k++) {
			int p = pick_free_port(FWD_UDP);
			if (p < 0) {
				run_fail(R, "net dgram: no free UDP port");
				return -1;
			}
			snprintf(R->dgram[n][k], sizeof(R->dgram[n][k]), "%d",
			         p);
			dgram_port[n][k] = p;
		}
	}
	if (R->prof->net == NET_TAP && R->prof->nic != NIC_NONE) {
		bool want[2] = {R->prof->nic != NIC_VIRTIO,
		                R->prof->nic != NIC_E1000};

		/* Namespaces and taps need root; elsewhere this is a skip. */
		if (geteuid() != 0) {
			R->skip = xasprintf("net tap needs root for network "
			                    "namespaces and taps (uid %d)",
			                    (int)geteuid());
			return -1;
		}
		if (tap_setup(&R->tap, want, err, sizeof(err)) < 0) {
			run_fail(R, "net tap: %s", err);
			return -1;
		}
		console_note(&R->con,
		             "net tap: namespace %s, peer %s/%s, guest %s/%s",
		             R->tap.ns, want[0] ? R->tap.peer[0] : "-",
		             want[1] ? R->tap.peer[1] : "-",
		             want[0] ? R->tap.guest[0] : "-",
		             want[1] ? R->tap.guest[1] : "-");
	}
	/* Boot modules travel as one archive next to the log (the ISO
	 * takes none: qemu_build_argv says so). */
	if (R->prof->boot != BOOT_ISO && s->nmodules > 0) {
		for (int i = 0; i < s->nmodules; i++)
			if (check_file(R, "module", s->modules[i]) < 0)
				return -1;
		R->initrd =
		    xasprintf("%.*s.initrd.cpio", (int)strlen(R->log_path) - 4,
		              R->log_path);
		if (initrd_prepare(s->modules, s->nmodules, R->initrd, &initrd,
		                   &ninitrd, err, sizeof(err)) < 0) {
			run_fail(R, "modules: %s", err);
			return -1;
		}
	}
	/* Every run with a NIC records its traffic; finish() keeps the
	 * capture only for a failing run or a scenario that asked (pcap). */
	if (s->pcap || has_capture(R))
		pcap = xasprintf("%.*s", (int)strlen(R->log_path) - 4,
		                 R->log_path);
	q = (struct qemu_config){.qemu = R->o->qemu,
	                         .prof = R->prof,
	                         .kernel = R->o->kernel,
	                         .iso = R->o->iso,
	                         .cmdline = s->cmdline,
	                         .modules = initrd ? initrd : s->modules,
	                         .nmodules = initrd ? ninitrd : s->nmodules,
	                         .fwd = s->fwd,
	                         .fwd_host_port = host_ports,
	                         .nfwd = s->nfwd,
	                         .pcap_prefix = pcap,
	                         .tftp_dir = s->tftp_dir,
	                         .gdb_port = gdb_port};
	memcpy(q.dgram_port, dgram_port, sizeof(q.dgram_port));
	q.tap_fd[0] = R->tap.fd[0];
	q.tap_fd[1] = R->tap.fd[1];
	rc = qemu_build_argv(&q, &a, err, sizeof(err));
	free(pcap);
	initrd_free(initrd, ninitrd);
	if (rc < 0) {
		run_fail(R, "%s", err);
		return -1;
	}
	/*
	 * No ISO is a skip, not a failure: `make all` does not build it, and
	 * `make test` does (and stops if it cannot).
	 */
	if (R->prof->boot == BOOT_ISO && access(R->o->iso, R_OK) < 0 &&
	    errno == ENOENT) {
		R->skip = xasprintf("%s not built (make iso)", R->o->iso);
		argv_free(&a);
		return -1;
	}
	/* After the argv checks: "the ISO cannot take cmdline" says more. */
	rc = check_file(R, "kernel image",
	                R->prof->boot == BOOT_ISO ? R->o->iso : R->o->kernel);
	if (rc < 0) {
		argv_free(&a);
		return -1;
	}
	cmd = argv_join(&a);
	console_note(&R->con, "%s", cmd);
	free(cmd);
	R->qemu = qemu_spawn(&a, R->tap.fd, 2, &in, &out, err, sizeof(err));
	argv_free(&a);
	if (R->qemu < 0) {
		R->qemu = 0;
		run_fail(R, "%s", err);
		return -1;
	}
	run_qemu_pgrp = R->qemu;
	console_attach(&R->con, in, out);
	return 0;
}

static FILE *
open_log(struct run *R)
{
	char *p;

	/* mkdir -p, one component at a time. */
	for (p = strchr(R->o->log_dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		char *dir =
		    xstrndup(R->o->log_dir, (size_t)(p - R->o->log_dir));

		mkdir(dir, 0777);
		free(dir);
	}
	mkdir(R->o->log_dir, 0777);
	return fopen(R->log_path, "we"); /* not a host command's */
}

/* Drop the captures of a passing run unless the scenario asked for them;
 * name them in the report of a failing one. */
static void
settle_captures(struct run *R)
{
	if (!R->s->pcap && !has_capture(R))
		return;
	for (int slot = 0; slot < 2; slot++) {
		char *p = capture_path(R, slot);

		if (R->fail == NULL && !R->s->pcap) {
			unlink(p);
		} else if (R->fail != NULL && access(p, F_OK) == 0) {
			char *msg = xasprintf("pcap: %s", p);
			report_diag(R->r, msg);
			free(msg);
		}
		free(p);
	}
}

/*
 * Audit each capture with tshark (audit.h): a frame the guest sent that
 * is malformed, carries a bad checksum, is out of order, ... fails the
 * run.  An empty capture (a NIC nobody used) needs no tshark.
 */
static void
audit_captures(struct run *R)
{
	if (!R->s->pcap && !has_capture(R))
		return;
	for (int slot = 0; slot < 2; slot++) {
		char *p = capture_path(R, slot);
		const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		struct audit a;
		struct stat st;
		char err[512], *bad, *ok;

		if (stat(p, &st) < 0 || st.st_size <= 24) {
			free(p);
			continue;
		}
		audit_init(&a);
		a.allow_field = R->s->allow_field;
		a.allow_reason = R->s->allow_reason;
		a.nallow = R->s->nallow;
		a.data_ports = R->ports;
		a.ndata_ports = R->s->nfwd;
		if (audit_read_segs(&a, R->log_path) < 0) {
			run_fail(R, "audit: %s: %s", R->log_path,
			         strerror(errno));
		} else if (audit_pcap(p, &a, err, sizeof(err)) < 0) {
			run_fail(R, "audit: %s", err);
		} else {
			bad = audit_describe(&a, true);
			ok = audit_describe(&a, false);
			console_note(&R->con,
			             "audit: %s: %d frames, %d from the guest, "
			             "%d problems",
			             base, a.frames, a.guest_frames,
			             a.problems);
			if (ok != NULL)
				console_note(&R->con, "audit: %s: %s", base,
				             ok);
			if (bad != NULL)
				run_fail(R, "audit: %s: %s", base, bad);
			free(bad);
			free(ok);
		}
		audit_free(&a);
		free(p);
	}
}

static void
finish(struct run *R)
{
	if (R->qemu > 0) {
		/* Catch what arrived after the last directive. */
		while (console_read(&R->con, 0) > 0)
			;
		if (R->fail == NULL)
			run_pump(R, 0);
		console_note(&R->con, "scenario done, stopping QEMU");
		qemu_kill(R->qemu);
		R->qemu = 0;
		run_qemu_pgrp = 0;
	}
	if (R->initrd != NULL) {
		unlink(R->initrd);
		free(R->initrd);
		R->initrd = NULL;
	}
	if (R->con.in_fd >= 0)
		close(R->con.in_fd);
	if (R->con.out_fd >= 0)
		close(R->con.out_fd);
	R->con.in_fd = R->con.out_fd = -1;
	if (R->tap.index >= 0) {
		console_note(&R->con, "net tap: deleting %s", R->tap.ns);
		tap_teardown(&R->tap);
	}
	if (R->log != NULL)
		audit_captures(R);
	if (R->fail == NULL && R->skip != NULL)
		report_add(R->r, PT_SKIP, R->name, R->skip);
	else
		report_add(R->r, R->fail ? PT_FAIL : PT_PASS, R->name,
		           R->fail ? R->fail : "");
	if (R->fail == NULL) {
		if (R->log != NULL)
			settle_captures(R);
		return;
	}
	if (R->hangdump.len > 0) {
		char *rep = xstrdup(R->hangdump.buf), *save = NULL;

		for (char *l = strtok_r(rep, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			report_diag(R->r, l);
		free(rep);
	}
	if (R->con.panic) {
		char *rep = xstrdup(R->con.report.buf), *save = NULL;

		for (char *l = strtok_r(rep, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			report_diag(R->r, l);
		free(rep);
	}
	if (R->log != NULL) {
		char *msg = xasprintf("log: %s", R->log_path);

		report_diag(R->r, msg);
		free(msg);
		settle_captures(R);
	}
}

/*
 * QEMU itself died of a signal it raised (SIGSEGV and the like), which is
 * an emulator crash, not a guest result: SIGKILL is the harness's own.
 */
static bool
emulator_crashed(const struct run *R)
{
	int sig;

	if (!R->exited || !WIFSIGNALED(R->wstatus))
		return false;
	sig = WTERMSIG(R->wstatus);
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT ||
	       sig == SIGILL || sig == SIGFPE;
}

/* One attempt; *crashed says whether QEMU itself crashed during it. */
static void
run_once(const struct script *s, const char *profile, const struct run_opts *o,
         struct report *r, const char *log_path, bool *crashed)
{
	struct profile prof;
	struct run R = {.s = s, .prof = &prof, .o = o, .r = r};
	char err[512];

	R.name = xasprintf("%s[%s]", s->name, profile);
	R.log_path = xstrdup(log_path);
	R.deadline = now_ms() + run_ms(&R, s->limit_ms);
	console_init(&R.con, -1, -1, NULL);
	sb_init(&R.hangdump);
	R.tap.index = -1;
	R.tap.fd[0] = R.tap.fd[1] = -1;
	if (profile_load(&prof, o->profile_dir, profile, err, sizeof(err)) <
	    0) {
		run_fail(&R, "%s", err);
		goto out;
	}
	R.log = open_log(&R);
	if (R.log == NULL) {
		run_fail(&R, "cannot write %s: %s", R.log_path,
		         strerror(errno));
		goto out;
	}
	R.con.log = R.log;
	console_note(&R.con, "scenario %s, profile %s", s->path, profile);
	if (s->needs_qemu && start_qemu(&R) < 0)
		goto out;
	for (int i = 0; i < s->nd && R.fail == NULL; i++)
		execute(&R, &s->d[i]);
out:
	*crashed = R.fail != NULL && emulator_crashed(&R);
	finish(&R);
	console_free(&R.con);
	if (R.log != NULL)
		fclose(R.log);
	free(R.stamps);
	sb_free(&R.hangdump);
	free(R.fail);
	free(R.skip);
	free(R.name);
	free(R.log_path);
}

/*
 * A run whose QEMU crashed (QEMU 7.2 TCG has been seen to segfault, rarely,
 * right after the guest's APs come up, while it scans PCI; no guest action
 * reproduces it) is run again from the start, up to QEMU_CRASH_ATTEMPTS
 * attempts in all.  Each crashed attempt's log is kept beside the new one
 * and named in the result, so a crash that keeps coming back fails, and
 * one that does not is still visible.  Three attempts, not two: on a busy
 * two-core host the crash came about one boot in sixty, and one scenario
 * crashed twice in a row in one make test.
 */
#define QEMU_CRASH_ATTEMPTS 3

void
run_scenario(const struct script *s, const char *profile,
             const struct run_opts *o, struct report *r)
{
	char *log_path =
	    xasprintf("%s/%s-%s.log", o->log_dir, s->name, profile);
	char *notes[QEMU_CRASH_ATTEMPTS];
	int attempt = 1, nnotes = 0;
	bool crashed = false;

	signal(SIGPIPE, SIG_IGN);
	run_once(s, profile, o, r, log_path, &crashed);
	while (crashed && attempt < QEMU_CRASH_ATTEMPTS) {
		char *kept =
		    attempt == 1
		        ? xasprintf("%s/%s-%s.qemu-crash.log", o->log_dir,
		                    s->name, profile)
		        : xasprintf("%s/%s-%s.qemu-crash-%d.log", o->log_dir,
		                    s->name, profile, attempt);

		notes[nnotes++] =
		    xasprintf("QEMU crashed (emulator, not guest); "
		              "ran again, attempt %d: %s",
		              attempt, kept);
		rename(log_path, kept);
		report_free(r);
		report_init(r);
		attempt++;
		run_once(s, profile, o, r, log_path, &crashed);
		free(kept);
	}
	/* The notes go with the run's own point, listed last. */
	for (int i = 0; i < nnotes; i++) {
		report_diag(r, notes[i]);
		free(notes[i]);
	}
	free(log_path);
}
