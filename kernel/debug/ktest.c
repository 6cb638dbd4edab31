/*
 * The KTAP runner (see ktest.h).  Output follows KTAP v1: a top-level plan
 * over suites, each suite a nested, indented KTAP document over its cases.
 * Failure diagnostics are "#" lines before the case's result line.
 */
#include <kernel/debug/ktest.h>
#include <kernel/initcall.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/waitq.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/bootparam.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/spinlock.h>
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <stdarg.h>

extern struct ktest_suite __ktest_suites_start[], __ktest_suites_end[];
static LIST_HEAD(module_suites);
static DEFINE_SPINLOCK(suites_lock);

static char ktest_param[128];
BOOTPARAM_STRING(ktest, ktest_param,
                 "suites to run at boot: all, or a comma-separated list", 0);
/*
 * A case that has not finished after this long is reported as timed out
 * (and its thread left behind).  The clock keeps real time, so on a host
 * running eight TCG CPUs on two cores a contended case can need more: the
 * eight-CPU scenarios (smp-eight.scn, make stress's) raise it rather
 * than loosening what is checked.
 */
static int ktest_timeout_s = 120;
BOOTPARAM_INT(ktest_timeout_s, ktest_timeout_s, 1, 3600,
              "seconds before a test case is reported as timed out", 1);
static int ktest_poweroff;
BOOTPARAM_BOOL(ktest_poweroff, ktest_poweroff,
               "power off after the boot-time tests (code says pass/fail)", 0);
/*
 * Lab monitors (LAVA) match one console line at a time, so a case line
 * must name its suite to be unique across suites: "suite" prints
 * "ok 3 smp.ipi_all" instead of "ok 3 ipi_all".  Plain is the default:
 * the harness qualifies names itself from the nesting.
 */
static int ktest_names;
enum { KTEST_NAMES_PLAIN, KTEST_NAMES_SUITE };
BOOTPARAM_ENUM(ktest_names, ktest_names, "plain|suite",
               "name KTAP cases plain or suite.case (for lab monitors)", 1);

struct case_ctx {
	struct ktest t;
	const struct ktest_case *kc;
	struct completion done;
	int refs;
};

static void
ctx_put(struct case_ctx *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(c);
}

/* "        # CASE: WHERE MESSAGE", a KTAP diagnostic of the case. */
static void
say(struct ktest *t, const char *where, const char *fmt, va_list ap)
{
	char msg[160];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	kprintf("        # %s: %s%s\n", t->name, where, msg);
}

void
ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char where[96];
	va_list ap;

	t->failures++;
	snprintf(where, sizeof(where), "%s:%d: ", file, line);
	va_start(ap, fmt);
	say(t, where, fmt, ap);
	va_end(ap);
}

void
ktest_note(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(t, "", fmt, ap);
	va_end(ap);
}

void
ktest_skip(struct ktest *t, const char *reason)
{
	t->skipped = true;
	strlcpy(t->skip_reason, reason, sizeof(t->skip_reason));
}

void
ktest_abort(struct ktest *t)
{
	struct case_ctx *c = container_of(t, struct case_ctx, t);

	complete(&c->done);
	ctx_put(c);
	thread_exit();
}

static void
case_thread(void *arg)
{
	struct case_ctx *c = arg;

	c->kc->fn(&c->t);
	complete(&c->done);
	ctx_put(c);
}

void
ktest_register(struct ktest_suite *s)
{
	uint32_t f = spin_lock_irqsave(&suites_lock);
	list_add_tail(&s->link, &module_suites);
	spin_unlock_irqrestore(&suites_lock, f);
}

void
ktest_unregister(struct ktest_suite *s)
{
	uint32_t f = spin_lock_irqsave(&suites_lock);
	list_del_init(&s->link);
	spin_unlock_irqrestore(&suites_lock, f);
}

