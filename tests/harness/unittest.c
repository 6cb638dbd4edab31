/*
 * harness-unittest: unit tests of the harness's own parsers and builders
 * (scenario scripts, profiles, KTAP, QEMU argv, console matching, report
 * format).  It prints KTAP, so tests/scenarios/harness-unit.scn runs it
 * with `host-ktap` and every case becomes a TAP point.  Exit status is 1
 * if any case failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness/console.h"
#include "tests/harness/ktap.h"
#include "tests/harness/profile.h"
#include "tests/harness/qemu.h"
#include "tests/harness/report.h"
#include "tests/harness/script.h"

static char failure[512];

/* On failure, remember the first broken check and leave the test. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			if (failure[0] == '\0')                                \
				snprintf(failure, sizeof(failure),             \
				         "%s:%d: %s", __FILE__, __LINE__,      \
				         #cond);                               \
			return;                                                \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)        CHECK(strcmp((a), (b)) == 0)
#define CHECK_HAS(hay, needle) CHECK(strstr((hay), (needle)) != NULL)

struct tcase {
	const char *name;
	void (*fn)(void);
};

/* ---- script ------------------------------------------------------------ */

static struct script *
parse(const char *text, char *err)
{
	err[0] = '\0';
	return script_parse("t.scn", text, err, 512);
}

static void
script_every_directive(void)
{
	char err[512];
	struct script *s = parse("# a comment\n"
	                         "profiles default smp4\n"
	                         "cmdline ktest=all refmode=wait\n"
	                         "modules a.ko b.ko\n"
	                         "limit 100\n"
	                         "hostfwd udp 7\n"
	                         "prompt\n"
	                         "send ping -c 1 ${PORT0}\n"
	                         "sendraw \"\\x01a\\r\"\n"
	                         "ctrl-c\n"
	                         "timeout 5\n"
	                         "expect ^pong [0-9]+$\n"
	                         "expect -t 2 # Subtest\n"
	                         "reject BUG:\n"
	                         "ktap alloc\n"
	                         "sleep 1\n"
	                         "host true\n"
	                         "host-ktap -t 60 build/host/harness-unittest\n"
	                         "exit 5\n",
	                         err);

	CHECK(s != NULL);
	CHECK(s->nprofiles == 2);
	CHECK_STR(s->profiles[1], "smp4");
	CHECK_STR(s->cmdline, "ktest=all refmode=wait");
	CHECK(s->nmodules == 2);
	CHECK_STR(s->modules[1], "b.ko");
	CHECK(s->limit_ms == 100000);
	CHECK(s->nfwd == 1 && s->fwd[0].proto == FWD_UDP &&
	      s->fwd[0].guest_port == 7);
	CHECK(s->needs_qemu);
	CHECK(s->nd == 12);
	CHECK(s->d[0].op == OP_PROMPT && s->d[0].timeout_ms == 30000);
	CHECK(s->d[1].op == OP_SEND);
	CHECK_STR(s->d[1].text, "ping -c 1 ${PORT0}");
	CHECK(s->d[2].op == OP_SENDRAW && s->d[2].textlen == 3);
	CHECK(memcmp(s->d[2].text,
	             "\x01"
	             "a\r",
	             3) == 0);
	CHECK(s->d[3].op == OP_CTRLC);
	CHECK(s->d[4].op == OP_EXPECT && s->d[4].timeout_ms == 5000);
	CHECK_STR(s->d[5].text, "# Subtest");
	CHECK(s->d[5].timeout_ms == 2000);
	CHECK(s->d[6].op == OP_REJECT);
	CHECK(s->d[7].op == OP_KTAP);
	CHECK_STR(s->d[7].text, "alloc");
	CHECK(s->d[8].op == OP_SLEEP && s->d[8].timeout_ms == 1000);
	CHECK(s->d[10].op == OP_HOST_KTAP && s->d[10].timeout_ms == 60000);
	CHECK(s->d[11].op == OP_EXIT && s->d[11].status == 11);
	script_free(s);
}

