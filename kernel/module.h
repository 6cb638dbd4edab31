/*
 * Loadable modules: the API shared by the kernel and by modules.
 *
 * A module is an ELF relocatable object (docs/module-format.md) that
 * declares itself with the macros below and reaches the kernel as a
 * multiboot module; `insmod NAME` loads it (modloader/load.c).  Its life:
 *
 *   COMING  loaded and relocated, init running; try_module_get fails,
 *           only init itself may take references (__module_get)
 *   LIVE    init succeeded; references come and go
 *   GOING   rmmod started: try_module_get fails, rmmod waits for the
 *           count to drain (Ctrl-C returns the module to LIVE)
 *   GONE    exit ran and the memory is unmapped (or, with
 *           keep_failed_init, init failed and the memory is kept)
 *
 * Rules for callers:
 *  - Whoever calls into a module through an ops table takes the module
 *    reference first (try_module_get(ops->owner)) and drops it after the
 *    call returns, in kernel text.  A module never pins itself: code that
 *    runs after its own last module_put must run inside an RCU read-side
 *    section that kernel text opened (module_call_guarded), because rmmod
 *    only waits for a grace period before unmapping.
 *  - __module_get is for callers that already hold a reference; it
 *    reports (with a backtrace) a caller that does not.
 *  - module_put below zero is reported and undone, never silently wraps.
 *
 * docs/modules.md describes the lifecycle, the two refcount
 * implementations (modref=percpu|atomic) and how rmmod waits.
 */
#ifndef KERNEL_MODULE_H
#define KERNEL_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/arch/cpu.h>
#include <kernel/locking/pcpu_counter.h>
#include <kernel/lib/list.h>
#include <kernel/locking/ref_tracker.h>
#include <kernel/locking/refcount.h>

#define MODULE_NAME_LEN 32

enum module_state {
	MODULE_STATE_COMING,
	MODULE_STATE_LIVE,
	MODULE_STATE_GOING,
	MODULE_STATE_GONE,
};

/* One exported symbol: the kernel's __ksymtab and each module's. */
struct kernel_symbol {
	const void *value;
	const char *name;
};

enum module_param_type {
	MODULE_PARAM_INT = 1,
	MODULE_PARAM_UINT = 2,
	MODULE_PARAM_BOOL = 3,
	MODULE_PARAM_STRING = 4, /* a char array, NUL-terminated */
};

/* One parameter (section __param); insmod NAME var=value sets it. */
struct module_param {
	const char *name;
	const char *desc;
	void *var;
	uint32_t type; /* enum module_param_type */
	uint32_t size; /* sizeof the variable */
};

/* A loaded section, for modinfo and the gdb script. */
struct module_section {
	const char *name;
	uintptr_t addr;
	uint32_t size;
};

/* A function of the module, for backtraces (sorted by addr). */
struct module_sym {
	uintptr_t addr;
	uint32_t size;
	uint32_t name; /* offset in the module's symbol name blob */
};

struct module_refops;

/*
 * The kernel's record of a loaded module.  It lives in the first page of
 * the module's range in the module area, so a stale pointer to it faults
 * (and is reported) once the module is gone, like one into its code.
 * Modules see their own as THIS_MODULE and touch only name and state.
 */
/* Every module state change (modloader/module.c); named here for the
 * legend below, taken by the loader only. */
extern struct mutex module_mutex;

/* The legend: which lock guards each field (GUARDED_BY ones checked by
 * make lint); fields set by the loader before the module is listed and
 * never changed after are immutable. */
struct module {
	char name[MODULE_NAME_LEN]; /* immutable */
	/* enum module_state: changed under module_mutex, read without it
	 * (try_module_get's LIVE test, ordered by the count: refcount.c) */
	volatile int state;
	/* RCU: all modules; writers hold module_mutex, readers
	 * (module_by_addr, the hang dump) may not */
	struct list_head list;

	/* References: the implementation is chosen at load time. */
	const struct module_refops *refops;
	/* one counter, its mode chosen with refops: per-CPU deltas
	 * (percpu) or a shared count of a bias and the references (atomic) */
	struct pcpu_counter ref;
	volatile int underflows; /* module_put below zero */
	volatile int bad_gets;   /* __module_get without a reference */
	/* the references taken with try_module_get_track, at the
	 * module_track level of the load (kernel/locking/ref_tracker.h) */
	struct ref_tracker_dir holders;
	struct thread *init_thread; /* running init (COMING only) */

	/* Memory: [area, area_end) is this page plus the image. */
	uintptr_t area, area_end;
	uintptr_t base; /* image */
	uint32_t size, text_size, ro_size;

	/* Entry points (NULL if absent), all inside the module's text. */
	int (*init)(void);
	void (*exit)(void);
	int (*can_unload)(char *reason, size_t size);
	void (*quiesce)(void);
	void (*resume)(void);
	int (*force)(char *msg, size_t size);
	void (*status)(char *buf, size_t size);

