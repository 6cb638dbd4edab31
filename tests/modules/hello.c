/*
 * hello: the smallest module.  Prints on init and exit; used by the load
 * and unload scenarios and the 1,000-cycle leak loop (quiet=1).  Its
 * `hello` command shows the owner rule: while a module's command runs,
 * the shell holds a reference on the module (refcount 1 inside it).
 */
#include <kernel/module.h>
#include <kernel/printk.h>
#include <kernel/shell.h>

static bool quiet;
MODULE_PARAM(quiet, BOOL, "print nothing (for load/unload loops)");

static int
cmd_hello(int argc, char **argv)
{
	kprintf("hello: command running, refcount %d\n",
	        module_refcount(THIS_MODULE));
	return 0;
}

static struct command hello_cmd = {.name = "hello",
                                   .usage = "hello",
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
