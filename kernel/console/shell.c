/*
 * The shell loop: read a line, split it into words, run the command in
 * the foreground (Ctrl-C interrupts it), print the prompt again.  Bad
 * lines (too long, non-printable bytes, unknown commands) get one error
 * line and change nothing.
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/bootparam.h>
#include <kernel/console/console.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/locking/spinlock.h>
#include <stdarg.h>

#define PROMPT "modref> "

extern struct command __commands_start[], __commands_end[];
static LIST_HEAD(dynamic_commands);
static DEFINE_SPINLOCK(commands_lock);

void
__command_register(struct command *c, struct module *owner)
{
	uint32_t f = spin_lock_irqsave(&commands_lock);
	c->owner = owner;
	list_add_tail(&c->link, &dynamic_commands);
	spin_unlock_irqrestore(&commands_lock, f);
}

void
command_unregister(struct command *c)
{
	uint32_t f = spin_lock_irqsave(&commands_lock);
	list_del_init(&c->link);
	spin_unlock_irqrestore(&commands_lock, f);
}

/* Look a command up; for a module's command, also take a reference on
 * its owner under the list lock, so the module cannot finish unloading
 * between the lookup and the call.  -ESRCH: its module is unloading. */
static const struct command *
command_get(const char *name, int *err)
{
	struct command *c;
	uint32_t f;

	*err = 0;
	for (c = __commands_start; c < __commands_end; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	f = spin_lock_irqsave(&commands_lock);
	list_for_each_entry(c, &dynamic_commands, link) {
		if (strcmp(c->name, name) == 0) {
			if (!try_module_get(c->owner)) {
				*err = -ESRCH;
				c = NULL;
			}
			spin_unlock_irqrestore(&commands_lock, f);
			return c;
		}
	}
	spin_unlock_irqrestore(&commands_lock, f);
	*err = -ENOENT;
	return NULL;
}

const struct command *
command_find(const char *name)
{
	const struct command *c;
	int err;

	c = command_get(name, &err);
	if (c != NULL && c->owner != NULL)
		module_put(c->owner);
	return c;
}

void
command_for_each(void (*fn)(const struct command *c, void *arg), void *arg)
{
	struct command *c;
	uint32_t f;

	for (c = __commands_start; c < __commands_end; c++)
		fn(c, arg);
	f = spin_lock_irqsave(&commands_lock);
	list_for_each_entry(c, &dynamic_commands, link)
		fn(c, arg);
	spin_unlock_irqrestore(&commands_lock, f);
}

int
cmd_error(const char *cmd, int err, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("%s: %s: %s\n", cmd, errno_name(err), msg);
	return err < 0 ? err : -err;
}

int
cmd_usage(const char *cmd)
{
	return cmd_refuse(cmd, "bad arguments");
}

static int
split(char *line, char **argv)
{
	int argc = 0;
	char *s = line;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return argc;
		if (argc == SHELL_MAX_ARGS)
			return -E2BIG;
		argv[argc++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

/* Split line into argv and find its command (for a module's command,
 * with a reference on the owner: command_put drops it).  NULL with the
 * error reported and in *ret when there is nothing to run (an empty line
 * is *ret 0). */
static const struct command *
line_command(char *line, char **argv, int *argc, int *ret)
{
	const struct command *c;

	*argc = split(line, argv);
	if (*argc == -E2BIG) {
		kprintf("shell: E2BIG: too many arguments (at most %d)\n",
		        SHELL_MAX_ARGS);
		*ret = -E2BIG;
		return NULL;
	}
	*ret = 0;
	if (*argc == 0)
		return NULL;
	argv[*argc] = NULL;
	c = command_get(argv[0], ret);
	if (*ret == -ESRCH) {
		/* the console contract: the line starts with the command */
		kprintf("%s: ESRCH: the module of this command is being "
		        "unloaded\n",
		        argv[0]);
		return NULL;
	}
	if (c == NULL)
		kprintf("shell: ENOENT: unknown command '%s' (try 'help')\n",
		        argv[0]);
	return c;
}

static void
command_put(const struct command *c)
{
	if (c->owner != NULL)
		module_put(c->owner);
}

int
shell_run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS + 1];
	const struct command *c;
	int argc, ret;

	c = line_command(line, argv, &argc, &ret);
	if (c == NULL)
		return ret;
	clear_signal();
	console_set_foreground(current);
	ret = c->fn(argc, argv);
	console_set_foreground(NULL);
	clear_signal();
	command_put(c);
	return ret;
}

int
shell_exec(char *line)
{
	char *argv[SHELL_MAX_ARGS + 1];
	const struct command *c;
	int argc, ret;

	c = line_command(line, argv, &argc, &ret);
	if (c == NULL)
		return ret;
	ret = c->fn(argc, argv);
	command_put(c);
	return ret;
}

/* autorun=: commands run as typed before the first prompt (',' stands
 * for a blank, ';' separates commands): a run that needs no console
 * input at all, e.g. under QEMU record/replay (make replay). */
static char autorun[CONSOLE_LINE_MAX];
BOOTPARAM_STRING(autorun, autorun,
                 "commands to run before the first prompt (',' for a blank, "
                 "';' between commands)",
                 0);

static void
shell_autorun(void)
{
	char *p = autorun, *next;

	for (; *p != '\0'; p = next) {
		next = strchr(p, ';');
		if (next != NULL)
			*next++ = '\0';
		else
			next = p + strlen(p);
		for (char *q = p; *q != '\0'; q++)
			if (*q == ',')
				*q = ' ';
		kprintf("%s%s\n", PROMPT, p);
		shell_run_line(p);
	}
}

void
shell_main(void *arg)
{
	struct console_line line;

	(void)arg;
	shell_autorun();
	for (;;) {
		kputs(PROMPT);
		console_readline(&line);
		if (line.interrupted)
			continue;
		if (line.too_long) {
			kprintf("shell: E2BIG: line too long (at most %d "
			        "characters), ignored\n",
			        CONSOLE_LINE_MAX - 1);
			continue;
		}
		if (line.bad_byte >= 0) {
			kprintf("shell: EINVAL: non-printable byte 0x%02x in "
			        "line, ignored\n",
			        line.bad_byte);
			continue;
		}
		shell_run_line(line.text);
	}
}
