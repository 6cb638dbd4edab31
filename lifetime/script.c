/*
 * Explicit op lists for the lifetime stress (`stress script`, and
 * `stress lifetime ... script=1`): what make repro's delta debugging
 * runs instead of the ops a seed draws, one list per worker, each op
 * with the argument it had (docs/repro.md).
 *
 *   stress script clear
 *   stress script W OP:ARG[:N] ..       append to worker W's list (ARG:
 *                                       the op's 32-bit argument, as
 *                                       oplog=1 prints it, 0x... or
 *                                       decimal; N: the op runs with its
 *                                       Nth call at an injection site
 *                                       failing, 1..16, as faults= ran
 *                                       it)
 *   stress script                       the lists
 *
 * A run with script=1 has one worker per list up to the last non-empty
 * one; each runs its list once, in order.
 */
#include "lifetime/lifetime.h"
#include <kernel/lib/errno.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

struct lt_script lt_scripts[LT_SCRIPT_WORKERS];

int
lt_script_workers(void)
{
	int n = 0;

	for (int i = 0; i < LT_SCRIPT_WORKERS; i++)
		if (lt_scripts[i].n != 0)
			n = i + 1;
	return n;
}

static void
show(void)
{
	int n = lt_script_workers();

	if (n == 0)
		kprintf("stress: script: empty\n");
	for (int w = 0; w < n; w++) {
		kprintf("stress: script: w%d:", w);
		for (unsigned i = 0; i < lt_scripts[w].n; i++) {
			kprintf(" %s:0x%x", lt_ops[lt_scripts[w].op[i]].name,
			        (unsigned)lt_scripts[w].arg[i]);
			if (lt_scripts[w].fault[i] != 0)
				kprintf(":%u", lt_scripts[w].fault[i]);
		}
		kprintf("\n");
	}
}

/* "OP:ARG[:N]" into s's next slot; nothing appended on an error. */
static int
append(struct lt_script *s, char *item)
{
	char *colon = strchr(item, ':'), *nth;
	unsigned long arg, fault = 0;
	int k;

	if (colon == NULL)
		return cmd_error("stress", -EINVAL,
		                 "script: '%s': expected OP:ARG[:N]", item);
	*colon = '\0';
	nth = strchr(colon + 1, ':');
	if (nth != NULL) {
		*nth = '\0';
		if (parse_ulong(nth + 1, &fault) != 0 || fault < 1 ||
		    fault > 16)
			return cmd_error(
			    "stress", -EINVAL,
			    "script: '%s': the failing call is 1..16", nth + 1);
	}
	k = lt_op_find(item);
	if (k < 0)
		return cmd_error("stress", -EINVAL, "script: no op '%s'", item);
	if (parse_ulong(colon + 1, &arg) != 0 || arg > 0xffffffffu)
		return cmd_error("stress", -EINVAL,
		                 "script: '%s' is not a 32-bit argument",
		                 colon + 1);
	if (s->n == LT_SCRIPT_OPS)
		return cmd_error("stress", -ENOSPC,
		                 "script: a worker runs at most %d ops",
		                 LT_SCRIPT_OPS);
	s->op[s->n] = (uint8_t)k;
	s->arg[s->n] = (uint32_t)arg;
	s->fault[s->n] = (uint8_t)fault;
	s->n++;
	return 0;
}

int
lt_script_cmd(int argc, char **argv)
{
	struct lt_script copy;
	unsigned long w;

	if (argc == 2) {
		show();
		return 0;
	}
	if (argc == 3 && strcmp(argv[2], "clear") == 0) {
		memset(lt_scripts, 0, sizeof(lt_scripts));
		kprintf("stress: script: cleared\n");
		return 0;
	}
	if (argc < 4 || parse_ulong(argv[2], &w) != 0 || w >= LT_SCRIPT_WORKERS)
		return cmd_error("stress", -EINVAL,
		                 "script: expected clear, or W (0..%d) and "
		                 "OP:ARG..",
		                 LT_SCRIPT_WORKERS - 1);
	copy = lt_scripts[w]; /* all of the line or none of it */
	for (int i = 3; i < argc; i++) {
		int r = append(&copy, argv[i]);

		if (r != 0)
			return r;
	}
	lt_scripts[w] = copy;
	kprintf("stress: script: w%lu has %u op(s)\n", w, copy.n);
	return 0;
}
