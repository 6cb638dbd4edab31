/*
 * modelcheck: run SPIN over model/unload.pml for every refmode and race,
 * check that each property holds or fails exactly as expected, and turn
 * counterexample trails into readable console steps and scenarios.
 *
 *   modelcheck [--verify] [--write-expected] [--spin PATH]
 *
 * Run from the repository root.  Work files (pan.c, pan, trails, the
 * readable steps, the generated scenarios) go to build/model/NAME/.
 * Output is KTAP (one suite per group, one case per check), so the
 * harness's host-ktap turns every check into a TAP point.
 *
 * --verify          larger bounds (make verify)
 * --write-expected  write tests/scenarios/model-*.scn from the trail
 *                   instead of comparing with them
 *
 * docs/model.md describes the model, the checks and their bounds.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/lib/ktap.h"

#define MODEL   "model/unload.pml"
#define WORK    "build/model"
#define MAXEV   256
#define EVLEN   32
#define CMDLEN  1024
#define OUTSIZE (1 << 20)
#define HOLD_MS 4000 /* devhold's time in the replay scenarios */

static bool verify, write_expected;
static const char *spin = "spin";
static char model_path[PATH_MAX];

/* One SPIN run: a configuration of the model and what must come out. */
struct check {
	const char *name;
	int refmode; /* 0 wait, 1 owner, 2 pinned, 3 legacy */
	int modref;  /* 0 percpu, 1 atomic */
	int fixed;
	int scen;
	const char *defs;        /* more -D for make test */
	const char *verify_defs; /* instead, for make verify */
	const char *expect;      /* the property violated, or NULL */
	bool replay;             /* write the console replay scenarios */
};

static const char *const refmodes[] = {"wait", "owner", "pinned", "legacy"};

/* Assertion flag in the model -> property name. */
static const struct {
	const char *flag, *name, *what;
} props[] = {
    {"uaf", "no-use-after-unload",
     "no module code or data is used after the module is GONE"},
    {"dev_uaf", "no-device-freed-in-use",
     "no device is used or freed while listed, referenced or freed"},
    {"double_teardown", "one-teardown", "a module is torn down once"},
    {"nowait_waited", "nowait-never-waits", "rmmod -n never waits"},
    {"ctrlc_broken", "ctrlc-restores",
     "Ctrl-C returns the module and its devices to a working state"},
    {"leak", "no-leak", "no reference is leaked or dropped twice"},
    {"reset_lost", "rst-before-unload",
     "tcp.ko never destroys a connection without a RST"},
    {"deadlock", "rmmod-ends",
     "every process ends (rmmod returns) once the holders let go"},
};
#define NPROPS (sizeof(props) / sizeof(props[0]))

struct result {
	long states, transitions;
	int errors;
	int depth;
	char flag[EVLEN]; /* the violated property's flag */
};

struct event {
	char proc[EVLEN];
	int pid;
	char ev[EVLEN];
};

struct trail {
	struct event ev[MAXEV];
	int n;
	char failed[EVLEN];
};

/* ---- running things ---------------------------------------------------- */

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (f == NULL)
		return NULL;
	buf = malloc(OUTSIZE + 1);
	if (buf == NULL) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, OUTSIZE, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Runs "cd DIR && CMD > DIR/OUT 2>&1"; 0 if it exited 0. */
static int
run_in(const char *dir, const char *out, const char *fmt, ...)
{
	char cmd[CMDLEN], full[2 * CMDLEN];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= sizeof(cmd))
		return -1;
	r = snprintf(full, sizeof(full), "cd '%s' && %s > '%s' 2>&1", dir, cmd,
	             out);
	if (r < 0 || (size_t)r >= sizeof(full))
		return -1;
	r = system(full);
	return r == 0 ? 0 : -1;
}

static void
defines(const struct check *c, char *buf, size_t size)
{
	const char *more = verify ? c->verify_defs : c->defs;

	snprintf(buf, size, "-DREFMODE=%d -DMODREF=%d -DFIXED=%d -DSCEN=%d %s",
	         c->refmode, c->modref, c->fixed, c->scen,
	         more != NULL ? more : "");
}