static void
script_defaults(void)
{
	char err[512];
	struct script *s = parse("host true\n", err);

	CHECK(s != NULL);
	CHECK(s->nprofiles == 1);
	CHECK_STR(s->profiles[0], "default");
	CHECK(!s->needs_qemu);
	CHECK(s->limit_ms == DEFAULT_LIMIT_S * 1000);
	CHECK(s->d[0].timeout_ms == DEFAULT_TIMEOUT_S * 1000);
	script_free(s);
}

static void
script_exit_names(void)
{
	static const struct {
		const char *arg;
		int status;
	} t[] = {{"success", 33}, {"failure", 35}, {"panic", 37},
	         {"reset", 0},    {"0x10", 33},    {"status 1", 1}};
	char err[512], text[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct script *s;

		snprintf(text, sizeof(text), "exit %s\n", t[i].arg);
		s = parse(text, err);
		CHECK(s != NULL);
		CHECK(s->d[0].status == t[i].status);
		CHECK(s->expects_panic == (t[i].status == 37));
		script_free(s);
	}
}

/* Every error names the file and line, and says what is wrong. */
static void
script_errors(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} t[] = {
	    {"prompt\nsnd x\n", "t.scn:2: unknown directive 'snd'"},
	    {"expect (\n", "t.scn:1: expect: bad regex '('"},
	    {"expect\n", "t.scn:1: expect: missing argument"},
	    {"timeout 0\n", "t.scn:1: timeout: '0' is not a number"},
	    {"expect -t x y\n", "t.scn:1: expect: 'x' is not a number"},
	    {"sendraw \"\\q\"\n", "t.scn:1: sendraw: unknown escape"},
	    {"sendraw \"\\x4\"\n", "t.scn:1: sendraw: \\x needs two hex"},
	    {"sendraw abc\n", "t.scn:1: sendraw: expected one \"quoted\""},
	    {"exit maybe\n", "t.scn:1: exit: expected success|failure"},
	    {"send ${FOO}\n", "t.scn:1: send: unknown variable '${FOO}'"},
	    {"host nc ${PORT0}\nhostfwd udp 7\n",
	     "t.scn:1: host: unknown variable '${PORT0}'"},
	    {"hostfwd icmp 7\n", "t.scn:1: hostfwd: expected 'udp|tcp"},
	    {"profiles a a\n", "t.scn:1: profiles: 'a' listed twice"},
	    {"profiles ../x\n", "t.scn:1: profiles: bad profile name"},
	    {"prompt now\n", "t.scn:1: prompt takes no argument"},
	    {"cmdline a\ncmdline b\n", "t.scn:2: cmdline given twice"},
	    {"modules a.ko,b.ko\n", "t.scn:1: modules: 'a.ko,b.ko'"},
	    {"ktap a b\n", "t.scn:1: ktap: at most one suite name"},
	    {"# only a comment\n\n", "t.scn:1: scenario has no directive"},
	    {"send ${PROFILE\n", "t.scn:1: send: unterminated '${'"},
	};
	char err[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct script *s = parse(t[i].text, err);

		if (s != NULL || strstr(err, t[i].msg) != err) {
			snprintf(failure, sizeof(failure),
			         "case %zu: want '%s', got '%s'", i, t[i].msg,
			         s ? "(parsed)" : err);
			script_free(s);
			return;
		}
		/* One line, so it fits in a TAP reason. */
		CHECK(strchr(err, '\n') == NULL);
	}
}

static const char *
lookup(const char *name, void *ctx)
{
	(void)ctx;
	return strcmp(name, "PORT0") == 0 ? "4242" : NULL;
}

