/*
 * harness-e2e: end-to-end self-tests of modref-harness.  Each case runs
 * the real harness on scenarios from tests/harness/selftest/ against
 * fake-qemu and checks its TAP output and exit status with regexes, so a
 * harness that stopped noticing hangs, panics, resets or crashed tests
 * fails here.  Output is KTAP (one case per check) for `host-ktap`; the
 * harness output of a failing case goes to stderr, which ends up in the
 * run's log.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/harness/util.h"

#define HARNESS "build/host/modref-harness"
#define FAKE    "build/host/fake-qemu"
#define DIR     "tests/harness/selftest/"
#define LOGS    "build/test-logs/selftest"
#define MAXRE   6

struct e2e {
	const char *name;
	const char *files; /* space separated, relative to DIR */
	int jobs;
	int status; /* expected harness exit status */
	const char *want[MAXRE];
	const char *refuse[MAXRE];
	int max_seconds; /* 0: no bound */
	const char *iso; /* NULL: the fake, which exists */
};

/* A case's run log (in LOGS) and regexes it must match, in this order. */
struct e2e_log {
	const char *name; /* the case */
	const char *log;
	const char *want[MAXRE];
};

static const struct e2e_log logs[] = {
    {"hang_times_out",
     "hang-default.log",
     {"^### harness: FAIL: line 4: timeout .*; hang dump follows in the "
      "log$",
      "^### harness: hang dump: sending Ctrl-T \\(0x14\\)",
      "^hangdump: begin \\(serial Ctrl-T", "^hangdump:     \\[<c0101234>\\] ",
      "^hangdump: end \\(2 threads, 1 ms\\)$",
      "^### harness: hang dump: complete, 9 lines$"}},
    {"hang_dump_dead_guest_bounded",
     "hang-freeze-default.log",
     {"^### harness: hang dump: sending Ctrl-T",
      "^### harness: hang dump: none: the guest said nothing"}},
    {"hang_dump_cut_short",
     "hang-cut-default.log",
     {"^hangdump: begin", "^hangdump:     \\[<c0101234>\\] ",
      "^### harness: hang dump: cut short after 5 lines"}},
};

