/*
 * Module reference counts, two ways (boot parameter modref=):
 *
 *   percpu  (Linux 2.5/2.6)  each CPU counts its own gets and puts with
 *           interrupts off; only the sum means anything.  The unload
 *           check, once the cheap sum says 0, switches the counter to
 *           one atomic (pcpu_counter_kill/settle, kernel/locking/pcpu_counter.h):
 *           after a grace period no getter can be between its LIVE test
 *           and its increment (both run with interrupts off), so the
 *           folded sum is exact, and no CPU is stopped for it.
 *   atomic  (Linux 3.19+)  one counter holding a bias of 1 plus the
 *           references.  try_module_get increments only a nonzero
 *           counter; the unload check swaps bias-and-nothing-else for 0
 *           in one compare-and-swap, after which no get can succeed.
 *
 * Both refuse try_module_get unless the module is LIVE, report
 * __module_get without a reference, and report and undo a module_put
 * below zero.  The implementation is chosen per module when it is
 * loaded, so the suite in test_refcount.c can run both in one boot.
 */
#include <kernel/locking/drain.h>
#include <kernel/debug/fault.h>
#include <kernel/debug/trace.h>
#include <kernel/module.h>
#include <kernel/bootparam.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/pcpu_counter.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/refcount.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>
#include "modloader/module_internal.h"

#define REF_BIAS 1

static int modref_mode; /* 0 percpu, 1 atomic */
BOOTPARAM_ENUM(modref, modref_mode, "percpu|atomic",
               "module refcount implementation (for modules loaded later)", 1);

const struct module_refops *
module_default_refops(void)
{
	return modref_mode == 1 ? &module_refops_atomic : &module_refops_percpu;
}

/* ---- percpu ------------------------------------------------------------ */

static void
pcpu_init(struct module *mod)
{
	pcpu_counter_init(&mod->ref);
}

static bool
pcpu_try_get(struct module *mod)
{
	bool ok = false;
	/* Interrupts off, not just preemption: stop_machine stops CPUs
	 * with an IPI, which must not split the test from the increment. */
	uint32_t f = local_irq_save();

	if (READ_ONCE(mod->state) == MODULE_STATE_LIVE) {
		pcpu_counter_add_irqoff(&mod->ref, 1);
		ok = true;
	}
	local_irq_restore(f);
	return ok;
}

static void
pcpu_get(struct module *mod)
{
	pcpu_counter_add(&mod->ref, 1);
}

static bool
pcpu_put(struct module *mod)
{
	uint32_t f = local_irq_save();
	bool ok = true;

	/* A negative local counter is normal (got on one CPU, put on
	 * another); only a negative sum is an underflow.  The unlocked sum
	 * can be low by a get and put that race with it, so it must be
	 * negative twice before we call it one. */
	pcpu_counter_add_irqoff(&mod->ref, -1);
	if ((mod->ref.dead || mod->ref.cpu[cpu_id()].n < 0) &&
	    pcpu_counter_sum(&mod->ref) < 0) {
		cpu_relax();
		if (pcpu_counter_sum(&mod->ref) < 0) {
			pcpu_counter_add_irqoff(&mod->ref, 1);
			ok = false;
		}
	}
	local_irq_restore(f);
	if (!ok) /* the atomic mode's report, for the per-CPU sum */
		refcount_report(mod->name,
		                "decrement below zero: put one too many", -1);
	return ok;
}

static int
pcpu_count(struct module *mod)
{
	return pcpu_counter_sum(&mod->ref);
}

static int
pcpu_try_release(struct module *mod)
{
	/* Cheap unlocked look first: the switch costs a grace period.  The
	 * module is GOING (no new try_get), so once the folded, exact sum
	 * is 0 it stays 0. */
	if (pcpu_counter_sum(&mod->ref) != 0)
		return -EBUSY;
	if (!mod->ref.dead)
		pcpu_counter_kill(&mod->ref);
	pcpu_counter_settle(&mod->ref);
	return pcpu_counter_sum(&mod->ref) == 0 ? 0 : -EBUSY;
}

static void
pcpu_revive(struct module *mod)
{
	pcpu_counter_revive(&mod->ref);
}

const struct module_refops module_refops_percpu = {
    "percpu", pcpu_init,  pcpu_try_get,     pcpu_get,
    pcpu_put, pcpu_count, pcpu_try_release, pcpu_revive,
};

/* ---- atomic with a bias ------------------------------------------------ */

static void
atomic_init(struct module *mod)
{
	pcpu_counter_init_atomic(&mod->ref, REF_BIAS);
}

static bool
atomic_try_get(struct module *mod)
{
	if (READ_ONCE(mod->state) != MODULE_STATE_LIVE)
		return false;
	/* Not from zero: zero means the unload check has won. */
	return refcount_inc_not_zero(pcpu_counter_shared(&mod->ref), mod->name);
}

static void
atomic_get(struct module *mod)
{
	refcount_inc(pcpu_counter_shared(&mod->ref), mod->name);
}

/* The bias is only ever taken away when no reference is left, so
 * dropping it is always one put too many (reported, not done). */
static bool
atomic_put(struct module *mod)
{
	return refcount_dec_not_one(pcpu_counter_shared(&mod->ref), mod->name);
}

