/*
 * The list of modules and the lock that orders their lives.
 *
 * module_mutex serialises every state change (load, the start and end of
 * an unload) and every change of the list and of the dependency lists.
 * rmmod does not hold it while it waits for references to drain, so
 * lsmod, insmod of other modules and Ctrl-C keep working meanwhile.
 * Code that cannot sleep (backtraces, fault reports) walks the list under
 * rcu_read_lock(): a module is unmapped only a grace period after it left
 * the list.
 */
#include <kernel/module.h>
#include <kernel/bootparam.h>
#include <kernel/initcall.h>
#include <kernel/debug/ksyms.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/trap.h>
#include "modloader/module_internal.h"

DEFINE_MUTEX_RANK(module_mutex, LOCK_RANK_MODULE);
LIST_HEAD(modules);

int keep_failed_init;
BOOTPARAM_BOOL(keep_failed_init, keep_failed_init,
               "keep the memory of a module whose init failed (state GONE)", 1);

static bool initialised;

/* The timeline's view of the loaded modules (kernel/debug/trace.h). */
static void
modules_trace_snapshot(bool dump)
{
	struct module *mod;

	rcu_read_lock();
	list_for_each_entry_rcu(mod, &modules, list)
	{
		if (dump)
			kprintf("trace: count mod %s %08x %d\n", mod->name,
			        (unsigned)(uintptr_t)mod, module_refcount(mod));
		else
			trace_mod_phase(mod, "traced");
	}
	rcu_read_unlock();
}

void
modules_init(void)
{
	mutex_lock(&module_mutex);
	if (!initialised) {
		area_init();
		graveyard_init();
		trace_register_snapshot(modules_trace_snapshot);
		initialised = true;
	}
	mutex_unlock(&module_mutex);
}
postcore_initcall(modules_init);

/* For entry points that may run before modules_init (tests). */
void
modules_lazy_init(void)
{
	if (!READ_ONCE(initialised))
		modules_init();
}

struct module *
module_find(const char *name)
{
	struct module *mod;

	list_for_each_entry(mod, &modules, list)
		if (strcmp(mod->name, name) == 0)
			return mod;
	return NULL;
}

/* Caller is in a read-side section or holds module_mutex. */
struct module *
module_by_addr(uintptr_t addr)
{
	struct module *mod;

	if (!area_contains(addr))
		return NULL;
	list_for_each_entry_rcu(mod, &modules, list)
	{
		if (addr >= mod->area && addr < mod->area_end)
			return mod;
	}
	return NULL;
}
