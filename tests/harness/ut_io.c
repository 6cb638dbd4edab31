/*
 * Unit tests: QEMU command lines, console matching and the report
 * format between run processes and the scheduler.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness/console.h"
#include "tests/harness/qemu.h"
#include "tests/harness/report.h"

#include "tests/harness/unittest.h"

/* ---- qemu argv ----------------------------------------------------------- */

static char *
build(struct qemu_config *q, struct profile *p, char *err)
{
	struct argv a;
	char *s;

	q->prof = p;
	q->qemu = q->qemu ? q->qemu : "qemu-system-i386";
	q->kernel = "k.elf";
	q->iso = "m.iso";
	if (qemu_build_argv(q, &a, err, 512) < 0)
		return NULL;
	s = argv_join(&a);
	argv_free(&a);
	return s;
}

static void
qemu_direct(void)
{
	char *mods[] = {"a.ko", "b.ko"}, err[512], *s;
	struct profile p;
	struct qemu_config q = {
	    .cmdline = "ktest=all x=1", .modules = mods, .nmodules = 2};

	profile_defaults(&p, "t");
	p.smp = 4;
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, "qemu-system-i386 -machine pc -accel tcg -nodefaults "
	             "-display none -no-reboot -device "
	             "isa-debug-exit,iobase=0xf4,iosize=0x04 -smp 4 -m 128M ");
	CHECK_HAS(s, " -kernel k.elf -append 'ktest=all x=1' ");
	CHECK_HAS(s, " -initrd a.ko,b.ko ");
	CHECK_HAS(s, " -serial stdio -monitor none");
	CHECK(strstr(s, "kvm") == NULL && strstr(s, "-S") == NULL);
	free(s);
}

static void
qemu_iso(void)
{
	char err[512], *s;
	struct profile p;
	struct qemu_config q = {0};

	profile_defaults(&p, "iso");
	p.boot = BOOT_ISO;
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -cdrom m.iso -boot d ");
	CHECK(strstr(s, "-kernel") == NULL && strstr(s, "-append") == NULL);
	free(s);
	q.cmdline = "x=1";
	CHECK(build(&q, &p, err) == NULL);
	CHECK_HAS(err, "profile iso boots the ISO");
}

static void
qemu_nics(void)
{
	char err[512], *s;
	struct profile p;
	struct qemu_config q = {0};
	struct hostfwd fwd = {FWD_UDP, 7, false};
	int port = 40000;

	profile_defaults(&p, "t");
	q.fwd = &fwd;
	q.fwd_host_port = &port;
	q.nfwd = 1;
	q.pcap_prefix = "build/test-logs/x";
	q.tftp_dir = "build/modules";
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev user,id=n1,tftp=build/modules -object ");
	q.tftp_dir = NULL;
	free(s);
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev user,id=n0,hostfwd=udp:127.0.0.1:40000-:7 "
	             "-object filter-dump,id=f0,netdev=n0,"
	             "file=build/test-logs/x-n0.pcap -device "
	             "e1000,netdev=n0,mac=52:54:00:12:34:56 "
	             "-netdev user,id=n1 -object ");
	CHECK_HAS(s,
	          " -device virtio-net-pci,netdev=n1,mac=52:54:00:12:34:57 ");
	free(s);
	/* `hostfwd udp 7 second`: to the second NIC only. */
	fwd.second = true;
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev user,id=n0 -object ");
	CHECK_HAS(s, " -netdev user,id=n1,hostfwd=udp:127.0.0.1:40000-:7 "
	             "-object ");
	fwd.second = false;
	free(s);
	/* The MACs do not depend on which NICs the profile has. */
	p.nic = NIC_VIRTIO;
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK(strstr(s, "e1000") == NULL);
	CHECK_HAS(s, " -device virtio-net-pci,netdev=n1,mac=52:54:00:12:34:57");
	free(s);
	/* net tap: QEMU inherits the taps the harness opened. */
	p.nic = NIC_BOTH;
	p.net = NET_TAP;
	q.tap_fd[0] = 7;
	q.tap_fd[1] = 9;
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev tap,id=n0,fd=7 -object filter-dump,id=f0,");
	CHECK_HAS(s, " -netdev tap,id=n1,fd=9 -object filter-dump,id=f1,");
	CHECK(strstr(s, "hostfwd") == NULL && strstr(s, "vnet_hdr") == NULL);
	p.net = NET_USER;
	free(s);
	snprintf(p.subnet[1], sizeof(p.subnet[1]), "10.0.3.0/24");
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev user,id=n1,net=10.0.3.0/24 -object ");
	free(s);
	p.nic = NIC_NONE;
	s = build(&q, &p, err);
	CHECK(s != NULL && strstr(s, "-netdev") == NULL &&
	      strstr(s, "e1000") == NULL);
	free(s);
	p.nic = NIC_E1000;
	p.net = NET_NONE;
	s = build(&q, &p, err);
	CHECK(s != NULL && strstr(s, "-netdev") == NULL);
	CHECK_HAS(s, " -device e1000 ");
	free(s);
}