static int
mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static const char *
field_after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p != NULL ? p + strlen(key) : NULL;
}

/* Reads pan's report. */
static void
parse_pan(const char *out, struct result *r)
{
	const char *p;

	memset(r, 0, sizeof(*r));
	r->errors = -1;
	if ((p = field_after(out, "errors: ")) != NULL)
		r->errors = atoi(p);
	if ((p = field_after(out, "depth reached ")) != NULL)
		r->depth = atoi(p);
	/* "   772286 states, stored" */
	if ((p = strstr(out, " states, stored")) != NULL) {
		while (p > out && p[-1] >= '0' && p[-1] <= '9')
			p--;
		r->states = atol(p);
	}
	if ((p = strstr(out, " transitions (= stored+matched)")) != NULL) {
		while (p > out && p[-1] >= '0' && p[-1] <= '9')
			p--;
		r->transitions = atol(p);
	}
	if ((p = field_after(out, "assertion violated  !(")) != NULL) {
		size_t n = strcspn(p, ")");
		if (n >= sizeof(r->flag))
			n = sizeof(r->flag) - 1;
		memcpy(r->flag, p, n);
		r->flag[n] = '\0';
	} else if (strstr(out, "invalid end state") != NULL && r->errors > 0) {
		strcpy(r->flag, "deadlock");
	}
}

static const char *
prop_name(const char *flag)
{
	for (size_t i = 0; i < NPROPS; i++)
		if (strcmp(props[i].flag, flag) == 0)
			return props[i].name;
	return flag;
}

static const char *
prop_what(const char *flag)
{
	for (size_t i = 0; i < NPROPS; i++)
		if (strcmp(props[i].flag, flag) == 0)
			return props[i].what;
	return "?";
}

/* ---- trails ------------------------------------------------------------ */

/* spin -t -p lines: "  22:\tproc  1 (console:1) unload.pml:798 (state 80)
 * \t[printf('EV devhold\\n')]"; the failed assertion:
 * "spin: text of failed assertion: assert(!(uaf))". */
static void
parse_trail(const char *out, struct trail *t)
{
	const char *line = out;

	memset(t, 0, sizeof(*t));
	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		const char *p, *q;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl != NULL ? nl + 1 : NULL;

		if ((p = strstr(buf, "[printf('EV ")) != NULL &&
		    (q = strstr(buf, "proc ")) != NULL && t->n < MAXEV) {
			struct event *e = &t->ev[t->n];
			char name[EVLEN], ev[EVLEN];
			int pid;

			if (sscanf(q, "proc %d (%31[^:]", &pid, name) != 2 ||
			    sscanf(p + strlen("[printf('EV "), "%31[a-z_]",
			           ev) != 1)
				continue;
			e->pid = pid;
			snprintf(e->proc, sizeof(e->proc), "%s", name);
			snprintf(e->ev, sizeof(e->ev), "%s", ev);
			t->n++;
		} else if ((p = strstr(buf, "failed assertion: assert(!(")) !=
		           NULL) {
			p += strlen("failed assertion: assert(!(");
			snprintf(t->failed, sizeof(t->failed), "%.*s",
			         (int)strcspn(p, ")"), p);
		}
	}
}