static int
atomic_count(struct module *mod)
{
	int v = refcount_read(pcpu_counter_shared(&mod->ref));

	return v > 0 ? v - REF_BIAS : 0;
}

static int
atomic_try_release(struct module *mod)
{
	return refcount_dec_if_one(pcpu_counter_shared(&mod->ref)) ? 0 : -EBUSY;
}

const struct module_refops module_refops_atomic = {
    "atomic",   atomic_init,  atomic_try_get,     atomic_get,
    atomic_put, atomic_count, atomic_try_release, NULL,
};

/* ---- the API ----------------------------------------------------------- */

/* The timeline (kernel/debug/trace.h): a get after it, a put before it
 * (after it the module may be gone). */
#define trace_mod(kind, mod, t, tag, site, delta)                              \
	TRACE(kind, mod, (mod)->name, t, tag, site, delta,                     \
	      (mod)->refops->count(mod) + ((delta) < 0 ? -1 : 0))

static bool
try_get(struct module *mod)
{
	if (fault_should_fail(FAULT_MODGET))
		return false;
	return mod->refops->try_get(mod);
}

bool
try_module_get_real(struct module *mod)
{
	if (!try_get(mod))
		return false;
	trace_mod(TRACE_MOD_GET, mod, NULL, NULL,
	          (uintptr_t)__builtin_return_address(0), 1);
	return true;
}

void
__module_get(struct module *mod)
{
	if (mod == NULL)
		return;
	/* Legal while holding a reference, or from the module's own init
	 * (COMING, on the thread running it). */
	if (mod->refops->count(mod) <= 0 &&
	    !(READ_ONCE(mod->state) == MODULE_STATE_COMING &&
	      mod->init_thread == current)) {
		__atomic_add_fetch(&mod->bad_gets, 1, __ATOMIC_RELAXED);
		pr_err("module: %s: __module_get without holding a reference "
		       "(state %s)\n",
		       mod->name, module_state_name(mod->state));
		backtrace();
	}
	mod->refops->get(mod);
	trace_mod(TRACE_MOD_GET, mod, NULL, NULL,
	          (uintptr_t)__builtin_return_address(0), 1);
}

static void
put(struct module *mod)
{
	/* A reader section: the put may let rmmod free the module on
	 * another CPU, and we still read mod below (Linux does the same). */
	rcu_read_lock();
	if (!mod->refops->put(mod)) /* reported by the count; ignored */
		__atomic_add_fetch(&mod->underflows, 1, __ATOMIC_RELAXED);
	drain_kick(); /* rmmod may be waiting for this put */
	rcu_read_unlock();
}

void
module_put_real(struct module *mod)
{
	trace_mod(TRACE_MOD_PUT, mod, NULL, NULL,
	          (uintptr_t)__builtin_return_address(0), -1);
	put(mod);
}

int module_track = 2;
BOOTPARAM_INT(module_track, module_track, 0, 2,
              "tracked module references (try_module_get_track): 0 "
              "nothing, 1 tag and call site, 2 also the hold and release "
              "stacks (for modules loaded later)",
              0);

void
module_track_init(struct module *mod)
{
	ref_tracker_dir_init(&mod->holders, module_track, "module_put",
	                     mod->name, "mod->holders.lock");
}

__attribute__((noinline)) bool
__try_module_get_track(struct module *mod, struct ref_tracker *t,
                       const char *tag, uintptr_t caller)
{
	if (mod == NULL)
		return true;
	if (!try_get(mod))
		return false;
	ref_tracker_add(&mod->holders, t, tag, caller, REF_CALLER_FRAME());
	trace_mod(TRACE_MOD_GET, mod, t, tag, caller, 1);
	return true;
}

__attribute__((noinline)) void
module_put_track(struct module *mod, struct ref_tracker *t)
{
	uintptr_t site = (uintptr_t)__builtin_return_address(0);

	if (mod == NULL)
		return;
	if (!ref_tracker_del(&mod->holders, t, site, REF_CALLER_FRAME()))
		return;
	trace_mod(TRACE_MOD_PUT, mod, t, t != NULL ? t->tag : NULL, site, -1);
	put(mod);
}

int
module_refcount(struct module *mod)
{
	return mod == NULL ? 0 : mod->refops->count(mod);
}

const char *
module_state_name(int state)
{
	static const char *const names[] = {"COMING", "LIVE", "GOING", "GONE"};

	return state >= 0 && state <= MODULE_STATE_GONE ? names[state] : "?";
}

void
module_call_guarded(void (*fn)(void *), void *arg)
{
	rcu_read_lock();
	fn(arg);
	rcu_read_unlock();
}

void
module_guarded_thread(void *call)
{
	const struct module_guarded_call *c = call;

	/* *c may be module data: read only inside the section. */
	rcu_read_lock();
	c->fn(c->arg);
	rcu_read_unlock();
}

EXPORT_SYMBOL(try_module_get_real);
EXPORT_SYMBOL(__module_get);
EXPORT_SYMBOL(module_put_real);
EXPORT_SYMBOL(__try_module_get_track);
EXPORT_SYMBOL(module_put_track);
EXPORT_SYMBOL(module_refcount);
EXPORT_SYMBOL(module_state_name);
EXPORT_SYMBOL(module_call_guarded);
EXPORT_SYMBOL(module_guarded_thread);
