/*
 * fake-qemu: stands in for qemu-system-i386 in the harness self-tests.  It
 * accepts a QEMU command line, and on stdio behaves like the modref serial
 * console: "modref> " prompt, echo, "\r\n" line ends, KTAP from `ktest`,
 * and exit statuses as isa-debug-exit produces them (33 poweroff, 35 test
 * failure, 37 panic, 0 reset).  Commands that misbehave on purpose (hang,
 * panic, reset, broken KTAP) let the self-tests prove the harness catches
 * each failure.  A hung shell (`hang`, `hang cut`, fake.boot=hang) still
 * answers Ctrl-T with a hang dump, as the kernel does from its serial
 * interrupt; `freeze` answers nothing.  Boot-time behaviour comes from
 * -append, like the kernel:
 *   fake.boot=hang|panic  ktest=all
 * FAKE_QEMU_PIDFILE=path makes it record its pid (to check it was killed),
 * and then a line "hang" when the shell hangs (the harness is waiting).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_argc;
static char **g_argv;
static const char *g_cmdline = "";

static void
out(const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(1, s, n);

		if (w <= 0)
			exit(1);
		s += w;
		n -= (size_t)w;
	}
}

/* Print a line the way the kernel does: CR LF. */
static void outl(const char *s);

/*
 * "segv always" crashes the emulator itself; "segv once" crashes only the
 * first time in this harness run (the marker is keyed by the parent, the
 * harness's run process, which is the same for both attempts).
 */
static void
segv(const char *how)
{
	char marker[64];

	snprintf(marker, sizeof(marker), "/tmp/fake-qemu-segv.%d",
	         (int)getppid());
	if (strcmp(how, "once") == 0 && access(marker, F_OK) == 0) {
		unlink(marker);
		outl("segv: survived");
		return;
	}
	if (strcmp(how, "once") == 0) {
		FILE *f = fopen(marker, "w");
		if (f != NULL)
			fclose(f);
	}
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
}

static void
outl(const char *s)
{
	out(s);
	out("\r\n");
}

/* A guest that is gone: not even Ctrl-T gets an answer. */
static void
freeze(void)
{
	for (;;)
		pause();
}

/* The hang dump's shape (kernel/debug/hangdump.h); cut: no end line. */
static void
hang_dump(bool cut)
{
	outl("hangdump: begin (serial Ctrl-T, cpu 0, up 1.000 s)");
	outl("hangdump: cpu   0    0 online   init     10    20     3 "
	     "irq_depth=1 spinlocks=1 preempt_off=1 need_resched=0 "
	     "runnable=0 rq_lock=free (dumping)");
	outl("hangdump: threads:  TID CPU ST   SWITCHES   CPU(ms) NAME  WAIT");
	outl("hangdump: thread    5   0 S          12        3  init  "
	     "wait=mutex:module_mutex owner=9:stress queue=module_mutex.wq "
	     "intr=0 sig=0 held=rtnl_mutex");
	outl("hangdump:     [<c0101234>] fake_mutex_lock+0x14/0x40");
	if (cut)
		return;
	outl("hangdump: thread    9   0 S          40        7  stress  "
	     "wait=sleep until=+100ms intr=0 sig=0 held=module_mutex");
	outl("hangdump: module fake: refcount 1 (percpu), state GOING");
	outl("hangdump: modules: 1 loaded");
	outl("hangdump: end (2 threads, 1 ms)");
}

/* A guest whose shell is stuck, like a command that never returns: input
 * is not read as lines any more, but Ctrl-T still prints the hang dump
 * from the serial interrupt.  With cut, the dump stops half way. */
static void
hang_cut(bool cut)
{
	char c;

	for (;;) {
		if (read(0, &c, 1) != 1)
			freeze();
		if (c == 0x14)
			hang_dump(cut);
	}
}

/* A line for FAKE_QEMU_PIDFILE's reader (mode "w" starts the file). */
static void
pidfile_note(const char *mode, const char *line)
{
	const char *pidfile = getenv("FAKE_QEMU_PIDFILE");
	FILE *f = pidfile != NULL ? fopen(pidfile, mode) : NULL;

	if (f != NULL) {
		fputs(line, f);
		fclose(f);
	}
}

static void
hang(void)
{
	hang_cut(false);
}

static void
panic(const char *why)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "KERNEL PANIC: %s", why);
	outl(buf);
	outl("  cpu 0, thread shell");
	outl("  backtrace: [<c0101234>] fake_panic+0x14");
	outl("  backtrace: [<c0105678>] shell_exec+0x80");
	exit(37);
}

static void
suite_alloc(void)
{
	outl("    KTAP version 1");
	outl("    # Subtest: alloc");
	outl("    1..3");
	outl("    ok 1 alloc_one_page");
	outl("[    0.120000] page allocator: 31 pages free");
	outl("    ok 2 alloc_many");
	outl("    ok 3 free_twice # SKIP needs debug pages");
}