/* What a person sees or types for each event of the model. */
static const struct {
	const char *ev, *text;
} steps[] = {
    {"devhold", "modref> devhold eth0 4000      # a holder takes eth0 for 4 s"},
    {"devhold_enodev", "modref> devhold eth0 4000      # ENODEV: no eth0"},
    {"renewed", "[devhold -r] renews its reference (try_dev_hold)"},
    {"renew_refused", "[devhold -r] try_dev_hold refused, letting go"},
    {"rmmod", "modref> rmmod e1000"},
    {"rmmod_n", "modref> rmmod -n e1000"},
    {"ctrlc", "^C                              # Ctrl-C while rmmod waits"},
    {"rmmod_waiting", "rmmod: e1000: waiting N s: ... (Ctrl-C aborts)"},
    {"eintr", "rmmod: e1000: EINTR: unload abandoned, module is LIVE again"},
    {"ebusy", "rmmod: e1000: EBUSY: refcount ... (the module stays LIVE)"},
    {"ebusy_going", "rmmod: e1000: EBUSY: already being unloaded"},
    {"eperm", "rmmod: e1000: EPERM: refmode=pinned: modules are never "
              "unloaded"},
    {"enoent", "rmmod: e1000: ENOENT: not loaded"},
    {"freed_failed_init",
     "rmmod: e1000: freed (its init had failed)   # a second teardown"},
    {"unloaded", "rmmod: e1000: unloaded after N ms"},
    {"netdel", "modref> netsim del eth0  # (another thread): "
               "unregister_netdev(eth0)"},
    {"netdel_ebusy", "netsim: EBUSY: eth0: already being unregistered (rmmod)"},
    {"netdel_refused", "netsim del: the module is GOING, the command does "
                       "not run"},
    {"going", "e1000 is GOING (try_module_get fails from here)"},
    {"found_gone", "finds e1000 GONE and takes it for a failed init: tears it "
                   "down too"},
    {"exit",
     "can_unload says free: e1000's exit runs, unregister_netdev(eth0)"},
    {"gone", "e1000 is GONE"},
    {"teardown", "teardown: e1000 unlisted, grace period, memory freed"},
    {"unreg_begin", "eth0: closed, unlisted, NETDEV_UNREGISTER"},
    {"rollback", "resume: eth0 listed and REGISTERED again (the rollback)"},
    {"cache_hold", "[net] an ARP entry takes a reference on eth0"},
    {"cache_flush", "[net] NETDEV_UNREGISTER: the ARP entry lets go of eth0"},
    {"packet_hold", "[net] an in-flight packet holds a reference on eth0 "
                    "(its lookup found eth0 listed)"},
    {"finish", "unregister_netdev(eth0) finishes: drops the base reference"},
    {"unreg_waiting",
     "unregister_netdev: waiting for eth0 to become free. Usage count = N"},
    {"unregistered", "eth0: unregistered (driver e1000)"},
    {"legacy_left", "eth0: refmode=legacy: unregistered with 1 reference(s) "
                    "left; the destructor runs at the last dev_put"},
    {"expire", "[timer, 4 s later] devhold's timer: dev_put(eth0)"},
    {"destructor", "[the last dev_put] eth0's destructor: e1000_destructor"},
    {"syn", "[host] a SYN to a port of tcp.ko arrives"},
    {"accepted", "[tcp.ko] the connection is accepted"},
    {"syn_rst", "[tcp.ko] unloading: the SYN is answered with RST"},
    {"syn_noproto", "[ip] no handler for TCP any more"},
    {"time_wait_expired", "[tcp.ko timer] TIME_WAIT expires"},
};

static const char *
step_text(const char *ev)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (strcmp(steps[i].ev, ev) == 0)
			return steps[i].text;
	return ev;
}

/* The readable sequence: one line per step, repeated waits folded. */
static void
write_steps(FILE *f, const char *pfx, const struct check *c,
            const struct trail *t)
{
	char defs[256];

	defines(c, defs, sizeof(defs));
	fprintf(f, "%s%s: counterexample of %s (%s)\n", pfx, c->name, MODEL,
	        defs);
	for (int i = 0; i < t->n; i++) {
		const struct event *e = &t->ev[i];
		if (i > 0 && strcmp(e->ev, t->ev[i - 1].ev) == 0 &&
		    e->pid == t->ev[i - 1].pid)
			continue;
		char who[2 * EVLEN];

		snprintf(who, sizeof(who), "%s#%d", e->proc, e->pid);
		fprintf(f, "%s%3d  %-12s %s\n", pfx, i + 1, who,
		        step_text(e->ev));
	}
	fprintf(f, "%s =>  VIOLATED %s: %s\n", pfx, prop_name(t->failed),
	        prop_what(t->failed));
}

/* ---- replay scenarios ---------------------------------------------------
 *
 * The console trail (SCEN 5) under legacy is the 2003 bug.  Its console
 * steps are replayed against the real kernel in each refmode: legacy must
 * report the use-after-unload; wait and owner must wait and unload
 * cleanly; pinned must refuse with EPERM. */

