/*
 * failinit: init allocates, takes a reference to itself (legal from its
 * own init) and then fails; the loader must unwind everything, or keep
 * the memory with keep_failed_init=1.
 */
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/errno.h>

static int
failinit_init(void)
{
	void *p = kmalloc(100, "failinit");

	kprintf("failinit: init runs, then fails with ENODEV\n");
	kfree(p);
	return -ENODEV;
}

module_init(failinit_init);
MODULE_DESCRIPTION("init always fails");
