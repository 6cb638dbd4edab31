/*
 * hello: the smallest module.  Prints on init and exit; used by the load
 * and unload scenarios and the 1,000-cycle leak loop (quiet=1).  Its
 * `hello` command shows the owner rule: while a module's command runs,
 * the shell holds a reference on the module (refcount 1 inside it).
 */
#include <kernel/console/args.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/arch/irq.h>
#include <kernel/lib/errno.h>
#include <kernel/lib/string.h>

static bool quiet;
MODULE_PARAM(quiet, BOOL, "print nothing (for load/unload loops)");

static volatile uint32_t hello_data = 1;
static int hello_init(void);

/* "hello poke": the loader maps a module's text read-only once it is
 * relocated, while its data stays writable. */
static int
hello_poke(void)
{
	int text = probe_write32((void *)(uintptr_t)hello_init, 0xcccccccc);
	int data = probe_write32((void *)&hello_data, 2);

	kprintf("hello: write to own text: %s\n",
	        text == 0 ? "ok" : errno_name(text));
	kprintf("hello: write to own data: %s\n",
	        data == 0 ? "ok" : errno_name(data));
	return 0;
}

static int
cmd_hello(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "hello", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	if (a.npos == 1 && strcmp(a.pos[0], "poke") != 0)
		return args_refuse(&a, "unknown action '%s'", a.pos[0]);
	if (a.npos == 1)
		return hello_poke();
	kprintf("hello: command running, refcount %d\n",
	        module_refcount(THIS_MODULE));
	return 0;
}

static struct command hello_cmd = {.name = "hello",
                                   .usage = "hello [poke]",
                                   .help = "say hello from the hello module",
                                   .fn = cmd_hello};

static int
hello_init(void)
{
	command_register(&hello_cmd);
	if (!quiet)
		kprintf("hello: init, refcount %d\n",
		        module_refcount(THIS_MODULE));
	return 0;
}

static void
hello_exit(void)
{
	command_unregister(&hello_cmd);
	if (!quiet)
		kprintf("hello: exit\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_DESCRIPTION("prints on init and exit");
MODULE_LICENSE("MIT");