static struct ktest_suite *
find_suite(const char *name)
{
	struct ktest_suite *s;

	for (s = __ktest_suites_start; s < __ktest_suites_end; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	list_for_each_entry(s, &module_suites, link)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

/* The name a case line carries: see ktest_names. */
static const char *
case_label(const struct ktest_suite *s, const struct ktest_case *kc, char *buf,
           size_t size)
{
	if (ktest_names != KTEST_NAMES_SUITE)
		return kc->name;
	snprintf(buf, size, "%s.%s", s->name, kc->name);
	return buf;
}

/* Runs one case; returns 1 if it failed. */
static int
run_case(const struct ktest_suite *s, const struct ktest_case *kc, int n)
{
	char label[96];
	const char *name = case_label(s, kc, label, sizeof(label));
	struct case_ctx *c = kzalloc(sizeof(*c), "ktest");
	int failed, r;

	if (c == NULL) {
		kprintf("    not ok %d %s # out of memory\n", n, name);
		return 1;
	}
	c->t.name = kc->name;
	c->kc = kc;
	c->refs = 2;
	completion_init(&c->done);
	if (thread_create(kc->name, case_thread, c, -1) == NULL) {
		kfree(c);
		kprintf("    not ok %d %s # cannot create thread\n", n, name);
		return 1;
	}
	r = wait_for_completion_timeout(&c->done, ktest_timeout_s * 1000,
	                                false);
	if (r != 0) {
		kprintf("        # %s: timed out after %d ms\n", kc->name,
		        ktest_timeout_s * 1000);
		c->t.failures++;
	}
	failed = c->t.failures > 0;
	if (failed)
		kprintf("    not ok %d %s\n", n, name);
	else if (c->t.skipped)
		kprintf("    ok %d %s # SKIP %s\n", n, name, c->t.skip_reason);
	else
		kprintf("    ok %d %s\n", n, name);
	ctx_put(c);
	return failed;
}

/* One suite, or (only >= 0) its case of that index alone: the
 * reproducer of a failing case (make repro, docs/repro.md). */
static int
run_suite(struct ktest_suite *s, int n, int only)
{
	int failed = 0;

	kprintf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", s->name,
	        only >= 0 ? 1 : s->ncases);
	for (int i = 0; i < s->ncases; i++)
		if (only < 0 || i == only)
			failed +=
			    run_case(s, &s->cases[i], only >= 0 ? 1 : i + 1);
	kprintf("%s %d %s\n", failed ? "not ok" : "ok", n, s->name);
	return failed;
}

/* "SUITE", "SUITE.CASE" or "SUITE.N" (the case KTAP numbers N in the
 * suite's run: a case that hung before it printed anything is known to
 * make repro only by its number): the suite, and the case's index or -1. */
static struct ktest_suite *
find_selection(const char *name, int *only)
{
	char suite[64];
	const char *dot = strchr(name, '.');
	struct ktest_suite *s;

	*only = -1;
	if (dot == NULL)
		return find_suite(name);
	if ((size_t)(dot - name) >= sizeof(suite))
		return NULL;
	memcpy(suite, name, (size_t)(dot - name));
	suite[dot - name] = '\0';
	s = find_suite(suite);
	if (s != NULL && dot[1] >= '1' && dot[1] <= '9') {
		unsigned long n;

		if (parse_ulong(dot + 1, &n) != 0 ||
		    n > (unsigned long)s->ncases)
			return NULL;
		*only = (int)n - 1;
		return s;
	}
	for (int i = 0; s != NULL && i < s->ncases; i++)
		if (strcmp(s->cases[i].name, dot + 1) == 0) {
			*only = i;
			return s;
		}
	return NULL;
}

int
ktest_run(int nnames, char **names)
{
	struct ktest_suite *list[64];
	int only[64], n = 0, failed = 0;
	bool all = nnames == 0 || (nnames == 1 && strcmp(names[0], "all") == 0);

	if (all) {
		struct ktest_suite *s;
		for (s = __ktest_suites_start; s < __ktest_suites_end && n < 64;
		     s++) {
			only[n] = -1;
			list[n++] = s;
		}
		list_for_each_entry(s, &module_suites, link)
			if (n < 64) {
				only[n] = -1;
				list[n++] = s;
			}
	} else {
		for (int i = 0; i < nnames && n < 64; i++) {
			list[n] = find_selection(names[i], &only[n]);
			if (list[n] == NULL) {
				kprintf("ktest: ENOENT: no suite or case '%s' "
				        "(ktest -l lists the suites)\n",
				        names[i]);
				return -ENOENT;
			}
			n++;
		}
	}
	kprintf("KTAP version 1\n1..%d\n", n);
	for (int i = 0; i < n; i++)
		failed += run_suite(list[i], i + 1, only[i]);
	return failed;
}

void
ktest_list(void)
{
	struct ktest_suite *s;

	for (s = __ktest_suites_start; s < __ktest_suites_end; s++)
		kprintf("%-16s %d cases\n", s->name, s->ncases);
	list_for_each_entry(s, &module_suites, link)
		kprintf("%-16s %d cases (module)\n", s->name, s->ncases);
}

static void
ktest_boot(void)
{
	char *names[16];
	int n = 0, r;
	char *s = ktest_param;

	if (ktest_param[0] == '\0')
		return;
	while (*s != '\0' && n < 16) {
		names[n++] = s;
		while (*s != '\0' && *s != ',')
			s++;
		if (*s == ',')
			*s++ = '\0';
	}
	r = ktest_run(n, names);
	/*
	 * The end marker: one line an unattended run (a lab monitor, a
	 * script) can wait for, printed after the last result and before
	 * any power-off, so "everything was reported" never depends on
	 * seeing a shell prompt or on QEMU's exit.
	 */
	kprintf("ktest: end: %d case(s) failed\n", r < 0 ? 1 : r);
	if (ktest_poweroff)
		machine_exit(r == 0 ? EXIT_SUCCESS_CODE : EXIT_FAILURE_CODE);
}
late_initcall(ktest_boot);

static int
cmd_ktest(int argc, char **argv)
{
	struct args a;
	int r;

	if (args_parse(&a, "ktest", argc, argv, "l", 0, ARGS_ANY) < 0)
		return -EINVAL;
	if (args_has(&a, 'l')) {
		if (a.npos != 0)
			return args_refuse(&a, "-l takes no suite");
		ktest_list();
		return 0;
	}
	r = ktest_run(a.npos, a.pos);
	if (r > 0)
		return cmd_error("ktest", -EIO, "%d case(s) failed", r);
	return r;
}
COMMAND(ktest, "ktest [-l | all | SUITE[.CASE]...]",
        "run in-kernel test suites (or one case of a suite), printing KTAP",
        cmd_ktest);