static void
script_expand(void)
{
	char err[128];
	char *s = expand_vars("nc -u 127.0.0.1 ${PORT0} $HOME", lookup, NULL,
	                      err, sizeof(err));

	CHECK(s != NULL);
	CHECK_STR(s, "nc -u 127.0.0.1 4242 $HOME");
	free(s);
	CHECK(expand_vars("${NOPE}", lookup, NULL, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "NOPE");
}

/* ---- profiles ---------------------------------------------------------- */

static void
profile_parses(void)
{
	struct profile p;
	char err[256];

	profile_defaults(&p, "t");
	CHECK(profile_parse(&p, "t.profile",
	                    "# c\nsmp 4 # four\nmem 1G\nnic virtio\n"
	                    "boot iso\nnet none\n",
	                    err, sizeof(err)) == 0);
	CHECK(p.smp == 4);
	CHECK_STR(p.mem, "1G");
	CHECK(p.nic == NIC_VIRTIO && p.boot == BOOT_ISO && p.net == NET_NONE);
}

static void
profile_errors(void)
{
	static const struct {
		const char *text, *msg;
	} t[] = {
	    {"smpp 2\n", "t.profile:1: unknown key 'smpp'"},
	    {"\nsmp 9\n", "t.profile:2: smp: '9' is not 1..8"},
	    {"nic rtl8139\n", "t.profile:1: nic: 'rtl8139' is not"},
	    {"mem lots\n", "t.profile:1: mem: 'lots' is not a size"},
	    {"boot floppy\n", "t.profile:1: boot: 'floppy'"},
	    {"net tap\n", "t.profile:1: net: 'tap' is not user|none"},
	    {"smp\n", "t.profile:1: 'smp' needs one value"},
	    {"smp 1 2\n", "t.profile:1: 'smp' needs one value"},
	};
	struct profile p;
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		profile_defaults(&p, "t");
		CHECK(profile_parse(&p, "t.profile", t[i].text, err,
		                    sizeof(err)) < 0);
		if (strstr(err, t[i].msg) != err) {
			snprintf(failure, sizeof(failure),
			         "want '%s', got '%s'", t[i].msg, err);
			return;
		}
	}
}

/* The profiles shipped in qemu/ must all load and say what they claim. */
static void
profile_shipped(void)
{
	static const struct {
		const char *name;
		int smp;
		enum nic_kind nic;
		enum boot_kind boot;
	} t[] = {{"default", 2, NIC_BOTH, BOOT_DIRECT},
	         {"smp1", 1, NIC_NONE, BOOT_DIRECT},
	         {"smp2", 2, NIC_NONE, BOOT_DIRECT},
	         {"smp4", 4, NIC_NONE, BOOT_DIRECT},
	         {"smp8", 8, NIC_NONE, BOOT_DIRECT},
	         {"iso", 2, NIC_BOTH, BOOT_ISO},
	         {"nonet", 2, NIC_NONE, BOOT_DIRECT}};
	struct profile p;
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (profile_load(&p, "qemu", t[i].name, err, sizeof(err)) < 0) {
			snprintf(failure, sizeof(failure), "%s", err);
			return;
		}
		CHECK_STR(p.name, t[i].name);
		CHECK(p.smp == t[i].smp && p.nic == t[i].nic &&
		      p.boot == t[i].boot);
	}
	CHECK(profile_load(&p, "qemu", "no-such", err, sizeof(err)) < 0);
	CHECK_HAS(err, "qemu/no-such.profile");
}

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
	struct hostfwd fwd = {FWD_UDP, 7};
	int port = 40000;

	profile_defaults(&p, "t");
	q.fwd = &fwd;
	q.fwd_host_port = &port;
	q.nfwd = 1;
	q.pcap_prefix = "build/test-logs/x";
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -netdev user,id=n0,hostfwd=udp:127.0.0.1:40000-:7 "
	             "-object filter-dump,id=f0,netdev=n0,"
	             "file=build/test-logs/x-n0.pcap -device e1000,netdev=n0 "
	             "-netdev user,id=n1 -object ");
	CHECK_HAS(s, " -device virtio-net-pci,netdev=n1 ");
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
	struct qemu_config q = {.interactive = true, .gdb_port = 1234};

	profile_defaults(&p, "t");
	s = build(&q, &p, err);
	CHECK(s != NULL);
	CHECK_HAS(s, " -serial mon:stdio -S -gdb tcp::1234");
	CHECK(strstr(s, "-monitor none") == NULL);
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

/* ---- ktap ---------------------------------------------------------------- */

static bool
feed_all(struct ktap *k, const char *const *lines, int n)
{
	bool done = false;

	for (int i = 0; i < n; i++) {
		if (done)
			return false; /* must not be done before the end */
		done = ktap_feed(k, lines[i]);
	}
	return done;
}

