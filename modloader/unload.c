/*
 * rmmod: take a module from LIVE to GONE without ever leaving a CPU in
 * its code or a pointer to its memory that nobody checks.
 *
 *   1. refuse at once if other modules use it, or it is not LIVE
 *   2. GOING: from now on try_module_get fails
 *   3. -f: the module's force hook; then its quiesce hook
 *   4. wait (drain_wait): ask can_unload (the module's veto, with a
 *      reason) and the refcount implementation's unload check each time
 *      a module_put or dev_put kicks the drain; print what is left once
 *      a second; Ctrl-C calls resume and makes it LIVE again
 *   5. exit; off the list; synchronize_rcu() so that every CPU has left
 *      any read-side section that might still be running module code
 *      (module_put's own tail, module_call_guarded callers)
 *   6. symbols to the graveyard, pages unmapped and freed, the address
 *      range quarantined (area.c)
 *
 * -n never waits: the first veto or a nonzero count is EBUSY with the
 * reason, and the module stays LIVE.  If both are clear, the quiesce hook
 * runs and they are asked once more (a reference may have been taken in
 * between); busy then is EBUSY too, after the resume hook.
 *
 * Whoever holds module_mutex sees a state nobody else changes: every
 * state change is made under it.  A module is GOING from begin until the
 * same hold of the mutex that makes it GONE unlists it, so a second rmmod
 * finds it GOING (EBUSY) or not at all (ENOENT).  On a rollback the
 * resume hook runs before the module is LIVE again.
 */
#include <kernel/locking/drain.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/errno.h>
#include "modloader/module_internal.h"

#define REASON_MAX 128

static int
rm_error(const char *name, int err, const char *msg)
{
	kprintf("rmmod: %s: %s: %s\n", name, errno_name(err), msg);
	return err;
}

/* Every state change is made under module_mutex, so that whoever holds it
 * sees a state that cannot change under it. */
static void
set_state(struct module *mod, int state)
{
	ASSERT(mutex_held(&module_mutex));
	__atomic_store_n(&mod->state, state, __ATOMIC_SEQ_CST);
}

/* Why mod cannot go right now: "" if it can (veto and count both clear).
 * With release, the count is also released when it returns "" (the
 * refcount implementation's unload check: no reference can be taken any
 * more); without, the count is only looked at and nothing changes. */
static void
busy_reason(struct module *mod, bool release, char *buf, size_t size)
{
	char why[REASON_MAX] = "", st[REASON_MAX] = "";
	int n;

	if (mod->can_unload != NULL && mod->can_unload(why, sizeof(why)) != 0) {
		if (why[0] == '\0')
			strlcpy(why, "the module vetoes unloading",
			        sizeof(why));
	} else if (release ? mod->refops->try_release(mod) == 0
	                   : module_refcount(mod) == 0) {
		buf[0] = '\0';
		return;
	}
	if (mod->status != NULL)
		mod->status(st, sizeof(st));
	n = module_refcount(mod);
	snprintf(buf, size, "refcount %d%s%s%s%s", n, why[0] ? "; " : "", why,
	         st[0] ? "; " : "", st);
}

/* Undo steps 2 and 3 of a module whose count was not released: resume
 * first, LIVE after, so that a LIVE module is always a working one (its
 * devices registered again, its sockets accepted). */
static void
rollback(struct module *mod)
{
	ASSERT(!mutex_held(&module_mutex));
	ASSERT(mod->state == MODULE_STATE_GOING);
	trace_mod_phase(mod, "rollback");
	if (mod->resume != NULL)
		mod->resume();
	if (mod->refops->revive != NULL)
		mod->refops->revive(mod);
	race_point("rmmod-abandon");
	mutex_lock(&module_mutex);
	set_state(mod, MODULE_STATE_LIVE);
	mutex_unlock(&module_mutex);
}

static int
abandon(struct module *mod)
{
	rollback(mod);
	return rm_error(mod->name, -EINTR,
	                "unload abandoned, module is LIVE again");
}

/* rmmod -n past begin(): the module looked free, but until its hooks
 * have run, references can still be taken (a device lookup does not
 * check the module's state).  Quiesce, then check once more: free now
 * is free for good; otherwise back to LIVE.  Never waits. */
static int
nowait_quiesced(struct module *mod)
{
	char why[2 * REASON_MAX];

	race_point("rmmod-checked");
	if (mod->quiesce != NULL)
		mod->quiesce();
	busy_reason(mod, true, why, sizeof(why));
	if (why[0] == '\0')
		return 0;
	rollback(mod);
	return rm_error(mod->name, -EBUSY, why);
}

/* Step 4, through drain_wait (kernel/locking/drain.h): woken by module_put and
 * dev_put, and once a second for the progress line. */
struct release_wait {
	struct module *mod;
	char why[2 * REASON_MAX];
};

static bool
released(void *arg)
{
	struct release_wait *w = arg;

	busy_reason(w->mod, true, w->why, sizeof(w->why));
	return w->why[0] == '\0';
}

static void
release_report(void *arg, unsigned seconds)
{
	struct release_wait *w = arg;

	trace_mod_phase(w->mod, "waiting-report");
	kprintf("rmmod: %s: waiting %u s: %s (Ctrl-C aborts)\n", w->mod->name,
	        seconds, w->why);
	/* who holds it, where the holders took their references */
	if (!list_empty(&w->mod->holders.list))
		ref_tracker_print(&w->mod->holders, "  ");
}

