/*
 * General shell commands: help, uptime, poweroff, sleep, echo, and crash
 * (which exercises the fault and panic paths on purpose).
 */
#include <kernel/shell.h>
#include <kernel/printk.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <kernel/timer.h>
#include <kernel/string.h>
#include <kernel/errno.h>
#include <kernel/cpu.h>
#include <kernel/kmalloc.h>
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
	if (argc == 2) {
		const struct command *c = command_find(argv[1]);
		if (c == NULL)
			return cmd_error("help", -ENOENT, "no command '%s'",
			                 argv[1]);
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
	uint64_t ms = now_ms();

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

	if (argc > 2)
		return cmd_usage("poweroff");
	if (argc == 2 && (parse_ulong(argv[1], &code) != 0 || code > 0x7f))
		return cmd_error("poweroff", -EINVAL,
		                 "exit code '%s' is not a number 0..127",
		                 argv[1]);
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

	if (argc != 2 || parse_ulong(argv[1], &ms) != 0)
		return cmd_usage("sleep");
	if (msleep_interruptible((unsigned)ms) != 0)
		return cmd_error("sleep", -EINTR, "interrupted");
	return 0;
}
COMMAND(sleep, "sleep MS", "sleep for MS milliseconds (Ctrl-C interrupts)",
        cmd_sleep);

static int
cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
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
	if (argc != 2)
		return cmd_usage("crash");
	if (strcmp(argv[1], "panic") == 0)
		panic("crash command asked for a panic");
	if (strcmp(argv[1], "null") == 0)
		crash_null();
	else if (strcmp(argv[1], "freed") == 0)
		crash_freed();
	else if (strcmp(argv[1], "ud") == 0)
		__asm__ volatile("ud2");
	else if (strcmp(argv[1], "div") == 0) {
		volatile int z = 0;
		kprintf("%d\n", 1 / z);
	} else
		return cmd_error("crash", -EINVAL,
		                 "unknown kind '%s' (panic|null|freed|ud|div)",
		                 argv[1]);
	return 0;
}
COMMAND(crash, "crash panic|null|freed|ud|div",
        "crash the kernel on purpose (tests the fault reports)", cmd_crash);
