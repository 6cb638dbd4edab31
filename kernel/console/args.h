/*
 * The one argument parser every shell command uses, so every command
 * takes flags, counts words and reads numbers the same way, and refuses
 * junk the same way: two lines,
 *
 *   CMD: EINVAL: unknown flag -Z
 *   usage: CMD [-n] NAME
 *
 * Rules: flags are single letters after '-', may be combined (-nf) and
 * may appear anywhere among the words; a flag that takes a value gets the
 * rest of its word (-c3) or the next word (-c 3); a flag given twice is
 * refused; "--" ends the flags (so a word starting with '-' can be an
 * argument: `udpsend ADDR PORT -- -n`); a lone "-" is an ordinary word.
 *
 *   struct args a;
 *   unsigned long n = 4;
 *   if (args_parse(&a, "ping", argc, argv, "c:s:", 1, 1) < 0 ||
 *       args_flag_num(&a, 'c', "COUNT", 1, 1000, &n) < 0)
 *           return -EINVAL;
 *   ... a.pos[0] is ADDR ...
 *
 * Every refusal also bumps args_refusals and records the command name,
 * so the `args` KTAP suite can prove that each command refuses junk.
 */
#ifndef KERNEL_ARGS_H
#define KERNEL_ARGS_H

#include <stdbool.h>
#include <kernel/lib/errno.h>
#include <kernel/console/shell.h>

#define ARGS_ANY (-1) /* max: no upper bound on the words */

struct args {
	const char *cmd;
	uint64_t given;      /* bit per flag letter (args_has) */
	const char *val[52]; /* each value flag's value */
	/* The words that are not flags: argv[0] is the command word, then
	 * argv[1..argc) in order, NULL-terminated, so a command can go on
	 * with `argc = a.argc; argv = a.argv;`.  pos/npos: the same without
	 * the command word. */
	char *argv[SHELL_MAX_ARGS + 1];
	int argc;
	char **pos;
	int npos;
};

/*
 * Parse argv[1..argc) for command cmd: flags are the letters of spec, a
 * letter followed by ':' takes a value; between min and max (ARGS_ANY)
 * other words.  0, or -EINVAL after printing the refusal and usage.
 */
int args_parse(struct args *a, const char *cmd, int argc, char **argv,
               const char *spec, int min, int max);

bool args_has(const struct args *a, char flag);
/* The value of a value flag, or NULL if it was not given. */
const char *args_val(const struct args *a, char flag);

/*
 * s as a number in min..max into *out: 0, -EINVAL ("WHAT 'x' is not a
 * number", with the usage line) or -ERANGE ("WHAT 9 is out of range
 * 1..8").  Decimal, or hex with 0x.
 */
int args_num(const struct args *a, const char *what, const char *s,
             unsigned long min, unsigned long max, unsigned long *out);
/* The same for a flag's value; *out is left alone if the flag is absent. */
int args_flag_num(const struct args *a, char flag, const char *what,
                  unsigned long min, unsigned long max, unsigned long *out);

/* Refuse with a reason of the command's own ("unknown action 'x'"):
 * "CMD: EINVAL: reason" and the usage line; returns -EINVAL. */
int args_refuse(const struct args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same before (or without) args_parse, e.g. in a sub-command. */
int cmd_refuse(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

extern unsigned args_refusals;    /* refusals so far (tests) */
extern char args_refused_cmd[32]; /* the command of the last one */

#endif