static void
scn_head(FILE *f, int target)
{
	fprintf(
	    f,
	    "# GENERATED by build/host/modelcheck (model/modelcheck.c) from "
	    "the SPIN\n"
	    "# counterexample of model/unload.pml with REFMODE=legacy "
	    "SCEN=5 (the console):\n"
	    "# the 2003 bug's steps, replayed with refmode=%s.  Do not "
	    "edit: after a\n"
	    "# model change run `build/host/modelcheck --write-expected`. "
	    " docs/model.md.\n",
	    refmodes[target]);
	fprintf(f, "profiles default\n");
	fprintf(f, "cmdline netautoload=0 refmode=%s\n", refmodes[target]);
	fprintf(f, "modules build/modules/e1000.ko\n");
	if (target != 3)
		fprintf(f, "reject use-after-unload\n");
	fprintf(f, "prompt\nsend insmod e1000\nexpect ^e1000: 00:02.0: eth0,\n"
	           "prompt\n");
	/* the model starts with eth0 up */
	fprintf(f, "send ip link set eth0 up\nprompt\n");
}

static void
scn_event(FILE *f, int target, const struct event *e)
{
	const char *ev = e->ev;

	if (strcmp(ev, "devhold") == 0) {
		/* long enough that rmmod reports its wait on a busy host */
		fprintf(f,
		        "send devhold eth0 %d\n"
		        "expect ^devhold: eth0: 1 reference\\(s\\) for %d "
		        "ms$\nprompt\n",
		        HOLD_MS, HOLD_MS);
	} else if (strcmp(ev, "rmmod") == 0) {
		fprintf(f, "send rmmod e1000\n");
		/* wait: the hold keeps the device, not the module (refcount
		 * 0); owner: the hold is a module reference (refcount 1) */
		if (target == 0 || target == 1)
			fprintf(f,
			        "expect ^unregister_netdev: waiting for eth0 "
			        "to become free. Usage count = 2$\n"
			        "expect ^rmmod: e1000: waiting [0-9]+ s: "
			        "refcount %d; eth0 usage count 2 \\(Ctrl-C "
			        "aborts\\)$\n"
			        "expect -t 30 ^rmmod: e1000: unloaded after\n"
			        "prompt\n",
			        target == 1);
		else if (target == 2)
			fprintf(f,
			        "expect ^rmmod: e1000: EPERM: refmode=pinned\n"
			        "prompt\n");
	} else if (target != 3) {
		return; /* the kernel's own steps differ in the other modes */
	} else if (strcmp(ev, "legacy_left") == 0) {
		fprintf(f, "expect eth0: refmode=legacy: unregistered with 1 "
		           "reference\\(s\\) left\n");
	} else if (strcmp(ev, "unloaded") == 0) {
		fprintf(f, "expect ^rmmod: e1000: unloaded after\nprompt\n");
	} else if (strcmp(ev, "destructor") == 0) {
		fprintf(f,
		        "expect -t 20 use-after-unload: instruction fetch at "
		        "f[0-9a-f]+: e1000_destructor\\+0x0/0x[0-9a-f]+ in "
		        "module e1000, unloaded\n"
		        "expect holder_expire\\+\nexpect dev_put_track\\+\n");
	}
}

static void
scn_tail(FILE *f, int target)
{
	if (target == 3) {
		fprintf(f, "exit panic\n");
		return;
	}
	if (target == 2)
		fprintf(f, "send ip link show eth0\n"
		           "expect ^1: eth0 .* state UP carrier on refcnt [12] "
		           "driver e1000$\nprompt\n");
	else
		fprintf(f, "send lsmod\nprompt\n");
	fprintf(f, "send poweroff\nexit success\n");
}

static int
write_scenario(const char *path, int target, const struct trail *t)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	scn_head(f, target);
	for (int i = 0; i < t->n; i++)
		scn_event(f, target, &t->ev[i]);
	scn_tail(f, target);
	return fclose(f) == 0 ? 0 : -1;
}

static bool
same_file(const char *a, const char *b)
{
	char *x = slurp(a), *y = slurp(b);
	bool same = x != NULL && y != NULL && strcmp(x, y) == 0;

	free(x);
	free(y);
	return same;
}

