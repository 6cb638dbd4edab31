/*
 * do_initcalls: the linker collects the initcall records of each level in
 * its own input section (.initcall.N) and boot/kernel.ld sorts them by
 * name, so one array holds them in level order.
 */
#include <stdbool.h>
#include <kernel/initcall.h>
#include <kernel/debug/panic.h>

extern const struct initcall __initcalls_start[], __initcalls_end[];

void
do_initcalls(void)
{
	static bool done;

	/* Once, from the init thread: a second run would register every
	 * hook and thread twice. */
	BUG_ON(done);
	done = true;
	for (const struct initcall *c = __initcalls_start; c < __initcalls_end;
	     c++)
		c->fn();
}
