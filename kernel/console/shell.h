/*
 * The console shell.  Commands are declared next to the code they drive
 * with COMMAND() (collected by the linker), or registered at run time by
 * modules with command_register().  A command returns 0 or a negative
 * errno and reports its own errors with cmd_error(), which prints the
 * contract's error line: "<command>: <ENAME>: <what went wrong>".
 */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include <kernel/lib/list.h>
#include <kernel/module.h>

#define SHELL_MAX_ARGS 16

struct command {
	const char *name;
	const char *usage;
	const char *help;
	int (*fn)(int argc, char **argv);
	struct list_head link; /* for run-time registration only */
	struct module *owner;  /* set by command_register */
};

#define COMMAND(n, u, h, f)                                                    \
	static struct command __command_##n                                    \
	    __attribute__((section(".commands"), used, aligned(4))) = {        \
	        #n, u, h, f, {0, 0}, NULL}

int cmd_error(const char *cmd, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Refuse the arguments without a reason of their own ("CMD: EINVAL: bad
 * arguments", then "usage: ..."); returns -EINVAL.  Prefer the parser
 * (kernel/console/args.h), which says what is wrong. */
int cmd_usage(const char *cmd);

/* A module's commands are owned by it: the shell takes a reference on
 * the owner for as long as the command runs (the owner rule), and a
 * command whose module is being unloaded cannot start. */
void __command_register(struct command *c, struct module *owner);
#define command_register(c) __command_register((c), THIS_MODULE)
void command_unregister(struct command *c);
const struct command *command_find(const char *name);
/* Visit every command, built-in then registered (fn must not sleep). */
void command_for_each(void (*fn)(const struct command *c, void *arg),
                      void *arg);

/* Run one line as if typed (used by boot-time hooks and tests). */
int shell_run_line(char *line);
/* The same from a background thread: the console's foreground (where
 * Ctrl-C goes) and the caller's pending signal are left alone, so a
 * signal sent to the caller (thread_signal) interrupts the command. */
int shell_exec(char *line);
void shell_main(void *arg);

#endif