static void
suite_fails(void)
{
	outl("    KTAP version 1");
	outl("    # Subtest: fails");
	outl("    1..2");
	outl("    ok 1 works");
	outl("    not ok 2 broken");
	outl("    # broken: kernel/ktest/fails.c:42: expected 3 == 4");
}

static void
ktest(const char *suite)
{
	outl("KTAP version 1");
	if (*suite == '\0' || strcmp(suite, "all") == 0) {
		outl("1..2");
		suite_alloc();
		outl("ok 1 alloc");
		outl("    KTAP version 1");
		outl("    # Subtest: list");
		outl("    1..1");
		outl("    ok 1 list_add");
		outl("ok 2 list");
	} else if (strcmp(suite, "alloc") == 0) {
		outl("1..1");
		suite_alloc();
		outl("ok 1 alloc");
	} else if (strcmp(suite, "fails") == 0) {
		outl("1..1");
		suite_fails();
		outl("not ok 1 fails");
	} else if (strcmp(suite, "crash") == 0) {
		/* Plan says 3, only 2 results: the third test "crashed". */
		outl("1..1");
		outl("    KTAP version 1");
		outl("    # Subtest: crash");
		outl("    1..3");
		outl("    ok 1 first");
		outl("    ok 2 second");
	} else if (strcmp(suite, "hang") == 0) {
		outl("1..1");
		outl("    KTAP version 1");
		outl("    # Subtest: hang");
		outl("    1..1");
		hang();
	} else if (strcmp(suite, "panic") == 0) {
		outl("1..1");
		outl("    KTAP version 1");
		outl("    # Subtest: panic");
		outl("    1..2");
		outl("    ok 1 before");
		panic("ktest panic: NULL pointer dereference at 0x00000004");
	} else {
		outl("1..0");
	}
}

static void
print_args(void)
{
	char buf[4096] = "args:";

	for (int i = 1; i < g_argc; i++) {
		strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, g_argv[i], sizeof(buf) - strlen(buf) - 1);
	}
	outl(buf);
}

static void
execute(char *line)
{
	char *arg = line + strcspn(line, " ");
	char buf[600];

	if (*arg)
		*arg++ = '\0';
	if (*line == '\0')
		return;
	if (strcmp(line, "echo") == 0) {
		outl(arg);
	} else if (strcmp(line, "help") == 0) {
		outl("echo args ktest panic hang freeze reset segv poweroff "
		     "log spam");
	} else if (strcmp(line, "args") == 0) {
		print_args();
	} else if (strcmp(line, "ktest") == 0) {
		ktest(arg);
	} else if (strcmp(line, "panic") == 0) {
		panic(*arg ? arg : "requested from the shell");
	} else if (strcmp(line, "hang") == 0) {
		pidfile_note("a", "hang\n"); /* the harness sent it, waits */
		hang_cut(strcmp(arg, "cut") == 0);
	} else if (strcmp(line, "freeze") == 0) {
		freeze();
	} else if (strcmp(line, "reset") == 0) {
		exit(0);
	} else if (strcmp(line, "segv") == 0) {
		segv(arg);
	} else if (strcmp(line, "poweroff") == 0) {
		exit(*arg ? atoi(arg) * 2 + 1 : 33);
	} else if (strcmp(line, "log") == 0) {
		outl("[    1.234567] e1000: link up");
	} else if (strcmp(line, "spam") == 0) {
		for (int i = 0; i < atoi(arg); i++) {
			snprintf(buf, sizeof(buf), "spam line %d", i);
			outl(buf);
		}
	} else {
		snprintf(buf, sizeof(buf), "%s: ENOENT: no such command", line);
		outl(buf);
	}
}

static void
shell(void)
{
	char line[512];
	size_t n = 0;
	char c;

	out("modref> ");
	for (;;) {
		if (read(0, &c, 1) != 1)
			freeze(); /* like QEMU: stdin closing is no reason to exit
			         */
		if (c == 3) {
			outl("^C");
			n = 0;
			out("modref> ");
		} else if (c == '\r' || c == '\n') {
			out("\r\n");
			line[n] = '\0';
			execute(line);
			n = 0;
			out("modref> ");
		} else if (n + 1 < sizeof(line)) {
			line[n++] = c;
			if (write(1, &c, 1) != 1)
				exit(1);
		}
	}
}

int
main(int argc, char **argv)
{
	char buf[600];

	g_argc = argc;
	g_argv = argv;
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "-append") == 0)
			g_cmdline = argv[i + 1];
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	pidfile_note("w", buf);
	snprintf(buf, sizeof(buf), "[    0.000000] fake modref, cmdline '%s'",
	         g_cmdline);
	outl(buf);
	if (strstr(g_cmdline, "fake.boot=hang") != NULL)
		hang();
	if (strstr(g_cmdline, "fake.boot=panic") != NULL)
		panic("boot: cannot find the multiboot info");
	if (strstr(g_cmdline, "ktest=all") != NULL) {
		ktest("all");
		exit(33);
	}
	shell();
	return 0;
}