static void
replay(struct kt *t, const struct check *c, const char *dir,
       const struct trail *tr)
{
	for (int target = 0; target < 4; target++) {
		char gen[PATH_MAX], want[PATH_MAX];

		snprintf(gen, sizeof(gen), "%s/model-%s.scn", dir,
		         refmodes[target]);
		snprintf(want, sizeof(want), "tests/scenarios/model-%s.scn",
		         refmodes[target]);
		if (write_scenario(write_expected ? want : gen, target, tr) !=
		    0) {
			kt_fail(t, __FILE__, __LINE__, "%s: cannot write %s",
			        c->name, write_expected ? want : gen);
			continue;
		}
		if (write_expected)
			kt_diag("%s: wrote %s", c->name, want);
		else if (!same_file(gen, want))
			kt_fail(t, __FILE__, __LINE__,
			        "%s: the trail's scenario %s differs from %s "
			        "(the model no longer matches the checked-in "
			        "replay: diff them; --write-expected "
			        "regenerates)",
			        c->name, gen, want);
	}
}

/* ---- one check --------------------------------------------------------- */

static void
run_check(struct kt *t, const struct check *c)
{
	char dir[256], defs[256], path[PATH_MAX];
	struct result r;
	char *out;
	bool bitstate = verify && c->scen == 0 && c->refmode == 1;

	snprintf(dir, sizeof(dir), WORK "/%s", c->name);
	if (mkdirs(dir) != 0) {
		kt_fail(t, __FILE__, __LINE__, "cannot create %s", dir);
		return;
	}
	defines(c, defs, sizeof(defs));
	/* spin -t wants the model beside the trail, under the same name */
	if (run_in(dir, "cp.out",
	           "cp '%s' unload.pml && rm -f unload.pml.trail",
	           model_path) != 0 ||
	    run_in(dir, "spin.out", "%s %s -a unload.pml", spin, defs) != 0) {
		kt_fail(t, __FILE__, __LINE__,
		        "%s: spin -a failed (%s/spin.out)", c->name, dir);
		return;
	}
	/* at the small bounds, compiling costs more than exploring */
	if (run_in(dir, "cc.out", "cc %s -w -DSAFETY -DREACH %s -o pan pan.c",
	           verify ? "-O2" : "-O0",
	           bitstate ? "-DBITSTATE" : "-DCOLLAPSE") != 0) {
		kt_fail(t, __FILE__, __LINE__,
		        "%s: compiling pan failed (%s/cc.out)", c->name, dir);
		return;
	}
	/* pan exits 0 also when it found an error; its report says */
	run_in(dir, "pan.out", "./pan -m100000 %s", bitstate ? "-w28" : "");
	snprintf(path, sizeof(path), "%s/pan.out", dir);
	out = slurp(path);
	if (out == NULL) {
		kt_fail(t, __FILE__, __LINE__, "%s: no %s", c->name, path);
		return;
	}
	parse_pan(out, &r);
	free(out);
	if (r.errors < 0) {
		kt_fail(t, __FILE__, __LINE__, "%s: pan did not finish (%s)",
		        c->name, path);
		return;
	}
	kt_diag("%s: %s, refmode=%s modref=%s: %ld states, %ld transitions, "
	        "depth %d%s",
	        c->name, c->fixed ? "fixed" : "old code", refmodes[c->refmode],
	        c->modref ? "atomic" : "percpu", r.states, r.transitions,
	        r.depth, bitstate ? " (bitstate)" : "");
	if (r.errors == 0) {
		if (c->expect != NULL) {
			kt_fail(
			    t, __FILE__, __LINE__,
			    "%s: expected a counterexample to %s, SPIN found "
			    "none",
			    c->name, prop_name(c->expect));
			return;
		}
		kt_diag(
		    "%s: hold: %s%s", c->name,
		    "no-use-after-unload no-device-freed-in-use one-teardown "
		    "nowait-never-waits ctrlc-restores no-leak rmmod-ends",
		    c->scen == 4 ? " rst-before-unload" : "");
		return;
	}
	/* a counterexample: replay it and say it in console steps */
	if (run_in(dir, "trail.txt", "%s %s -t -p unload.pml", spin, defs) !=
	    0) {
		kt_fail(t, __FILE__, __LINE__,
		        "%s: spin -t failed (%s/trail.txt)", c->name, dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/trail.txt", dir);
	out = slurp(path);
	if (out == NULL) {
		kt_fail(t, __FILE__, __LINE__, "%s: no %s", c->name, path);
		return;
	}
	{
		static struct trail tr;
		FILE *f;

		parse_trail(out, &tr);
		free(out);
		if (tr.failed[0] == '\0')
			snprintf(tr.failed, sizeof(tr.failed), "%s", r.flag);
		snprintf(path, sizeof(path), "%s/steps.txt", dir);
		f = fopen(path, "w");
		if (f != NULL) {
			write_steps(f, "", c, &tr);
			fclose(f);
		}
		write_steps(stdout, "    # ", c, &tr);
		if (c->expect == NULL || strcmp(c->expect, tr.failed) != 0) {
			kt_fail(t, __FILE__, __LINE__,
			        "%s: unexpected counterexample to %s%s%s "
			        "(steps above; %s)",
			        c->name, prop_name(tr.failed),
			        c->expect ? ", expected one to " : "",
			        c->expect ? prop_name(c->expect) : "", path);
			return;
		}
		kt_diag("%s: counterexample to %s found, as expected", c->name,
		        prop_name(c->expect));
		if (c->replay)
			replay(t, c, dir, &tr);
	}
}

/* ---- the checks ---------------------------------------------------------
 * Bounds: docs/model.md.  make test: the base scenario with one of each
 * holder; make verify: the timed holder also renews (devhold -r), the
 * console types three commands, owner mode on bitstate. */

#define BASE_V "-DRENEW=1"
#define CONS_V "-DSTEPS=3"

#define OWNER_T "-DPACKET=0"

static const struct check refmode_checks[] = {
    {"wait-atomic", 0, 1, 1, 0, NULL, BASE_V, NULL, false},
    {"wait-percpu", 0, 0, 1, 0, NULL, BASE_V, NULL, false},
    {"owner-atomic", 1, 1, 1, 0, OWNER_T, BASE_V, NULL, false},
    {"owner-percpu", 1, 0, 1, 0, OWNER_T, BASE_V, NULL, false},
    {"pinned-atomic", 2, 1, 1, 0, NULL, BASE_V, NULL, false},
    {"legacy-atomic", 3, 1, 1, 0, NULL, BASE_V, "uaf", false},
    {"legacy-percpu", 3, 0, 1, 0, NULL, BASE_V, "uaf", false},
};

static const struct check console_checks[] = {
    {"console-wait", 0, 1, 1, 5, NULL, CONS_V, NULL, false},
    {"console-owner", 1, 1, 1, 5, NULL, CONS_V, NULL, false},
    {"console-pinned", 2, 1, 1, 5, NULL, CONS_V, NULL, false},
    {"console-legacy", 3, 1, 1, 5, NULL, NULL, "uaf", true},
};

static const struct check race_checks[] = {
    {"race1-old", 0, 1, 0, 1, NULL, NULL, "double_teardown", false},
    {"race1-fixed", 0, 1, 1, 1, NULL, NULL, NULL, false},
    {"race2-old", 0, 1, 0, 2, NULL, NULL, "dev_uaf", false},
    {"race2-fixed", 0, 1, 1, 2, NULL, NULL, NULL, false},
    {"race3-old", 0, 1, 0, 3, NULL, NULL, "nowait_waited", false},
    {"race3-fixed", 0, 1, 1, 3, NULL, NULL, NULL, false},
    {"race3-tcp-old", 0, 1, 0, 4, NULL, NULL, "reset_lost", false},
    {"race3-tcp-fixed", 0, 1, 1, 4, NULL, NULL, NULL, false},
};

/* Each mechanism of the protocol taken out in turn: SPIN must find what
 * it is there for (docs/model.md, "Ablations"). */
static const struct check ablation_checks[] = {
    {"no-unregsync", 0, 1, 1, 0, "-DNO_UNREGSYNC=1", "-DNO_UNREGSYNC=1",
     "dev_uaf", false},
    {"no-recheck", 0, 1, 1, 0, "-DNO_RECHECK=1", "-DNO_RECHECK=1",
     "nowait_waited", false},
    {"no-renotify", 0, 1, 1, 0, "-DNO_RENOTIFY=1", "-DNO_RENOTIFY=1",
     "deadlock", false},
};

#define CHECK_CASE(arr, i, fn)                                                 \
	static void fn(struct kt *t)                                           \
	{                                                                      \
		run_check(t, &arr[i]);                                         \
	}

CHECK_CASE(refmode_checks, 0, wait_atomic)
CHECK_CASE(refmode_checks, 1, wait_percpu)
CHECK_CASE(refmode_checks, 2, owner_atomic)
CHECK_CASE(refmode_checks, 3, owner_percpu)
CHECK_CASE(refmode_checks, 4, pinned_atomic)
CHECK_CASE(refmode_checks, 5, legacy_atomic)
CHECK_CASE(refmode_checks, 6, legacy_percpu)
CHECK_CASE(console_checks, 0, console_wait)
CHECK_CASE(console_checks, 1, console_owner)
CHECK_CASE(console_checks, 2, console_pinned)
CHECK_CASE(console_checks, 3, console_legacy)
CHECK_CASE(race_checks, 0, race1_old)
CHECK_CASE(race_checks, 1, race1_fixed)
CHECK_CASE(race_checks, 2, race2_old)
CHECK_CASE(race_checks, 3, race2_fixed)
CHECK_CASE(race_checks, 4, race3_old)
CHECK_CASE(race_checks, 5, race3_fixed)
CHECK_CASE(race_checks, 6, race3_tcp_old)
CHECK_CASE(race_checks, 7, race3_tcp_fixed)
CHECK_CASE(ablation_checks, 0, no_unregsync)
CHECK_CASE(ablation_checks, 1, no_recheck)
CHECK_CASE(ablation_checks, 2, no_renotify)

static const struct kt_case refmode_cases[] = {
    KT_CASE(wait_atomic),   KT_CASE(wait_percpu),
    KT_CASE(owner_atomic),  KT_CASE(owner_percpu),
    KT_CASE(pinned_atomic), KT_CASE(legacy_atomic),
    KT_CASE(legacy_percpu), KT_END,
};
static const struct kt_case console_cases[] = {
    KT_CASE(console_wait),
    KT_CASE(console_owner),
    KT_CASE(console_pinned),
    KT_CASE(console_legacy),
    KT_END,
};
static const struct kt_case race_cases[] = {
    KT_CASE(race1_old),     KT_CASE(race1_fixed),     KT_CASE(race2_old),
    KT_CASE(race2_fixed),   KT_CASE(race3_old),       KT_CASE(race3_fixed),
    KT_CASE(race3_tcp_old), KT_CASE(race3_tcp_fixed), KT_END,
};
static const struct kt_case ablation_cases[] = {
    KT_CASE(no_unregsync),
    KT_CASE(no_recheck),
    KT_CASE(no_renotify),
    KT_END,
};
static const struct kt_suite refmode_suite = {"model_refmode", refmode_cases};
static const struct kt_suite console_suite = {"model_console", console_cases};
static const struct kt_suite race_suite = {"model_races", race_cases};
static const struct kt_suite ablation_suite = {"model_ablation",
                                               ablation_cases};

int
main(int argc, char **argv)
{
	static const struct kt_suite *const suites[] = {
	    &refmode_suite, &console_suite, &race_suite, &ablation_suite};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--verify") == 0) {
			verify = true;
		} else if (strcmp(argv[i], "--write-expected") == 0) {
			write_expected = true;
		} else if (strcmp(argv[i], "--spin") == 0 && i + 1 < argc) {
			spin = argv[++i];
		} else {
			fprintf(stderr,
			        "modelcheck: EINVAL: '%s': usage: modelcheck "
			        "[--verify] [--write-expected] [--spin PATH]\n",
			        argv[i]);
			return 2;
		}
	}
	if (realpath(MODEL, model_path) == NULL) {
		fprintf(
		    stderr,
		    "modelcheck: ENOENT: %s: run from the repository root\n",
		    MODEL);
		return 2;
	}
	return kt_run(suites, 4);
}