static const struct ktap_case *
find(const struct ktap *k, const char *name)
{
	for (int i = 0; i < k->ncases; i++)
		if (strcmp(k->cases[i].name, name) == 0)
			return &k->cases[i];
	return NULL;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The document from the harness brief, with the console's noise. */
static void
ktap_example(void)
{
	static const char *const doc[] = {
	    "modref> ktest",
	    "KTAP version 1",
	    "1..2",
	    "    KTAP version 1",
	    "    # Subtest: alloc",
	    "    1..3",
	    "    ok 1 alloc_one_page",
	    "[    0.100000] page_alloc: 12 pages",
	    "    not ok 2 alloc_many",
	    "    # alloc_many: kernel/ktest/alloc.c:42: expected 3 == 4",
	    "    ok 3 free_twice # SKIP reason",
	    "ok 1 alloc",
	    "    KTAP version 1",
	    "    # Subtest: list",
	    "    1..1",
	    "    ok 1 list_add",
	    "ok 2 list",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 4);
	CHECK((c = find(&k, "alloc.alloc_one_page")) && c->status == KTAP_PASS);
	CHECK((c = find(&k, "alloc.alloc_many")) && c->status == KTAP_FAIL);
	CHECK_HAS(c->reason, "alloc.c:42: expected 3 == 4");
	CHECK((c = find(&k, "alloc.free_twice")) && c->status == KTAP_SKIP);
	CHECK_STR(c->reason, "reason");
	CHECK((c = find(&k, "list.list_add")) && c->status == KTAP_PASS);
	CHECK(ktap_has_suite(&k, "alloc") && ktap_has_suite(&k, "list"));
	CHECK(!ktap_has_suite(&k, "net"));
	ktap_free(&k);
}

/* A test announced by the plan but never reported is a crash. */
static void
ktap_crashed(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",     "    KTAP version 1",
	    "    # Subtest: mod", "    1..3", "    ok 1 load",
	    "    ok 2 unload",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(!feed_all(&k, doc, N(doc)));
	ktap_finish(&k, "prompt returned");
	CHECK(k.done);
	CHECK(k.ncases == 3);
	CHECK((c = find(&k, "mod.#3")) != NULL);
	CHECK(c->status == KTAP_FAIL);
	CHECK_STR(c->reason, "crashed: no result line (prompt returned)");
	CHECK(ktap_count(&k, KTAP_PASS) == 2);
	ktap_free(&k);
}

/* A whole suite that never started is one crashed case. */
static void
ktap_truncated_top(void)
{
	static const char *const doc[] = {
	    "KTAP version 1", "1..2",       "    KTAP version 1",
	    "    1..1",       "    ok 1 a", "ok 1 first",
	};
	struct ktap k;

	ktap_init(&k);
	CHECK(!feed_all(&k, doc, N(doc)));
	ktap_finish(&k, "QEMU exited");
	CHECK(k.ncases == 2);
	CHECK(find(&k, "first.a") != NULL);
	CHECK(find(&k, "#2") != NULL && find(&k, "#2")->status == KTAP_FAIL);
	ktap_free(&k);
}

/* KUnit prints failure diagnostics before the result line. */
static void
ktap_diag_before(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",
	    "    KTAP version 1", "    # Subtest: s",
	    "    1..1",           "    # t: EXPECTATION FAILED at x.c:9",
	    "    not ok 1 t",     "not ok 1 s",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 1);
	CHECK((c = find(&k, "s.t")) != NULL);
	CHECK_HAS(c->reason, "EXPECTATION FAILED at x.c:9");
	ktap_free(&k);
}

/* A suite that fails with every case passing (init failed) still fails. */
static void
ktap_suite_only_failure(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",
	    "1..1",
	    "    KTAP version 1",
	    "    1..0",
	    "    # s: init failed: ENOMEM",
	    "not ok 1 s",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK((c = find(&k, "s.(suite)")) != NULL);
	CHECK(c->status == KTAP_FAIL);
	CHECK_HAS(c->reason, "ENOMEM");
	ktap_free(&k);
}

/* Parameterised tests: three levels, no "# Subtest" lines (older KUnit). */
static void
ktap_three_levels(void)
{
	static const char *const doc[] = {
	    "KTAP version 1",     "1..1",
	    "    1..1",           "        1..2",
	    "        ok 1 p0",    "        not ok 2 p1",
	    "    not ok 1 param", "not ok 1 outer",
	};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(k.ncases == 2);
	CHECK((c = find(&k, "outer.param.p1")) && c->status == KTAP_FAIL);
	CHECK((c = find(&k, "outer.param.p0")) && c->status == KTAP_PASS);
	ktap_free(&k);
}