static const struct e2e cases[] = {
    {"all_good",
     "pass.scn",
     1,
     0,
     {"^ok [0-9]+ - pass\\[default\\]$",
      "^ok [0-9]+ - pass\\[default\\] alloc\\.alloc_many$",
      "alloc\\.free_twice # SKIP needs debug pages$",
      "^3 passed, 0 failed, 1 skipped$"},
     {"not ok"},
     0,
     NULL},
    /* A timeout asks the guest for its hang dump (Ctrl-T) before QEMU
     * is stopped: the failure says so, the log has the dump right after
     * the failure line, the TAP diagnostics its threads and modules. */
    {"hang_times_out",
     "hang.scn",
     1,
     1,
     {"^not ok 1 - hang\\[default\\] # line 4: timeout after 2s waiting "
      "for /\\^never printed\\$/; last output .*; hang dump follows in "
      "the log$",
      "^# hang dump: 9 lines in the log; its threads and modules:$",
      "^#   hangdump: thread +5 +0 S .*  init  wait=mutex:module_mutex "
      "owner=9:stress ",
      "^#   hangdump: module fake: refcount 1 \\(percpu\\), state GOING$",
      "^# log: " LOGS "/hang-default\\.log$", "^0 passed, 1 failed$"},
     {0},
     10,
     NULL},
    /* A guest that answers nothing costs a few seconds, no more. */
    {"hang_dump_dead_guest_bounded",
     "hang-freeze.scn",
     1,
     1,
     {"^not ok 1 - hang-freeze\\[default\\] # line 6: timeout after 2s "
      "waiting for .*; hang dump follows in the log$",
      "^# hang dump: none: the guest said nothing after Ctrl-T "},
     {"^#   hangdump:"},
     8,
     NULL},
    {"hang_dump_cut_short",
     "hang-cut.scn",
     1,
     1,
     {"; hang dump follows in the log$",
      "^# hang dump: cut short after 5 lines \\(no end line in time\\)$",
      "^#   hangdump: thread +5 "},
     {0},
     8,
     NULL},
    {"boot_hang_times_out",
     "boot-hang.scn",
     1,
     1,
     {"^not ok 1 - boot-hang\\[default\\] # line 3: timeout after 2s "
      "waiting for the prompt"},
     {0},
     10,
     NULL},
    {"panic_fails",
     "panic.scn",
     1,
     1,
     {"^not ok 1 - panic\\[default\\] # kernel panic: oops in rmmod$",
      "^#   backtrace: \\[<c0101234>\\] fake_panic\\+0x14$"},
     /* Only a timeout asks for a hang dump. */
     {"hang dump"},
     0,
     NULL},
    {"expected_panic_passes",
     "panic-expected.scn",
     1,
     0,
     {"^ok 1 - panic-expected\\[default\\]$"},
     {0},
     0,
     NULL},
    {"reset_is_not_success",
     "reset.scn",
     1,
     1,
     {"^not ok 1 - reset\\[default\\] # line 4: expected QEMU to exit "
      "with status 33 .*got status 0 \\(reset or triple fault\\)$"},
     {0},
     0,
     NULL},
    {"reset_while_waiting",
     "reset-expect.scn",
     1,
     1,
     {"# line 4: QEMU exited, status 0 \\(reset or triple fault\\), "
      "while waiting for the prompt$"},
     {0},
     0,
     NULL},
    {"qemu_crash_is_run_again",
     "qemu-crash-once.scn",
     1,
     0,
     {"^ok 1 - qemu-crash-once\\[default\\]$",
      "QEMU crashed \\(emulator, not guest\\); ran again, attempt 1: "
      ".*qemu-crash-once-default\\.qemu-crash\\.log$",
      "^1 passed, 0 failed$"},
     {0},
     0,
     NULL},
    {"qemu_crash_every_attempt_fails",
     "qemu-crash-always.scn",
     1,
     1,
     {"^not ok 1 - qemu-crash-always\\[default\\] # line 4: QEMU exited, "
      "killed by signal 11 \\(Segmentation fault\\), while waiting",
      "QEMU crashed \\(emulator, not guest\\); ran again, attempt 1: "
      ".*qemu-crash-always-default\\.qemu-crash\\.log$",
      "QEMU crashed \\(emulator, not guest\\); ran again, attempt 2: "
      ".*qemu-crash-always-default\\.qemu-crash-2\\.log$",
      "^0 passed, 1 failed$"},
     {0},
     0,
     NULL},
    {"missing_result_crashed",
     "crashed.scn",
     1,
     1,
     {"^ok 1 - crashed\\[default\\] crash\\.first$",
      "^not ok 3 - crashed\\[default\\] crash\\.#3 # crashed: no result "
      "line \\(prompt returned\\)$",
      "^not ok 4 - crashed\\[default\\] # line 5: ktap: output ended "
      "early"},
     {0},
     0,
     NULL},
    {"failing_case_reported",
     "ktap-fail.scn",
     1,
     1,
     {"^not ok 2 - ktap-fail\\[default\\] fails\\.broken # broken: "
      "kernel/ktest/fails\\.c:42: expected 3 == 4$",
      "^ok 3 - ktap-fail\\[default\\]$", "^2 passed, 1 failed$"},
     {0},
     0,
     NULL},
    {"ktap_silence_times_out",
     "ktap-hang.scn",
     1,
     1,
     {"hang\\.#1 # crashed: no result line \\(timeout\\)$"},
     {0},
     10,
     NULL},
    {"ktap_panic_crashes",
     "ktap-panic.scn",
     1,
     1,
     {"^ok 1 - ktap-panic\\[default\\] panic\\.before$",
      "panic\\.#2 # crashed: no result line \\(kernel panic\\)$",
      "# kernel panic: ktest panic: NULL pointer"},
     {0},
     0,
     NULL},
    {"ktap_suite_required",
     "ktap-missing-suite.scn",
     1,
     1,
     {"# line 4: ktap: suite 'nosuch' not in the KTAP output$"},
     {0},
     0,
     NULL},
    {"boot_ktap",
     "boot-ktap.scn",
     1,
     0,
     {"^ok 4 - boot-ktap\\[default\\] list\\.list_add$",
      "^ok 5 - boot-ktap\\[default\\]$"},
     {0},
     0,
     NULL},
    {"syntax_error_is_a_failure",
     "syntax.scn pass.scn",
     1,
     1,
     {"^not ok 1 - syntax # " DIR "syntax\\.scn:3: unknown directive "
      "'expcet'",
      "^ok [0-9]+ - pass\\[default\\]$"},
     {0},
     0,
     NULL},
    {"reject_fails",
     "reject.scn",
     1,
     1,
     {"# reject /ENOENT/ matched: bogus: ENOENT"},
     {0},
     0,
     NULL},
    {"run_limit",
     "limit.scn",
     1,
     1,
     {"# line 5: run limit of 2s reached"},
     {0},
     10,
     NULL},
    {"exit_codes",
     "exit-code.scn exit-wrong.scn",
     1,
     1,
     {"^ok 1 - exit-code\\[default\\]$",
      "^not ok 2 - exit-wrong\\[default\\] # line 4: expected QEMU to "
      "exit with status 35 \\(test failure\\), got status 33"},
     {0},
     0,
     NULL},
    {"iso_rejects_cmdline",
     "iso-cmdline.scn",
     1,
     1,
     {"^not ok 1 - iso-cmdline\\[iso\\] # profile iso boots the ISO"},
     {0},
     0,
     NULL},
    {"profiles_and_vars",
     "vars.scn hostfwd.scn",
     1,
     0,
     {"^ok [0-9] - vars\\[smp4\\]$", "^ok [0-9] - vars\\[nonet\\]$",
      "^ok [0-9] - hostfwd\\[default\\]$"},
     {0},
     0,
     NULL},
    {"host_commands",
     "host.scn host-crash.scn",
     1,
     1,
     {"^ok 1 - host\\[default\\] first$",
      "^ok 2 - host\\[default\\] second # SKIP not today$",
      "^not ok 3 - host\\[default\\] # line 4: host: 'false' exited with "
      "status 1$",
      "^not ok [0-9] - host-crash\\[default\\] #3 # crashed: no result",
      "exited with status 3$"},
     {0},
     0,
     NULL},
    /* The run fails with a server left running (60 s): it must still
     * end promptly. */
    {"host_server_left_running",
     "host-orphan.scn",
     1,
     1,
     {"^not ok 1 - host-orphan\\[default\\] # line 7: host: 'false' exited "
      "with status 1$"},
     {0},
     30,
     NULL},
    {"missing_iso_skips",
     "iso-missing.scn",
     1,
     0,
     {"^ok 1 - iso-missing\\[iso\\] # SKIP build/no-such\\.iso not built",
      "^0 passed, 0 failed, 1 skipped$"},
     {0},
     0,
     "build/no-such.iso"},
    /* Three 2-second runs: serial would take 6s. */
    {"runs_in_parallel",
     "parallel.scn",
     3,
     0,
     {"^3 passed, 0 failed$"},
     {0},
     5,
     NULL},
};

