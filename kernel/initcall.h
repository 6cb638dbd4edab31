/*
 * Initcalls: a subsystem announces its boot-time setup next to its code,
 * and the init thread runs every initcall once, level by level, before the
 * shell starts.  kernel/main.c names no subsystem.
 *
 *   core_initcall      kernel services the rest may use (kfence)
 *   postcore_initcall  the module loader (module area, graveyard)
 *   bus_initcall       buses: PCI is scanned
 *   subsys_initcall    subsystems drivers register with (net core)
 *   proto_initcall     protocols on top of a subsystem (IPv4)
 *   device_initcall    devices found on the buses get drivers (autoload)
 *   late_initcall      after everything: the boot-time KTAP run (ktest=)
 *
 * Within a level, initcalls run in link order (Makefile KDIRS, then file
 * name): do not rely on it; if B needs A, put B a level higher.  An
 * initcall runs in the init thread (it may sleep), one at a time, and
 * reports its own failures: there is no return value to ignore.
 */
#ifndef KERNEL_INITCALL_H
#define KERNEL_INITCALL_H

struct initcall {
	void (*fn)(void);
	const char *name;
};

#define __INITCALL(fn, lvl)                                                    \
	static const struct initcall __initcall_##fn __attribute__((           \
	    section(".initcall." #lvl), used, aligned(4))) = {fn, #fn}

#define core_initcall(fn)     __INITCALL(fn, 1)
#define postcore_initcall(fn) __INITCALL(fn, 2)
#define bus_initcall(fn)      __INITCALL(fn, 3)
#define subsys_initcall(fn)   __INITCALL(fn, 4)
#define proto_initcall(fn)    __INITCALL(fn, 5)
#define device_initcall(fn)   __INITCALL(fn, 6)
#define late_initcall(fn)     __INITCALL(fn, 7)

/* Run every initcall, in level order (the init thread, once). */
void do_initcalls(void);

#endif