	/* Tables inside the image, validated at load. */
	const struct kernel_symbol *syms;
	unsigned nsyms;
	const struct module_param *params;
	unsigned nparams;

	/* Kernel copies (tag "module"). */
	struct module_section *sections;
	unsigned nsections;
	struct module_sym *symtab;
	unsigned nsymtab;
	const char *symnames;
	char *modinfo; /* "key=value\0" strings */
	uint32_t modinfo_size;

	/* struct module_use: modules we use, and modules using us */
	struct list_head uses GUARDED_BY(module_mutex);
	struct list_head used_by GUARDED_BY(module_mutex);

	char file[64]; /* boot module it came from */
	int init_ret;
	uint64_t loaded_ms;
};

/* A dependency: user resolved symbols against target. */
struct module_use {
	struct list_head uses_link;    /* in user->uses */
	struct list_head used_by_link; /* in target->used_by */
	struct module *user, *target;
};

/* ---- references -------------------------------------------------------- */

/* The two below for a loaded module (mod != NULL). */
bool try_module_get_real(struct module *mod);
void module_put_real(struct module *mod);

/* Take a reference unless the module is not LIVE.  NULL is the kernel
 * itself: always succeeds, and inline, since built-in owners (IPv4,
 * UDP) are asked on every packet. */
static inline bool
try_module_get(struct module *mod)
{
	return mod == NULL || try_module_get_real(mod);
}

/* Take another reference while holding one (or from the module's own
 * init).  Reported if the caller holds none. */
void __module_get(struct module *mod);

static inline void
module_put(struct module *mod)
{
	if (mod != NULL)
		module_put_real(mod);
}
/* A reference a holder keeps (a socket its protocol's module): taken
 * with a tracker in the holder's object, so `refs MODULE` and a waiting
 * rmmod name it with its hold stack, and a second put through the same
 * tracker (or one after the tracker was freed) is reported with the
 * stacks and not applied (kernel/locking/ref_tracker.h).  Short references (a
 * packet's, a command's) use the plain calls: not listed, not counted
 * as tracked.  NULL is the kernel: always succeeds, nothing listed. */
#define try_module_get_track(mod, t, tag)                                      \
	__try_module_get_track(mod, t, tag, REF_THIS_IP)
bool __try_module_get_track(struct module *mod, struct ref_tracker *t,
                            const char *tag, uintptr_t caller);
void module_put_track(struct module *mod, struct ref_tracker *t);
/* The holders' list (at load, and by tests building a module). */
void module_track_init(struct module *mod);

/* Current count (a snapshot; exact only when nothing races). */
int module_refcount(struct module *mod);
const char *module_state_name(int state);

static inline const char *
module_name(const struct module *mod)
{
	return mod != NULL ? mod->name : "kernel";
}

/* Call fn(arg) inside an RCU read-side section opened and closed in
 * kernel text.  fn must not sleep.  Module code in fn may drop its own
 * module's last reference and keep running until fn returns: rmmod's
 * synchronize_rcu() waits for that before it unmaps the module. */
void module_call_guarded(void (*fn)(void *), void *arg);
/* A thread function for thread_create(): runs call->fn(call->arg) through
 * module_call_guarded, so the thread starts and ends in kernel text. */
struct module_guarded_call {
	void (*fn)(void *);
	void *arg;
};
void module_guarded_thread(void *call);

/* The module whose image contains addr, or NULL (no reference taken). */
struct module *module_by_addr(uintptr_t addr);

/* ---- hooks for the layers above the module loader ----------------------
 *
 * The loader knows nothing above it: a layer that must take part in
 * rmmod or `refs` registers a hook.  Each list has any number of
 * subscribers, called in registration order.  Register and unregister
 * at any time, from thread context: unregister waits for a call in
 * progress, so once it returns the hook's code and data may go (a module
 * unregisters in its exit).  A hook must not register or unregister
 * hooks (asserted).
 *
 * Unload policies: rmmod asks each one before anything else; the first
 * nonzero result (a -errno, with a reason in why) refuses the unload at
 * once (refmode=pinned: EPERM).  A policy runs with module_mutex held
 * and the module LIVE (both asserted): it must not sleep on anything that
 * waits for module_mutex (no insmod, rmmod or module lookup).
 *
 * refs hooks: `refs NAME` asks each until one returns 0 (it showed an
 * object of that name, a network device); -ENOENT means "none of that
 * name".  `refs` with no name calls every hook with NULL after listing
 * the modules.  A refs hook runs without module_mutex (asserted): it may
 * sleep and take its own locks (rtnl). */
struct module_unload_policy {
	int (*check)(struct module *mod, char *why, size_t size);
	struct list_head link; /* private to the loader */
};
void module_unload_policy_register(struct module_unload_policy *p);
void module_unload_policy_unregister(struct module_unload_policy *p);

struct refs_show_hook {
	int (*show)(const char *name);
	struct list_head link; /* private to the loader */
};
void refs_show_hook_register(struct refs_show_hook *h);
void refs_show_hook_unregister(struct refs_show_hook *h);

