/*
 * General shell commands: help, uptime, poweroff, sleep, echo, and crash
 * (which exercises the fault and panic paths on purpose).
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/cpu.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>

static void
help_line(const struct command *c, void *arg)
{
	(void)arg;
	if (c->owner != NULL)
		kprintf("  %-34s %s [%s]\n", c->usage, c->help,
		        module_name(c->owner));
	else
		kprintf("  %-34s %s\n", c->usage, c->help);
}

static int
cmd_help(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "help", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	if (a.npos == 1) {
		const struct command *c = command_find(a.pos[0]);
		if (c == NULL)
			return cmd_error("help", -ENOENT, "no command '%s'",
			                 a.pos[0]);
		kprintf("usage: %s\n  %s\n", c->usage, c->help);
		return 0;
	}
	command_for_each(help_line, NULL);
	return 0;
}
COMMAND(help, "help [COMMAND]", "list commands, or describe one", cmd_help);

static int
cmd_uptime(int argc, char **argv)
{
	struct args a;
	uint64_t ms;

	if (args_parse(&a, "uptime", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	ms = now_ms();
	kprintf("up %u.%03u s, %d cpu(s), %d thread(s)\n",
	        (unsigned)(ms / 1000), (unsigned)(ms % 1000), nr_cpus,
	        nr_threads());
	return 0;
}
COMMAND(uptime, "uptime", "time since boot", cmd_uptime);

static int
cmd_poweroff(int argc, char **argv)
{
	unsigned long code = EXIT_SUCCESS_CODE;
	struct args a;

	if (args_parse(&a, "poweroff", argc, argv, "", 0, 1) < 0 ||
	    (a.npos == 1 && args_num(&a, "CODE", a.pos[0], 0, 0x7f, &code) < 0))
		return -EINVAL;
	kprintf("poweroff: exiting with code %lu\n", code);
	machine_exit((int)code);
}
COMMAND(poweroff, "poweroff [CODE]",
        "leave QEMU (isa-debug-exit; status = 2*CODE+1, default 0x10: success)",
        cmd_poweroff);

static int
cmd_sleep(int argc, char **argv)
{
	unsigned long ms;
	struct args a;

	if (args_parse(&a, "sleep", argc, argv, "", 1, 1) < 0 ||
	    args_num(&a, "MS", a.pos[0], 0, 3600000, &ms) < 0)
		return -EINVAL;
	if (msleep_interruptible((unsigned)ms) != 0)
		return cmd_error("sleep", -EINTR, "interrupted");
	return 0;
}
COMMAND(sleep, "sleep MS", "sleep for MS milliseconds (Ctrl-C interrupts)",
        cmd_sleep);

static int
cmd_echo(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "echo", argc, argv, "", 0, ARGS_ANY) < 0)
		return -EINVAL;
	for (int i = 0; i < a.npos; i++)
		kprintf("%s%s", a.pos[i], i + 1 < a.npos ? " " : "");
	kprintf("\n");
	return 0;
}
COMMAND(echo, "echo [WORD...]", "print the words", cmd_echo);

/* Reached through a volatile pointer so the compiler cannot see that the
 * address is bogus (and warn, or fold the access away). */
static volatile uintptr_t crash_addr = 0x10;

static void __attribute__((noinline)) crash_null(void)
{
	*(volatile uint32_t *)crash_addr = 1;
}

/* A read through a pointer loaded from a freed object: kmalloc poisoned
 * it, so the pointer is 0x6b6b6b6b and the read faults near it. */
struct crash_obj {
	uint32_t pad[20];
	struct crash_obj *next;
	uint32_t val;
};

static void __attribute__((noinline)) crash_freed(void)
{
	struct crash_obj *o = kzalloc(sizeof(*o), "crash");
	struct crash_obj *volatile stale = o; /* hides the free from gcc */

	if (o == NULL)
		return;
	o->next = o;
	kfree(o);
	kprintf("%u\n", stale->next->val);
}

static int
cmd_crash(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "crash", argc, argv, "", 1, 1) < 0)
		return -EINVAL;
	if (strcmp(a.pos[0], "panic") == 0)
		panic("crash command asked for a panic");
	if (strcmp(a.pos[0], "null") == 0)
		crash_null();
	else if (strcmp(a.pos[0], "freed") == 0)
		crash_freed();
	else if (strcmp(a.pos[0], "ud") == 0)
		__asm__ volatile("ud2");
	else if (strcmp(a.pos[0], "div") == 0) {
		volatile int z = 0;
		kprintf("%d\n", 1 / z);
	} else
		return args_refuse(&a, "unknown kind '%s'", a.pos[0]);
	return 0;
}
COMMAND(crash, "crash panic|null|freed|ud|div",
        "crash the kernel on purpose (tests the fault reports)", cmd_crash);
