/*
 * Suite "args": the shell's argument parser (kernel/console/args.h) and its use
 * by every command.
 *
 * Pins down the parsing rules (flags anywhere, combined, values in the
 * same or the next word, "--", a lone "-", counts, numbers with ranges)
 * and that every command the shell knows at the time, built-in or
 * registered by a loaded module, refuses an unknown flag through the
 * parser: EINVAL with the usage line.  The command list comes from the
 * shell itself, so a new command that skips the parser fails here.
 */
#include <kernel/debug/ktest.h>
#include <kernel/console/args.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/string.h>
#include <kernel/console/printk.h>

#define MAX_NAMES 128

/* Split a writable copy of line into argv (at most SHELL_MAX_ARGS). */
static int
words(char *line, char **argv)
{
	int n = 0;

	for (char *s = line; *s != '\0' && n < SHELL_MAX_ARGS;) {
		while (*s == ' ')
			*s++ = '\0';
		if (*s == '\0')
			break;
		argv[n++] = s;
		while (*s != '\0' && *s != ' ')
			s++;
	}
	argv[n] = NULL;
	return n;
}

static int
parse(struct args *a, const char *line, const char *spec, int min, int max)
{
	static char buf[128];
	char *argv[SHELL_MAX_ARGS + 1];

	strlcpy(buf, line, sizeof(buf));
	return args_parse(a, "echo", words(buf, argv), argv, spec, min, max);
}

static void
flags_and_words(struct ktest *t)
{
	struct args a;

	KASSERT_TRUE(t, parse(&a, "x -n a -c 3 b -fw5", "nfc:w:", 0, 3) == 0);
	KEXPECT_TRUE(t, args_has(&a, 'n') && args_has(&a, 'f'));
	KEXPECT_TRUE(t, !args_has(&a, 'x'));
	KEXPECT_TRUE(t, strcmp(args_val(&a, 'c'), "3") == 0);
	KEXPECT_TRUE(t, strcmp(args_val(&a, 'w'), "5") == 0);
	KEXPECT_EQ(t, a.npos, 2);
	KEXPECT_EQ(t, a.argc, 3);
	KEXPECT_TRUE(t, strcmp(a.pos[0], "a") == 0 && a.argv[2] == a.pos[1]);
	KEXPECT_TRUE(t, a.argv[3] == NULL);
	KEXPECT_TRUE(t, args_val(&a, 'n') == NULL);
}

static void
double_dash_and_dash(struct ktest *t)
{
	struct args a;

	KASSERT_TRUE(t, parse(&a, "x -- -n - --", "n", 0, 3) == 0);
	KEXPECT_TRUE(t, !args_has(&a, 'n'));
	KEXPECT_EQ(t, a.npos, 3);
	KEXPECT_TRUE(t, strcmp(a.pos[0], "-n") == 0);
	KEXPECT_TRUE(t, strcmp(a.pos[1], "-") == 0);
	KEXPECT_TRUE(t, strcmp(a.pos[2], "--") == 0);
}

static void
refusals(struct ktest *t)
{
	unsigned before = args_refusals;
	struct args a;

	KEXPECT_EQ(t, parse(&a, "x -Z", "n", 0, 0), -EINVAL);
	KEXPECT_EQ(t, parse(&a, "x -n -n", "n", 0, 0), -EINVAL);
	KEXPECT_EQ(t, parse(&a, "x -c", "c:", 0, 0), -EINVAL);
	KEXPECT_EQ(t, parse(&a, "x a b", "", 0, 1), -EINVAL);
	KEXPECT_EQ(t, parse(&a, "x", "", 1, 1), -EINVAL);
	KEXPECT_EQ(t, parse(&a, "x -1", "", 0, 1), -EINVAL);
	KEXPECT_EQ(t, args_refusals - before, 6);
	KEXPECT_TRUE(t, strcmp(args_refused_cmd, "echo") == 0);
}

static void
numbers(struct ktest *t)
{
	unsigned long v = 42;
	struct args a;

	KASSERT_TRUE(t, parse(&a, "x -c 0x10 7", "c:s:", 1, 1) == 0);
	KEXPECT_EQ(t, args_flag_num(&a, 'c', "N", 1, 100, &v), 0);
	KEXPECT_EQ(t, v, 16);
	KEXPECT_EQ(t, args_flag_num(&a, 's', "SIZE", 1, 100, &v), 0);
	KEXPECT_EQ(t, v, 16); /* absent: untouched */
	KEXPECT_EQ(t, args_num(&a, "N", a.pos[0], 8, 100, &v), -ERANGE);
	KEXPECT_EQ(t, args_num(&a, "N", "7x", 0, 100, &v), -EINVAL);
	KEXPECT_EQ(t, args_num(&a, "N", "", 0, 100, &v), -EINVAL);
	KEXPECT_EQ(t, args_num(&a, "N", a.pos[0], 7, 7, &v), 0);
	KEXPECT_EQ(t, v, 7);
}

struct names {
	char (*name)[32];
	int n;
};

static void
collect(const struct command *c, void *arg)
{
	struct names *ns = arg;

	if (ns->n < MAX_NAMES)
		strlcpy(ns->name[ns->n++], c->name, sizeof(ns->name[0]));
}

/* Every command: "NAME -Z" is refused by the parser, as EINVAL. */
static void
every_command_refuses_junk(struct ktest *t)
{
	struct names ns = {kmalloc(MAX_NAMES * 32, "ktest"), 0};
	char line[64];

	KASSERT_TRUE(t, ns.name != NULL);
	command_for_each(collect, &ns);
	KEXPECT_TRUE(t, ns.n < MAX_NAMES);
	for (int i = 0; i < ns.n; i++) {
		unsigned before = args_refusals;
		int r;

		snprintf(line, sizeof(line), "%s -Z", ns.name[i]);
		r = shell_run_line(line);
		KEXPECT_MSG(t, r == -EINVAL, "%s -Z returned %d", ns.name[i],
		            r);
		KEXPECT_MSG(t,
		            args_refusals == before + 1 &&
		                strcmp(args_refused_cmd, ns.name[i]) == 0,
		            "%s -Z was not refused by the argument parser",
		            ns.name[i]);
	}
	KEXPECT_TRUE(t, ns.n >= 30); /* the built-ins at least */
	kfree(ns.name);
}

KTEST_SUITE(args, KTEST_CASE(flags_and_words), KTEST_CASE(double_dash_and_dash),
            KTEST_CASE(refusals), KTEST_CASE(numbers),
            KTEST_CASE(every_command_refuses_junk));