/* 0 once released, -EINTR after Ctrl-C (module LIVE again).  The clock
 * starts after quiesce, so a device's own once-a-second line (printed
 * from can_unload) is due no later than ours and comes first. */
static int
wait_released(struct module *mod)
{
	struct release_wait w = {.mod = mod};
	struct drain d = {.done = released,
	                  .report = release_report,
	                  .arg = &w,
	                  .interruptible = true,
	                  .what = "rmmod",
	                  .name = mod->name};

	trace_mod_phase(mod, "wait");
	if (drain_wait(&d) != 0)
		return abandon(mod);
	trace_mod_phase(mod, "waited");
	return 0;
}

/* Steps 5 and 6, for a module whose references are gone (or a GONE one
 * whose init failed): unlist it, wait for a grace period (nobody can
 * still run its code or read its data), keep its symbols in the
 * graveyard, free it.  Called with module_mutex held, which it drops. */
void
module_teardown_locked(struct module *mod)
{
	ASSERT(mod->state == MODULE_STATE_GONE);
	/* Not list_del_init: a lockless reader (module_by_addr) standing
	 * on the entry must still reach the end of the list. */
	list_del_rcu(&mod->list);
	module_drop_uses(mod);
	mutex_unlock(&module_mutex);
	synchronize_rcu_expedited();
	graveyard_add(mod);
	mutex_lock(&module_mutex);
	trace_mod_phase(mod, "free");
	module_free(mod);
	mutex_unlock(&module_mutex);
}

/* Steps 1 and 2, mutex held: 0 with mod GOING, 1 if it is a kept failed
 * module to free (the caller tears it down before it drops the mutex),
 * or -errno (reported). */
static int
begin(struct module *mod, int flags) REQUIRES(module_mutex)
{
	char why[2 * REASON_MAX];

	mutex_assert_held(&module_mutex);
	switch (mod->state) {
	case MODULE_STATE_GONE:
		return 1;
	case MODULE_STATE_COMING:
		return rm_error(mod->name, -EBUSY, "still initialising");
	case MODULE_STATE_GOING:
		return rm_error(mod->name, -EBUSY, "already being unloaded");
	}
	{
		int r = module_unload_policy_check(mod, why, sizeof(why));
		if (r < 0)
			return rm_error(mod->name, r, why);
	}
	if (!list_empty(&mod->used_by)) {
		char users[REASON_MAX];
		module_used_by(mod, users, sizeof(users));
		snprintf(why, sizeof(why), "used by %s", users);
		return rm_error(mod->name, -EBUSY, why);
	}
	set_state(mod, MODULE_STATE_GOING);
	trace_mod_phase(mod, "going");
	if (flags & RMMOD_NOWAIT) {
		/* A look only: a busy module is left alone (no hook runs). */
		busy_reason(mod, false, why, sizeof(why));
		if (why[0] != '\0') {
			set_state(mod, MODULE_STATE_LIVE);
			return rm_error(mod->name, -EBUSY, why);
		}
	}
	return 0;
}

int
module_unload(const char *name, int flags)
{
	struct module *mod;
	char msg[REASON_MAX];
	uint64_t start = now_us();
	int r;

	modules_lazy_init();
	mutex_lock(&module_mutex);
	mod = module_find(name);
	if (mod == NULL) {
		mutex_unlock(&module_mutex);
		return rm_error(name, -ENOENT,
		                "not loaded (lsmod lists "
		                "modules)");
	}
	r = begin(mod, flags);
	if (r == 1) {
		/* Unlisted before the mutex is dropped: a second rmmod
		 * cannot find it and free it again. */
		module_teardown_locked(mod);
		kprintf("rmmod: %s: freed (its init had failed)\n", name);
		return 0;
	}
	mutex_unlock(&module_mutex);
	if (r < 0)
		return r;
	if (flags & RMMOD_NOWAIT) {
		r = nowait_quiesced(mod);
		if (r != 0)
			return r;
	} else {
		if ((flags & RMMOD_FORCE) && mod->force != NULL) {
			msg[0] = '\0';
			r = mod->force(msg, sizeof(msg));
			kprintf("rmmod: %s: forced: %s\n", mod->name,
			        msg[0] ? msg : (r == 0 ? "ok" : "failed"));
		}
		if (mod->quiesce != NULL)
			mod->quiesce();
		r = wait_released(mod);
		if (r != 0)
			return r;
	}
	trace_mod_phase(mod, "exit");
	if (mod->exit != NULL)
		mod->exit();
	/* Still GOING here, so a second rmmod is refused (EBUSY).  GONE
	 * and unlisted under one hold of the mutex: no rmmod can find a
	 * GONE module that someone else is already tearing down. */
	race_point("rmmod-exited");
	mutex_lock(&module_mutex);
	set_state(mod, MODULE_STATE_GONE);
	module_teardown_locked(mod);
	if (!(flags & RMMOD_QUIET))
		kprintf("rmmod: %s: unloaded after " USEC_MS_FMT " ms\n", name,
		        USEC_MS(now_us() - start));
	return 0;
}