static void
qemu_interactive(void)
{
	char err[512], *s;
	struct profile p;
	struct qemu_config q = {
	    .interactive = true, .gdb_port = 1234, .gdb_halt = true};

	profile_defaults(&p, "t");
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -serial mon:stdio -S -gdb tcp:127.0.0.1:1234");
	CHECK(strstr(s, "-monitor none") == NULL);
	free(s);
	/* A test's gdb stub (directive gdbstub) must not halt the boot. */
	q = (struct qemu_config){.gdb_port = 5555};
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -gdb tcp:127.0.0.1:5555");
	CHECK(strstr(s, " -S ") == NULL);
	free(s);
}

static void
qemu_statuses(void)
{
	CHECK_HAS(describe_status(33 << 8), "success");
	CHECK_HAS(describe_status(35 << 8), "test failure");
	CHECK_HAS(describe_status(37 << 8), "panic");
	CHECK_HAS(describe_status(0), "reset or triple fault");
	CHECK_HAS(describe_status(11 << 8), "poweroff 5");
	CHECK_HAS(describe_status(9), "signal 9");
	CHECK(qemu_status(9) == -1 && qemu_status(33 << 8) == 33);
}

/* make run: a clean poweroff and Ctrl-A X are success, the rest is not. */
static void
qemu_run_exits(void)
{
	CHECK(qemu_run_exit_code(33 << 8) == 0);
	CHECK(qemu_run_exit_code(0) == 0);
	CHECK(qemu_run_exit_code(35 << 8) == 35);
	CHECK(qemu_run_exit_code(37 << 8) == 37);
	CHECK(qemu_run_exit_code(1 << 8) == 1);
	CHECK(qemu_run_exit_code(9) == 128 + 9);
}

/* ---- console ---------------------------------------------------------------
 */

static void
console_feed(struct console *c, int wfd, const char *text)
{
	CHECK(write(wfd, text, strlen(text)) == (ssize_t)strlen(text));
	while (console_read(c, 0) > 0)
		;
}

static void
console_matching(void)
{
	struct console c;
	regex_t prompt, hello, anchored, uptime;
	int p[2];
	char *line;

	CHECK(pipe(p) == 0);
	console_init(&c, -1, p[0], NULL);
	regcomp(&prompt, PROMPT, REG_EXTENDED);
	regcomp(&hello, "hello", REG_EXTENDED);
	regcomp(&anchored, "^world$", REG_EXTENDED);
	regcomp(&uptime, "^up ([0-9.]+) s", REG_EXTENDED);
	console_feed(&c, p[1], "boot\r\nmod");
	CHECK(!console_match(&c, &prompt));
	/* The prompt has no newline: a partial line must match. */
	console_feed(&c, p[1], "ref> ");
	CHECK(console_match(&c, &prompt));
	CHECK(!console_match(&c, &prompt));
	console_feed(&c, p[1], "hello world\r\n");
	CHECK(console_match(&c, &hello));
	/* " world" is left, but not at the start of a line. */
	CHECK(!console_match(&c, &anchored));
	console_feed(&c, p[1], "world\r\n");
	CHECK(console_match(&c, &anchored));
	CHECK(console_line(&c) == NULL);
	console_feed(&c, p[1], "a\r\nb");
	CHECK((line = console_line(&c)) != NULL);
	CHECK_STR(line, "a");
	free(line);
	CHECK(console_line(&c) == NULL);
	/* The first group of a match is kept (stamp reads times from it). */
	console_feed(&c, p[1], "\nup 12.345 s, 2 cpu(s)\n");
	CHECK(console_match(&c, &uptime));
	CHECK(c.sub != NULL);
	CHECK_STR(c.sub, "12.345");
	CHECK(console_match(&c, &hello) == false);
	CHECK(c.sub != NULL); /* a failed match leaves it */
	console_feed(&c, p[1], "hello\n");
	CHECK(console_match(&c, &hello));
	CHECK(c.sub == NULL);
	close(p[1]);
	CHECK(console_read(&c, 100) == -1);
	regfree(&prompt);
	regfree(&hello);
	regfree(&anchored);
	regfree(&uptime);
	console_free(&c);
}