/* Run the harness; its stdout in *out; returns the wait status. */
static int
run_harness(const struct e2e *c, char **out, int *elapsed_ms)
{
	struct argv a;
	struct strbuf sb;
	char buf[4096], *files = xstrdup(c->files);
	int p[2], wstatus = 0;
	int64_t t0 = now_ms();
	ssize_t n;
	pid_t pid;

	argv_init(&a);
	argv_add(&a, HARNESS);
	argv_add(&a, "test");
	argv_addf(&a, "-j%d", c->jobs);
	argv_add(&a, "--qemu=" FAKE);
	argv_add(&a, "--kernel=" FAKE);
	argv_addf(&a, "--iso=%s", c->iso ? c->iso : FAKE);
	argv_add(&a, "--logs=" LOGS);
	/* Exact timeouts: the fake QEMU needs no allowance for load. */
	argv_add(&a, "--timeout-scale=1");
	for (char *f = strtok(files, " "); f; f = strtok(NULL, " "))
		argv_addf(&a, DIR "%s", f);
	free(files);
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(a.v[0], a.v);
		perror(HARNESS);
		_exit(127);
	}
	close(p[1]);
	sb_init(&sb);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(p[0]);
	waitpid(pid, &wstatus, 0);
	*elapsed_ms = (int)(now_ms() - t0);
	*out = sb.buf;
	argv_free(&a);
	return wstatus;
}