/* Flat documents (host programs) name cases without a suite. */
static void
ktap_flat(void)
{
	static const char *const doc[] = {"TAP version 14", "1..3", "ok 1 a",
	                                  "not ok 2 - b # TODO later", "ok 3"};
	struct ktap k;
	const struct ktap_case *c;

	ktap_init(&k);
	CHECK(feed_all(&k, doc, N(doc)));
	CHECK(find(&k, "a") != NULL);
	CHECK((c = find(&k, "b")) && c->status == KTAP_FAIL);
	CHECK(find(&k, "#3") != NULL);
	ktap_free(&k);
}

/* Without a header nothing counts, and no plan at all is not a pass. */
static void
ktap_needs_header(void)
{
	struct ktap k;

	ktap_init(&k);
	CHECK(!ktap_feed(&k, "ok 1 looks_like_tap"));
	CHECK(!k.started && k.ncases == 0);
	CHECK(!ktap_feed(&k, "KTAP version 1"));
	ktap_finish(&k, "timeout");
	CHECK(k.ncases == 1 && k.cases[0].status == KTAP_FAIL);
	ktap_free(&k);
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
	regex_t prompt, hello, anchored;
	int p[2];
	char *line;

	CHECK(pipe(p) == 0);
	console_init(&c, -1, p[0], NULL);
	regcomp(&prompt, PROMPT, REG_EXTENDED);
	regcomp(&hello, "hello", REG_EXTENDED);
	regcomp(&anchored, "^world$", REG_EXTENDED);
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
	close(p[1]);
	CHECK(console_read(&c, 100) == -1);
	regfree(&prompt);
	regfree(&hello);
	regfree(&anchored);
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

/* ---- runner ----------------------------------------------------------------
 */

#define T(f)                                                                   \
	{                                                                      \
#f, f                                                          \
	}

static const struct tcase script_cases[] = {
    T(script_every_directive), T(script_defaults), T(script_exit_names),
    T(script_errors), T(script_expand)};
static const struct tcase profile_cases[] = {
    T(profile_parses), T(profile_errors), T(profile_shipped)};
static const struct tcase qemu_cases[] = {T(qemu_direct), T(qemu_iso),
                                          T(qemu_nics), T(qemu_interactive),
                                          T(qemu_statuses)};
static const struct tcase ktap_cases[] = {T(ktap_example),
                                          T(ktap_crashed),
                                          T(ktap_truncated_top),
                                          T(ktap_diag_before),
                                          T(ktap_suite_only_failure),
                                          T(ktap_three_levels),
                                          T(ktap_flat),
                                          T(ktap_needs_header)};
static const struct tcase console_cases[] = {T(console_matching),
                                             T(console_panic_and_reject),
                                             T(console_resumed_search)};
static const struct tcase report_cases[] = {T(report_roundtrip)};

static const struct {
	const char *name;
	const struct tcase *cases;
	int n;
} suites[] = {
    {"script", script_cases, N(script_cases)},
    {"profile", profile_cases, N(profile_cases)},
    {"qemu", qemu_cases, N(qemu_cases)},
    {"ktap", ktap_cases, N(ktap_cases)},
    {"console", console_cases, N(console_cases)},
    {"report", report_cases, N(report_cases)},
};

int
main(void)
{
	int bad_suites = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", N(suites));
	for (int s = 0; s < N(suites); s++) {
		int bad = 0;

		printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n",
		       suites[s].name, suites[s].n);
		for (int i = 0; i < suites[s].n; i++) {
			const char *name = suites[s].cases[i].name +
			                   strlen(suites[s].name) + 1;

			failure[0] = '\0';
			suites[s].cases[i].fn();
			if (failure[0] == '\0') {
				printf("    ok %d %s\n", i + 1, name);
				continue;
			}
			bad++;
			printf("    not ok %d %s\n    # %s: %s\n", i + 1, name,
			       name, failure);
		}
		printf("%s %d %s\n", bad ? "not ok" : "ok", s + 1,
		       suites[s].name);
		bad_suites += bad > 0;
	}
	return bad_suites ? 1 : 0;
}
