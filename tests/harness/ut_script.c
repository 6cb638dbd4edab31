/*
 * Unit tests: scenario script and profile parsing.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/harness/profile.h"
#include "tests/harness/script.h"
#include "tests/harness/stamp.h"

#include "tests/harness/unittest.h"

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
	                         "tftp build/modules\n"
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
	                         "poll -t 9 ss => ^0 sockets$\n"
	                         "exit 5\n"
	                         "stamp -t 4 t0 ^up ([0-9.]+) s\n"
	                         "stamp t_1 ^up ([0-9.]+) s\n"
	                         "elapsed t0 t_1 0.5%\n",
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
	CHECK_STR(s->tftp_dir, "build/modules");
	CHECK(s->needs_qemu);
	CHECK(s->nd == 16);
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
	CHECK(s->d[11].op == OP_POLL && s->d[11].timeout_ms == 9000);
	CHECK_STR(s->d[11].text, "ss");
	CHECK_STR(s->d[11].aux, "^0 sockets$");
	CHECK(s->d[12].op == OP_EXIT && s->d[12].status == 11);
	CHECK(s->d[13].op == OP_STAMP && s->d[13].timeout_ms == 4000);
	CHECK_STR(s->d[13].aux, "t0");
	CHECK_STR(s->d[13].text, "^up ([0-9.]+) s");
	CHECK(s->d[14].op == OP_STAMP && s->d[14].timeout_ms == 5000);
	CHECK(s->d[15].op == OP_ELAPSED && s->d[15].stamp[0] == 13 &&
	      s->d[15].stamp[1] == 14 && s->d[15].pct == 0.5);
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

/* peer, ${VAR} in regexes and audit-allow (the tap backend, the audit). */
static void
script_tap(void)
{
	char err[512];
	struct script *s =
	    parse("profiles tap\n"
	          "audit-allow tcp.analysis.out_of_order known, issue 13\n"
	          "peer -t 5 ping -c 1 ${PEER}\n"
	          "expect ^${GUEST} ok$\n"
	          "poll ss => ^tcp +${GUEST1}:7\n"
	          "expect ^plain$\n",
	          err);

	CHECK(s != NULL);
	CHECK(s->needs_qemu);
	CHECK(s->nallow == 1);
	CHECK_STR(s->allow_field[0], "tcp.analysis.out_of_order");
	CHECK_STR(s->allow_reason[0], "known, issue 13");
	CHECK(s->nd == 4);
	CHECK(s->d[0].op == OP_PEER && s->d[0].timeout_ms == 5000);
	CHECK_STR(s->d[0].text, "ping -c 1 ${PEER}");
	CHECK(s->d[1].re_vars && s->d[2].re_vars && !s->d[3].re_vars);
	CHECK_STR(s->d[1].text, "^${GUEST} ok$");
	CHECK_STR(s->d[2].aux, "^tcp +${GUEST1}:7");
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
	    {"hostfwd udp 7 third\n", "t.scn:1: hostfwd: expected 'udp|tcp"},
	    {"tftp a,b\n", "t.scn:1: tftp: expected one directory"},
	    {"poll ss\n", "t.scn:1: poll: expected 'COMMAND => REGEX'"},
	    {"poll  => x\n", "t.scn:1: poll: no command before '=>'"},
	    {"poll ss => (\n", "t.scn:1: poll: bad regex '('"},
	    {"tftp a\ntftp b\n", "t.scn:2: tftp given twice"},
	    {"tftp\n", "t.scn:1: tftp: missing argument"},
	    {"profiles a a\n", "t.scn:1: profiles: 'a' listed twice"},
	    {"profiles ../x\n", "t.scn:1: profiles: bad profile name"},
	    {"prompt now\n", "t.scn:1: prompt takes no argument"},
	    {"cmdline a\ncmdline b\n", "t.scn:2: cmdline given twice"},
	    {"modules a.ko,b.ko\n", "t.scn:1: modules: 'a.ko,b.ko'"},
	    {"ktap a b\n", "t.scn:1: ktap: at most one suite name"},
	    {"# only a comment\n\n", "t.scn:1: scenario has no directive"},
	    {"send ${PROFILE\n", "t.scn:1: send: unterminated '${'"},
	    {"stamp a ^up [0-9]+\n",
	     "t.scn:1: stamp: the regex needs a (group)"},
	    {"stamp a\n", "t.scn:1: stamp: missing argument"},
	    {"stamp\n", "t.scn:1: stamp: expected 'NAME REGEX'"},
	    {"stamp a/b (x)\n", "t.scn:1: stamp: bad name 'a/b'"},
	    {"stamp a (x)\nstamp a (y)\n", "t.scn:2: stamp: 'a' used twice"},
	    {"stamp a (x\n", "t.scn:1: stamp: bad regex '(x'"},
	    {"stamp a (x)\nelapsed a b 1%\nstamp b (y)\n",
	     "t.scn:2: elapsed: no stamp 'b' before this line"},
	    {"stamp a (x)\nelapsed a a 1%\n",
	     "t.scn:2: elapsed: needs two different stamps"},
	    {"stamp a (x)\nstamp b (y)\nelapsed a b\n",
	     "t.scn:3: elapsed: expected 'STAMP1 STAMP2 PERCENT%'"},
	    {"stamp a (x)\nstamp b (y)\nelapsed a b 1% more\n",
	     "t.scn:3: elapsed: expected 'STAMP1 STAMP2 PERCENT%'"},
	    {"stamp a (x)\nstamp b (y)\nelapsed a b 0%\n",
	     "t.scn:3: elapsed: '0%' is not a percentage"},
	    {"stamp a (x)\nstamp b (y)\nelapsed a b 1%%\n",
	     "t.scn:3: elapsed: '1%%' is not a percentage"},
	    {"stamp a (x)\nstamp b (y)\nelapsed a b 101\n",
	     "t.scn:3: elapsed: '101' is not a percentage"},
	    {"audit-allow tcp.bogus why\n",
	     "t.scn:1: audit-allow: 'tcp.bogus' is not a field"},
	    {"audit-allow _ws.malformed\n",
	     "t.scn:1: audit-allow: _ws.malformed needs a reason"},
	    {"expect ^${NOPE}$\n", "t.scn:1: expect: unknown variable"},
	    {"expect ^${GUEST}(\n", "t.scn:1: expect: bad regex"},
	    {"reject ${GUEST}\n", "t.scn:1: reject: ${VAR} is not expanded"},
	};
	char err[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct script *s = parse(t[i].text, err);

		if (s != NULL || strstr(err, t[i].msg) != err) {
			snprintf(ut_failure, sizeof(ut_failure),
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
	                    "boot iso\nnet none\nsubnet1 10.0.3.0/24\n",
	                    err, sizeof(err)) == 0);
	CHECK(p.smp == 4);
	CHECK_STR(p.subnet[0], "");
	CHECK_STR(p.subnet[1], "10.0.3.0/24");
	CHECK_STR(p.mem, "1G");
	CHECK(p.nic == NIC_VIRTIO && p.boot == BOOT_ISO && p.net == NET_NONE);
	CHECK(p.rr[0] == '\0');
	profile_defaults(&p, "t");
	CHECK(profile_parse(&p, "t.profile",
	                    "smp 1\nrr replay\nrrfile build/replay/x.rr\n", err,
	                    sizeof(err)) == 0);
	CHECK_STR(p.rr, "replay");
	CHECK_STR(p.rrfile, "build/replay/x.rr");
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
	    {"net slirp\n",
	     "t.profile:1: net: 'slirp' is not user|none|dgram|tap"},
	    {"smp\n", "t.profile:1: 'smp' needs one value"},
	    {"smp 1 2\n", "t.profile:1: 'smp' needs one value"},
	    {"subnet1 10.0.3/24\n", "t.profile:1: subnet1: '10.0.3/24' is not"},
	    {"subnet0 10.0.3.0/31\n", "t.profile:1: subnet0: '10.0.3.0/31'"},
	    {"subnet2 10.0.3.0/24\n", "t.profile:1: unknown key 'subnet2'"},
	    {"rr rewind\n", "t.profile:1: rr: 'rewind' is not record|replay"},
	    {"smp 1\nrr record\n", "t.profile: rr and rrfile go together"},
	    {"rrfile a,b\n", "t.profile:1: rrfile: 'a,b' is empty"},
	    {"smp 2\nrr record\nrrfile x\n", "t.profile: rr needs smp 1"},
	};
	struct profile p;
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		profile_defaults(&p, "t");
		CHECK(profile_parse(&p, "t.profile", t[i].text, err,
		                    sizeof(err)) < 0);
		if (strstr(err, t[i].msg) != err) {
			snprintf(ut_failure, sizeof(ut_failure),
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
	         {"nonet", 2, NIC_NONE, BOOT_DIRECT},
	         {"samenet", 2, NIC_BOTH, BOOT_DIRECT}};
	struct profile p;
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (profile_load(&p, "qemu", t[i].name, err, sizeof(err)) < 0) {
			snprintf(ut_failure, sizeof(ut_failure), "%s", err);
			return;
		}
		CHECK_STR(p.name, t[i].name);
		CHECK(p.smp == t[i].smp && p.nic == t[i].nic &&
		      p.boot == t[i].boot);
	}
	/* make run's machine gives each NIC a network of its own, so
	 * `dhcp eth1` gets a lease beside eth0's; samenet shares one */
	CHECK(profile_load(&p, "qemu", "default", err, sizeof(err)) == 0);
	CHECK_STR(p.subnet[0], "");
	CHECK_STR(p.subnet[1], "10.0.3.0/24");
	CHECK(profile_load(&p, "qemu", "samenet", err, sizeof(err)) == 0);
	CHECK_STR(p.subnet[1], "");
	CHECK(profile_load(&p, "qemu", "no-such", err, sizeof(err)) < 0);
	CHECK_HAS(err, "qemu/no-such.profile");
}

