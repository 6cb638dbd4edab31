/*
 * The shell loop: read a line, split it into words, run the command in
 * the foreground (Ctrl-C interrupts it), print the prompt again.  Bad
 * lines (too long, non-printable bytes, unknown commands) get one error
 * line and change nothing.
 */
#include <kernel/shell.h>
#include <kernel/console.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/cpu.h>
#include <kernel/string.h>
#include <kernel/errno.h>
#include <kernel/spinlock.h>
#include <stdarg.h>

#define PROMPT "modref> "

extern struct command __commands_start[], __commands_end[];
static LIST_HEAD(dynamic_commands);
static DEFINE_SPINLOCK(commands_lock);

void
command_register(struct command *c)
{
	uint32_t f = spin_lock_irqsave(&commands_lock);
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

const struct command *
command_find(const char *name)
{
	struct command *c;
	uint32_t f;

	for (c = __commands_start; c < __commands_end; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	f = spin_lock_irqsave(&commands_lock);
	list_for_each_entry(c, &dynamic_commands, link) {
		if (strcmp(c->name, name) == 0) {
			spin_unlock_irqrestore(&commands_lock, f);
			return c;
		}
	}
	spin_unlock_irqrestore(&commands_lock, f);
	return NULL;
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
	const struct command *c = command_find(cmd);

	kprintf("%s: EINVAL: usage: %s\n", cmd,
		c != NULL ? c->usage : cmd);
	return -EINVAL;
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

int
shell_run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS + 1];
	const struct command *c;
	int argc, ret;

	argc = split(line, argv);
	if (argc == -E2BIG) {
		kprintf("shell: E2BIG: too many arguments (at most %d)\n",
			SHELL_MAX_ARGS);
		return -E2BIG;
	}
	if (argc == 0)
		return 0;
	argv[argc] = NULL;
	c = command_find(argv[0]);
	if (c == NULL) {
		kprintf("shell: ENOENT: unknown command '%s' (try 'help')\n",
			argv[0]);
		return -ENOENT;
	}
	clear_signal();
	console_set_foreground(current);
	ret = c->fn(argc, argv);
	console_set_foreground(NULL);
	clear_signal();
	return ret;
}

void
shell_main(void *arg)
{
	struct console_line line;

	(void)arg;
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
