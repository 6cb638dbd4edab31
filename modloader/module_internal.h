/*
 * What the files of the module layer share (kernel side).  Not for
 * modules: they use kernel/module.h.
 *
 *   module.c     the module list, module_mutex, boot init, lookups
 *   refcount.c   the two refcount implementations (modref=percpu|atomic)
 *   area.c       the module area: address allocation and page mapping
 *   load.c       the insmod pipeline
 *   byname.c     which file a name or alias means (modloader/load.h)
 *   symbols.c    export tables, symbol resolution, dependencies
 *   params.c     module parameters (insmod NAME k=v)
 *   unload.c     rmmod: GOING, waiting, exit, grace period, unmap
 *   hooks.c      unload policies and refs hooks of the layers above
 *   graveyard.c  symbol tables of unloaded modules, use-after-unload
 *                reports, backtrace symbolization
 *   cmd_*.c      the console commands
 *
 * Lock order (kernel/locking/lockorder.h, checked at run time):
 *
 *   module_mutex   every module state change, the module list; taken
 *                  first: the net core's rtnl (and everything below it)
 *                  may be taken under it, never the other way round
 *   grave_lock     (graveyard.c) a leaf spinlock
 *
 * rmmod runs a module's quiesce, can_unload, resume and exit hooks, and
 * waits, without module_mutex (hooks take rtnl; the wait sleeps).
 */
#ifndef MODLOADER_MODULE_INTERNAL_H
#define MODLOADER_MODULE_INTERNAL_H

#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/debug/trace.h>
#include <kernel/locking/ref_tracker.h>

/* The timeline (kernel/debug/trace.h): a load or unload phase of mod,
 * with its count. */
#define trace_mod_phase(mod, phase)                                            \
	TRACE(TRACE_MOD_PHASE, mod, (mod)->name, NULL, phase, REF_THIS_IP, 0,  \
	      (mod)->refops != NULL ? (mod)->refops->count(mod) : 0)

#define MODULE_TAG "module"

/* The refcount implementation of one module (chosen at load time). */
struct module_refops {
	const char *name;
	void (*init)(struct module *mod); /* count 0, ready for LIVE */
	bool (*try_get)(struct module *mod);
	void (*get)(struct module *mod);
	/* Drop one; returns false (and changes nothing) on underflow. */
	bool (*put)(struct module *mod);
	int (*count)(struct module *mod); /* snapshot */
	/* The unload check, with the module GOING: 0 if no reference is
	 * left and none can be taken any more, else -EBUSY. */
	int (*try_release)(struct module *mod);
	/* The unload was rolled back (LIVE again): undo what try_release
	 * changed about counting.  NULL: nothing to undo. */
	void (*revive)(struct module *mod);
};

extern const struct module_refops module_refops_percpu;
extern const struct module_refops module_refops_atomic;
const struct module_refops *module_default_refops(void);

/* module.c: the list (all states but GONE-and-freed), and its mutex,
 * which serialises every state change and every list change.  Readers
 * that cannot sleep (backtraces, fault reports) walk the list under
 * rcu_read_lock: an entry is unmapped only a grace period after it left
 * the list. */
extern struct mutex module_mutex;
extern struct list_head modules;
extern int keep_failed_init;
struct module *module_find(const char *name); /* mutex held */
/* Boot (postcore_initcall): the module area's page tables and the
 * graveyard; modules_lazy_init for entry points that may run earlier. */
void modules_init(void);
void modules_lazy_init(void);

/* area.c */
struct module_area {
	uintptr_t start; /* header page (struct module) */
	uintptr_t end;   /* end of the image */
};
int area_alloc(uint32_t image_size, struct module_area *a);
/* Map the pages (writable), zeroed. */
int area_map(const struct module_area *a);
/* Make [start, end) read-only. */
void area_protect_ro(uintptr_t start, uintptr_t end);
/* Unmap and free every page, then forget the range (the cursor never
 * goes back, so the addresses stay unused as long as possible). */
void area_unmap_free(const struct module_area *a);
void area_init(void);
bool area_contains(uintptr_t addr);

/* symbols.c */
const struct kernel_symbol *kernel_symbol_find(const char *name);
/* A symbol exported by a LIVE module (mutex held). */
const struct kernel_symbol *module_symbol_find(const char *name,
                                               struct module **owner);
int module_add_use(struct module *user, struct module *target);
void module_drop_uses(struct module *mod);
/* "a, b" into buf: the modules using mod. */
void module_used_by(struct module *mod, char *buf, size_t size)
    REQUIRES(module_mutex);

/* A NUL-terminated string of at most max bytes wholly inside mod's
 * image?  (For pointers read out of module tables.) */
static inline bool
module_image_string(const struct module *mod, const char *p, size_t max)
{
	uintptr_t a = (uintptr_t)p, end = mod->base + mod->size;

	if (a < mod->base || a >= end)
		return false;
	for (size_t i = 0; i < max && a + i < end; i++)
		if (p[i] == '\0')
			return i > 0;
	return false;
}

/* params.c */
int module_params_check(struct module *mod, char *err, size_t errlen);
int module_params_apply(struct module *mod, int argc, char **argv, char *err,
                        size_t errlen);
const char *module_param_type_name(uint32_t t);
void module_param_format(const struct module_param *p, char *buf, size_t size);

/* load.c / unload.c */
struct elf_mod;
int module_read_modinfo(const struct elf_mod *em, const char **info,
                        uint32_t *size, char *name, char *err, size_t errlen);
/* Load boot module name; on success modname (MODULE_NAME_LEN bytes, may
 * be NULL) gets the module's own name. */
/* byname.c: the name of the loaded module that came from bm, or NULL
 * (module_mutex held). */
struct boot_module;
const char *module_loaded_from(const struct boot_module *bm);
int module_load(const char *name, int argc, char **argv, char *modname,
                char *err, size_t errlen);
/* hooks.c: call the hooks of kernel/module.h.  The policies: first
 * nonzero wins (module_mutex held, mod LIVE).  The refs hooks: 0 if one
 * showed name (NULL: all called), else -ENOENT (module_mutex not held). */
int module_unload_policy_check(struct module *mod, char *why, size_t size);
int refs_show_hooks(const char *name);

#define RMMOD_NOWAIT 1
#define RMMOD_FORCE  2
#define RMMOD_QUIET  4 /* no success line */
int module_unload(const char *name, int flags);
void modref_gdb_module_loaded(struct module *mod);
/* Free everything of a module no longer on the list (after the grace
 * period): its image, its area, its kernel copies. */
void module_free(struct module *mod);
/* Unlist, grace period, graveyard, free; module_mutex held, then dropped. */
void module_teardown_locked(struct module *mod) RELEASE(module_mutex);

/* graveyard.c */
void graveyard_add(const struct module *mod);
void graveyard_init(void);

#endif