static bool
matches(const char *text, const char *re_src)
{
	regex_t re;
	bool hit;

	if (regcomp(&re, re_src, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
		return false;
	hit = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/* The run's log matches each of c->want, in this order. */
static void
check_log(const struct e2e_log *c, char *why, size_t size)
{
	char *path = xasprintf("%s/%s", LOGS, c->log), *log = read_file(path);
	const char *at = log;

	free(path);
	if (log == NULL) {
		snprintf(why, size, "no log %s", c->log);
		return;
	}
	for (int i = 0; i < MAXRE && c->want[i] && !why[0]; i++) {
		regmatch_t m;
		regex_t re;

		if (regcomp(&re, c->want[i], REG_EXTENDED | REG_NEWLINE) != 0 ||
		    regexec(&re, at, 1, &m, at == log ? 0 : REG_NOTBOL) != 0)
			snprintf(why, size, "log %s: missing /%s/ (in order)",
			         c->log, c->want[i]);
		else
			at += m.rm_eo;
		regfree(&re);
	}
	if (why[0])
		fprintf(stderr, "---- %s: log ----\n%s----\n", c->name, log);
	free(log);
}

/* Returns NULL on success, else what went wrong (static). */
static const char *
check(const struct e2e *c)
{
	static char why[512];
	char *out;
	int ms, ws = run_harness(c, &out, &ms);

	why[0] = '\0';
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != c->status)
		snprintf(why, sizeof(why), "harness exit status %d, want %d",
		         WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, c->status);
	for (int i = 0; i < MAXRE && c->want[i] && !why[0]; i++)
		if (!matches(out, c->want[i]))
			snprintf(why, sizeof(why), "missing /%s/", c->want[i]);
	for (int i = 0; i < MAXRE && c->refuse[i] && !why[0]; i++)
		if (matches(out, c->refuse[i]))
			snprintf(why, sizeof(why), "unexpected /%s/",
			         c->refuse[i]);
	if (!why[0] && c->max_seconds && ms > c->max_seconds * 1000)
		snprintf(why, sizeof(why), "took %dms, limit %ds", ms,
		         c->max_seconds);
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]) && !why[0]; i++)
		if (strcmp(logs[i].name, c->name) == 0)
			check_log(&logs[i], why, sizeof(why));
	if (why[0])
		fprintf(stderr, "---- %s: harness output ----\n%s----\n",
		        c->name, out);
	free(out);
	return why[0] ? why : NULL;
}

/* Dead or a zombie nobody reaped yet: either way, no longer running. */
static bool
gone(pid_t pid)
{
	char path[64], *stat, *rp;
	bool zombie;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = read_file(path);
	if (stat == NULL)
		return true;
	rp = strrchr(stat, ')');
	zombie = rp != NULL && rp[1] == ' ' && rp[2] == 'Z';
	free(stat);
	return zombie;
}

/*
 * SIGINT to the harness while a run waits: the harness must exit soon,
 * and the QEMU it started must not survive it.
 */