/* elapsed passes within the tolerance either way, fails outside it, and
 * fails when no host time passed at all. */
static void
stamp_ratio(void)
{
	struct stamp a = {true, 1000, 1.0}, b = {true, 11000, 11.05};
	char msg[256];

	CHECK(stamp_compare(&a, &b, 1, msg, sizeof(msg)) == 0);
	CHECK_HAS(msg, "guest 10.050 s, host 10.000 s: ratio 1.0050");
	b.guest_s = 10.95;
	CHECK(stamp_compare(&a, &b, 1, msg, sizeof(msg)) == 0);
	b.guest_s = 10.85; /* 0.985: what a clock that loses ticks does */
	CHECK(stamp_compare(&a, &b, 1, msg, sizeof(msg)) < 0);
	CHECK_HAS(msg, "ratio 0.9850 (allowed 1 +- 1%)");
	b.guest_s = 11.2;
	CHECK(stamp_compare(&a, &b, 1, msg, sizeof(msg)) < 0);
	b.host_ms = a.host_ms;
	CHECK(stamp_compare(&a, &b, 100, msg, sizeof(msg)) < 0);
	CHECK_HAS(msg, "no host time passed");
}

static const struct tcase script_cases[] = {T(script_every_directive),
                                            T(script_defaults),
                                            T(script_exit_names),
                                            T(script_errors),
                                            T(script_expand),
                                            T(stamp_ratio),
                                            T(script_tap)};
const struct suite script_suite = {"script", script_cases, N(script_cases)};

static const struct tcase profile_cases[] = {
    T(profile_parses), T(profile_errors), T(profile_shipped)};
const struct suite profile_suite = {"profile", profile_cases, N(profile_cases)};
