/*
 * hello: the smallest module.  Prints on init and exit; used by the load
 * and unload scenarios and the 1,000-cycle leak loop (quiet=1).
 */
#include <kernel/module.h>
#include <kernel/printk.h>

static bool quiet;
MODULE_PARAM(quiet, BOOL, "print nothing (for load/unload loops)");

static int
hello_init(void)
{
	if (!quiet)
		kprintf("hello: init, refcount %d\n",
		        module_refcount(THIS_MODULE));
	return 0;
}

static void
hello_exit(void)
{
	if (!quiet)
		kprintf("hello: exit\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_DESCRIPTION("prints on init and exit");
MODULE_LICENSE("MIT");