static const char *
check_interrupt(void)
{
	static char why[256];
	const char *pidfile = LOGS "/interrupt.pid";
	char *pidtext = NULL;
	int wstatus = 0;
	pid_t h, fake = 0;
	bool hung = false;
	int64_t until;

	unlink(pidfile);
	h = fork();
	if (h == 0) {
		int null = open("/dev/null", 1);

		setenv("FAKE_QEMU_PIDFILE", pidfile, 1);
		dup2(null, 1);
		execl(HARNESS, HARNESS, "test", "--qemu=" FAKE,
		      "--kernel=" FAKE, "--logs=" LOGS, DIR "interrupt.scn",
		      (char *)NULL);
		_exit(127);
	}
	/* The fake QEMU's pid, then "hang" once the harness has typed the
	 * command and waits for what never comes.  The limits only bound a
	 * failure; a busy machine takes seconds to start a process. */
	for (until = now_ms() + 60000; now_ms() < until; usleep(50000)) {
		free(pidtext);
		pidtext = read_file(pidfile);
		fake = pidtext != NULL ? atoi(pidtext) : 0;
		hung = fake > 0 && strstr(pidtext, "\nhang\n") != NULL;
		if (hung)
			break;
	}
	free(pidtext);
	if (!hung) {
		kill(h, SIGKILL);
		waitpid(h, NULL, 0);
		if (fake > 0)
			kill(fake, SIGKILL);
		return "fake QEMU never started, or never got the hang command";
	}
	kill(h, SIGINT);
	for (until = now_ms() + 30000; now_ms() < until; usleep(20000))
		if (waitpid(h, &wstatus, WNOHANG) == h)
			break;
	if (now_ms() >= until) {
		kill(h, SIGKILL);
		waitpid(h, NULL, 0);
		kill(fake, SIGKILL);
		return "harness still running 30 s after SIGINT";
	}
	for (until = now_ms() + 30000; now_ms() < until && !gone(fake);)
		usleep(20000);
	if (!gone(fake)) {
		kill(fake, SIGKILL);
		return "fake QEMU survived the interrupted harness";
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 130) {
		snprintf(why, sizeof(why), "harness exit status %d, want 130",
		         WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
		return why;
	}
	return NULL;
}

/* Run sh -c cmd; its exit status. */
static int
sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool
pid_file_gone(const char *path)
{
	char *text = read_file(path);
	pid_t pid = text ? atoi(text) : 0;

	free(text);
	return pid > 0 && gone(pid);
}

/*
 * net tap (root only): a namespace left by a killed run (its owner is
 * dead) and the process in it are removed when a tap run starts; the
 * runs pass tap.scn's checks inside their namespace, and what they left
 * running there is killed when they end.
 */
static const char *
check_tap(bool *skip)
{
	static char why[256];
	const char *stale = LOGS "/tap-stale.pid";
	char *out, cmd[1024];
	struct e2e c = {.name = "tap", .files = "tap.scn", .jobs = 2};
	pid_t dead;
	int ms, ws;

	*skip = geteuid() != 0;
	if (*skip)
		return "not root: net tap runs are skipped";
	/* A pid that is surely dead: a child that exited. */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	/* The harness finds the process through `ip netns pids`: wait
	 * (bounded) until it has entered the namespace, or on a busy host
	 * the harness can look before it has and never see it. */
	snprintf(
	    cmd, sizeof(cmd),
	    "ip netns del modref-tap255 2>/dev/null; mkdir -p /run/modref-tap "
	    "&& ip netns add modref-tap255 && echo '%d 0' > "
	    "/run/modref-tap/255.owner && (setsid ip netns exec "
	    "modref-tap255 sleep 300 > /dev/null 2>&1 & echo $! > %s) && "
	    "for i in $(seq 300); do ip netns pids modref-tap255 | grep -qx "
	    "\"$(cat %s)\" && exit 0; sleep 0.1; done; exit 1",
	    (int)dead, stale, stale);
	if (sh(cmd) != 0)
		return "could not fake a stale namespace";
	ws = run_harness(&c, &out, &ms);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 ||
	    !matches(out, "^ok [0-9]+ - tap\\[tap\\]$") ||
	    !matches(out, "^ok [0-9]+ - tap\\[tapvirtio\\]$"))
		snprintf(why, sizeof(why), "tap runs did not pass");
	else if (access("/run/netns/modref-tap255", F_OK) == 0)
		snprintf(why, sizeof(why), "stale namespace not removed");
	else if (!pid_file_gone(stale))
		snprintf(why, sizeof(why), "stale namespace's process alive");
	else if (!pid_file_gone(LOGS "/tap-tap.pid") ||
	         !pid_file_gone(LOGS "/tap-tapvirtio.pid"))
		snprintf(why, sizeof(why), "a run's peer process survived it");
	else
		why[0] = '\0';
	if (why[0])
		fprintf(stderr, "---- tap: harness output ----\n%s----\n", out);
	free(out);
	sh("ip netns del modref-tap255 2>/dev/null; rm -f "
	   "/run/modref-tap/255.owner");
	return why[0] ? why : NULL;
}