static void
console_panic_and_reject(void)
{
	struct console c;
	regex_t bug;
	int p[2];

	CHECK(pipe(p) == 0);
	console_init(&c, -1, p[0], NULL);
	regcomp(&bug, "BUG", REG_EXTENDED);
	console_feed(&c, p[1], "early BUG\r\n");
	/* Unconsumed lines count for a reject declared later. */
	CHECK(console_reject(&c, &bug, "BUG") == 0);
	CHECK(c.rejected != NULL);
	CHECK_HAS(c.rejected, "early BUG");
	CHECK(!c.panic);
	console_feed(&c, p[1], "[ 1.0] KERNEL PANIC: oops\r\n  at foo+0x1\r\n");
	CHECK(c.panic);
	CHECK_STR(c.report.buf, "KERNEL PANIC: oops\n  at foo+0x1\n");
	close(p[1]);
	close(p[0]);
	regfree(&bug);
	console_free(&c);
}

/* A long wait resumes where it left off, and still finds the match. */
static void
console_resumed_search(void)
{
	struct console c;
	regex_t target, noise;
	int p[2];

	CHECK(pipe(p) == 0);
	console_init(&c, -1, p[0], NULL);
	regcomp(&target, "^target [0-9]+$", REG_EXTENDED);
	regcomp(&noise, "^noise 7$", REG_EXTENDED);
	for (int i = 0; i < 200; i++) {
		console_feed(&c, p[1], "noise 7\r\nnoise 8\r\ntarg");
		CHECK(!console_match(&c, &target));
		console_feed(&c, p[1], "\r\n");
	}
	console_feed(&c, p[1], "target 42\r\n");
	CHECK(console_match(&c, &target));
	/* A different regex starts again at the cursor. */
	console_feed(&c, p[1], "noise 7\r\n");
	CHECK(console_match(&c, &noise));
	CHECK(!console_match(&c, &noise));
	close(p[1]);
	close(p[0]);
	regfree(&target);
	regfree(&noise);
	console_free(&c);
}

/* ---- report ----------------------------------------------------------------
 */

static void
report_roundtrip(void)
{
	struct report a, b;
	int p[2];
	char buf[1024], *save = NULL;
	ssize_t n;

	report_init(&a);
	report_init(&b);
	report_add(&a, PT_FAIL, "x[default] s.c", "line 3:\ttab\nnewline");
	report_diag(&a, "log: build/test-logs/x-default.log");
	report_add(&a, PT_SKIP, "y", "");
	CHECK(pipe(p) == 0);
	CHECK(report_write(p[1], &a) == 0);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	CHECK(n > 0);
	buf[n] = '\0';
	for (char *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		CHECK(report_parse_line(&b, l) == 0);
	CHECK(b.n == 2);
	CHECK(b.p[0].status == PT_FAIL && b.p[1].status == PT_SKIP);
	CHECK_STR(b.p[0].name, "x[default] s.c");
	CHECK_STR(b.p[0].reason, "line 3: tab newline");
	CHECK(b.p[0].ndiag == 1);
	CHECK(report_parse_line(&b, "garbage") < 0);
	report_free(&a);
	report_free(&b);
}

static const struct tcase qemu_cases[] = {T(qemu_direct),   T(qemu_iso),
                                          T(qemu_nics),     T(qemu_interactive),
                                          T(qemu_statuses), T(qemu_run_exits)};
const struct suite qemu_suite = {"qemu", qemu_cases, N(qemu_cases)};

static const struct tcase console_cases[] = {T(console_matching),
                                             T(console_panic_and_reject),
                                             T(console_resumed_search)};
const struct suite console_suite = {"console", console_cases, N(console_cases)};

static const struct tcase report_cases[] = {T(report_roundtrip)};
const struct suite report_suite = {"report", report_cases, N(report_cases)};