/* ---- declaring a module ------------------------------------------------ */

#define __MODULE_CAT2(a, b) a##b
#define __MODULE_CAT(a, b)  __MODULE_CAT2(a, b)
#define __MODULE_UNIQUE(p)  __MODULE_CAT(p, __COUNTER__)

/* Export sym to modules (and, from a module, to modules loaded later). */
#define EXPORT_SYMBOL(sym)                                                     \
	static const char __kstrtab_##sym[]                                    \
	    __attribute__((section(".rodata.kstrtab"), used, aligned(1))) =    \
	        #sym;                                                          \
	static const struct kernel_symbol __ksymtab_##sym                      \
	    __attribute__((section("__ksymtab"), used, aligned(4))) = {        \
	        (const void *)&sym, __kstrtab_##sym}

#ifdef MODULE

extern struct module __this_module; /* resolved by the loader */
#define THIS_MODULE (&__this_module)

/* "key=value" strings in .modinfo, read before anything is loaded. */
#define MODULE_INFO(tag, info)                                                 \
	static const char __MODULE_UNIQUE(__modinfo_)[]                        \
	    __attribute__((section(".modinfo"), used, aligned(1))) =           \
	        #tag "=" info

#ifdef KBUILD_MODNAME
MODULE_INFO(name, KBUILD_MODNAME);
#endif

/* Entry points are found by these fixed symbol names. */
#define module_init(fn)                                                        \
	static inline int (*__module_init_check(void))(void)                   \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	int __module_init(void) __attribute__((alias(#fn)))
#define module_exit(fn)                                                        \
	static inline void (*__module_exit_check(void))(void)                  \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	void __module_exit(void) __attribute__((alias(#fn)))
/* int fn(char *reason, size_t size): 0 lets rmmod go on; -EBUSY with a
 * reason vetoes (rmmod keeps waiting, rmmod -n fails with the reason). */
#define MODULE_CAN_UNLOAD(fn)                                                  \
	static inline int (*__module_cu_check(void))(char *, size_t)           \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	int __module_can_unload(char *, size_t) __attribute__((alias(#fn)))
/* void fn(void): rmmod began: stop taking new work. */
#define MODULE_QUIESCE(fn)                                                     \
	static inline void (*__module_q_check(void))(void)                     \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	void __module_quiesce(void) __attribute__((alias(#fn)))
/* void fn(void): rmmod was interrupted: undo quiesce, work as before. */
#define MODULE_RESUME(fn)                                                      \
	static inline void (*__module_r_check(void))(void)                     \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	void __module_resume(void) __attribute__((alias(#fn)))
/* int fn(char *msg, size_t size): rmmod -f: drop what holds the module. */
#define MODULE_FORCE(fn)                                                       \
	static inline int (*__module_f_check(void))(char *, size_t)            \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	int __module_force(char *, size_t) __attribute__((alias(#fn)))
/* void fn(char *buf, size_t size): what rmmod is waiting for. */
#define MODULE_UNLOAD_STATUS(fn)                                               \
	static inline void (*__module_s_check(void))(char *, size_t)           \
	{                                                                      \
		return fn;                                                     \
	}                                                                      \
	void __module_status(char *, size_t) __attribute__((alias(#fn)))

#define __MODULE_PARAM_CTYPE_INT  int
#define __MODULE_PARAM_CTYPE_UINT unsigned int
#define __MODULE_PARAM_CTYPE_BOOL bool

/* MODULE_PARAM(var, INT|UINT|BOOL, "desc"); MODULE_PARAM_STRING(buf,
 * "desc") for a char array. */
#define MODULE_PARAM(var, type, desc)                                          \
	_Static_assert(__builtin_types_compatible_p(                           \
	                   __typeof__(var), __MODULE_PARAM_CTYPE_##type),      \
	               #var " is not a " #type " parameter");                  \
	static const struct module_param __param_##var                         \
	    __attribute__((section("__param"), used, aligned(4))) = {          \
	        #var, desc, &var, MODULE_PARAM_##type, sizeof(var)}
#define MODULE_PARAM_STRING(var, desc)                                         \
	_Static_assert(                                                        \
	    __builtin_types_compatible_p(__typeof__(var), char[sizeof(var)]),  \
	    #var " is not a char array");                                      \
	static const struct module_param __param_##var                         \
	    __attribute__((section("__param"), used, aligned(4))) = {          \
	        #var, desc, var, MODULE_PARAM_STRING, sizeof(var)}

#define MODULE_DESCRIPTION(d) MODULE_INFO(description, d)
#define MODULE_AUTHOR(a)      MODULE_INFO(author, a)
#define MODULE_LICENSE(l)     MODULE_INFO(license, l)

#else /* !MODULE: built into the kernel */

#define THIS_MODULE ((struct module *)0)

#endif

#endif /* KERNEL_MODULE_H */