/* Without root, tap runs are skipped with the reason. */
static const char *
check_tap_unprivileged(bool *skip)
{
	char logs[] = "/tmp/modref-e2e-XXXXXX", *argv0 = HARNESS;
	struct strbuf sb;
	char buf[4096];
	const char *why = NULL;
	int p[2];
	ssize_t n;
	pid_t pid;

	*skip = geteuid() != 0;
	if (*skip)
		return "not root: cannot drop to another user";
	if (mkdtemp(logs) == NULL || chmod(logs, 0777) < 0 || pipe(p) < 0)
		return "no temporary log directory";
	pid = fork();
	if (pid == 0) {
		char *logopt = xasprintf("--logs=%s", logs);

		dup2(p[1], 1);
		close(p[0]);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(126);
		execl(argv0, argv0, "test", "--qemu=" FAKE, "--kernel=" FAKE,
		      logopt, DIR "tap.scn", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	sb_init(&sb);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (!matches(sb.buf, "^ok 1 - tap\\[tap\\] # SKIP net tap needs "
	                     "root for network namespaces and taps \\(uid "
	                     "65534\\)$") ||
	    !matches(sb.buf, "^0 passed, 0 failed, 2 skipped$")) {
		fprintf(stderr, "---- tap_unprivileged: output ----\n%s----\n",
		        sb.buf);
		why = "tap runs not skipped as an unprivileged user";
	}
	sb_free(&sb);
	snprintf(buf, sizeof(buf), "rm -rf %s", logs);
	sh(buf);
	return why;
}

static int
report_extra(int num, const char *name, const char *why, bool skip)
{
	if (skip) {
		printf("    ok %d %s # SKIP %s\n", num, name, why);
		return 0;
	}
	printf("    %s %d %s\n", why ? "not ok" : "ok", num, name);
	if (why)
		printf("    # %s: %s\n", name, why);
	return why != NULL;
}

int
main(void)
{
	int n = (int)(sizeof(cases) / sizeof(cases[0])), bad = 0;
	const char *why;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..1\n    KTAP version 1\n"
	       "    # Subtest: e2e\n    1..%d\n",
	       n + 3);
	for (int i = 0; i < n; i++) {
		why = check(&cases[i]);
		bad += why != NULL;
		printf("    %s %d %s\n", why ? "not ok" : "ok", i + 1,
		       cases[i].name);
		if (why)
			printf("    # %s: %s\n", cases[i].name, why);
	}
	why = check_interrupt();
	bad += why != NULL;
	printf("    %s %d interrupt_kills_qemu\n", why ? "not ok" : "ok",
	       n + 1);
	if (why)
		printf("    # interrupt_kills_qemu: %s\n", why);
	{
		bool skip;

		why = check_tap(&skip);
		bad += report_extra(n + 2, "tap_namespaces", why, skip);
		why = check_tap_unprivileged(&skip);
		bad +=
		    report_extra(n + 3, "tap_skipped_without_root", why, skip);
	}
	printf("%s 1 e2e\n", bad ? "not ok" : "ok");
	return bad ? 1 : 0;
}
