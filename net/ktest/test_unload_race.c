/*
 * Suite "unload_race": rmmod racing a second lifetime operation, each
 * race hit every time through a race point (kernel/debug/racepoint.h) rather
 * than by luck.  Needs hello.ko and netsim.ko as boot modules (the
 * scenario tests/scenarios/races-unload.scn); cases skip without them.
 *
 *   concurrent_rmmod_frees_once   two rmmod of one module: the second,
 *                                 arriving while the first runs exit,
 *                                 is refused (EBUSY) and the module is
 *                                 torn down exactly once
 *   rollback_resumes_before_live  Ctrl-C of a waiting rmmod: the module
 *                                 is resumed (its devices registered
 *                                 again) before it is LIVE, so nobody
 *                                 sees a LIVE module that does not work
 *   nowait_rmmod_never_waits      rmmod -n: a device reference taken
 *                                 after the check said "free" makes it
 *                                 EBUSY (module LIVE, devices back),
 *                                 never an uninterruptible wait in exit
 *   unlinked_entry_leads_on       a lockless reader of the module list
 *                                 (backtraces, `refs` naming a holder's
 *                                 caller) standing on the entry rmmod
 *                                 takes off the list can still walk on
 *                                 to the list's end: it used to find the
 *                                 entry pointing at itself and loop
 *                                 forever, interrupts off (make
 *                                 stress-long hung so)
 */
#include <kernel/lib/errno.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <net/core/netdevice.h>
#include "net/core/refmode.h"
#include "modloader/module_internal.h"

/* A module's record without taking a reference (it stays valid while
 * the module is loaded, which the cases control). */
static struct module *
find_loaded(const char *name)
{
	struct module *mod;

	mutex_lock(&module_mutex);
	mod = module_find(name);
	mutex_unlock(&module_mutex);
	return mod;
}

/* Load name (quietly if it takes quiet=); false and a skip if it is not
 * a boot module of this run. */
static bool
load(struct ktest *t, const char *name, char *arg)
{
	char err[128];
	int r;

	if (find_loaded(name) != NULL)
		module_unload(name, RMMOD_QUIET);
	r = module_load(name, arg != NULL ? 1 : 0, &arg, NULL, err,
	                sizeof(err));
	if (r == -ENOENT) {
		ktest_skip(t, "needs the boot module");
		return false;
	}
	KEXPECT_MSG(t, r == 0, "insmod %s: %d: %s", name, r, err);
	return r == 0;
}

/* What a background rmmod does (static: the thread may outlive a case
 * that gives up on it). */
struct rmmod_req {
	const char *name;
	int flags;
};
static struct rmmod_req rm_hello = {"hello", RMMOD_QUIET};
static struct rmmod_req rm_netsim = {"netsim", RMMOD_QUIET};
static struct rmmod_req rm_netsim_n = {"netsim", RMMOD_NOWAIT | RMMOD_QUIET};

static int
do_rmmod(void *p)
{
	struct rmmod_req *r = p;

	return module_unload(r->name, r->flags);
}

static void
concurrent_rmmod_frees_once(struct ktest *t)
{
	struct kt_async *a;
	int r;

	if (!load(t, "hello", "quiet=1"))
		return;
	KASSERT_TRUE(t, race_arm("rmmod-exited") == 0);
	a = kt_async_start("ktest-rmmod", do_rmmod, &rm_hello);
	KASSERT_TRUE(t, a != NULL);
	/* The first rmmod has run hello's exit and stands before the
	 * teardown; a second one now must not tear it down too. */
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	r = module_unload("hello", RMMOD_QUIET);
	KEXPECT_EQ(t, r, -EBUSY);
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, 0);
	KEXPECT_TRUE(t, find_loaded("hello") == NULL);
	kt_shared_put(a);
}

/* netsim loaded, nsim0 held by the test: what rmmod will wait for. */
static struct net_device *
netsim_held(struct ktest *t, struct ref_tracker *tr)
{
	struct net_device *dev;

	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return NULL;
	}
	if (!load(t, "netsim", NULL))
		return NULL;
	dev = dev_get_by_name("nsim0", tr, "ktest-race");
	KEXPECT_TRUE(t, dev != NULL);
	if (dev == NULL)
		module_unload("netsim", RMMOD_QUIET);
	return dev;
}

static void
rollback_resumes_before_live(struct ktest *t)
{
	struct ref_tracker tr;
	struct net_device *dev = netsim_held(t, &tr);
	struct module *mod = find_loaded("netsim");
	struct kt_async *a;
	bool live, registered;

	if (dev == NULL)
		return;
	KASSERT_TRUE(t, mod != NULL);
	KASSERT_TRUE(t, race_arm("rmmod-abandon") == 0);
	a = kt_async_start("ktest-rmmod", do_rmmod, &rm_netsim);
	KASSERT_TRUE(t, a != NULL);
	/* Waiting for our reference, with nsim0 unlisted. */
	KEXPECT_TRUE(t,
	             kt_poll(READ_ONCE(dev->reg_state) == NETREG_UNREGISTERING,
	                     KT_SOON_MS));
	thread_signal(a->thread);
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	/* Between the rollback's two steps: whatever the state says must
	 * be true of the module. */
	live = READ_ONCE(mod->state) == MODULE_STATE_LIVE;
	registered = READ_ONCE(dev->reg_state) == NETREG_REGISTERED;
	KEXPECT_MSG(t, !live || registered,
	            "netsim is LIVE but nsim0 is not registered (state %d)",
	            dev->reg_state);
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, -EINTR);
	KEXPECT_EQ(t, mod->state, MODULE_STATE_LIVE);
	KEXPECT_EQ(t, dev->reg_state, NETREG_REGISTERED);
	kt_shared_put(a);
	dev_put_track(dev, &tr);
	KEXPECT_EQ(t, module_unload("netsim", RMMOD_QUIET), 0);
}

static void
nowait_rmmod_never_waits(struct ktest *t)
{
	struct ref_tracker tr, late;
	struct net_device *dev = netsim_held(t, &tr), *d;
	struct module *mod = find_loaded("netsim");
	struct kt_async *a;
	bool returned;

	if (dev == NULL)
		return;
	KASSERT_TRUE(t, mod != NULL);
	dev_put_track(dev, &tr); /* free: rmmod -n's check passes */
	KASSERT_TRUE(t, race_arm("rmmod-checked") == 0);
	a = kt_async_start("ktest-rmmod", do_rmmod, &rm_netsim_n);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	/* A new reference after the check said "free". */
	d = dev_get_by_name("nsim0", &late, "ktest-late");
	KEXPECT_TRUE(t, d == dev);
	race_release();
	returned = kt_poll(READ_ONCE(a->done), KT_SOON_MS);
	KEXPECT_MSG(t, returned, "rmmod -n still running after %u ms",
	            KT_SOON_MS);
	if (!returned) {
		/* Where it waits, Ctrl-C does nothing: the owner is GOING. */
		thread_signal(a->thread);
		msleep(100);
		KEXPECT_MSG(t, READ_ONCE(a->done),
		            "rmmod -n ignores Ctrl-C too");
	}
	if (d != NULL)
		dev_put_track(d, &late);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	if (returned) {
		KEXPECT_EQ(t, a->result, -EBUSY);
		KEXPECT_EQ(t, mod->state, MODULE_STATE_LIVE);
		KEXPECT_EQ(t, dev->reg_state, NETREG_REGISTERED);
		KEXPECT_EQ(t, module_unload("netsim", RMMOD_QUIET), 0);
	}
	kt_shared_put(a);
}

/* A reader on another CPU, inside rcu_read_lock, standing on hello's
 * list entry while rmmod takes it off the list (rmmod's grace period
 * waits for the reader, so the entry's memory stays).  Static: the
 * thread may outlive a case that gives up on it. */
static struct {
	struct list_head *entry;
	volatile bool inside, unlinked, done, missed;
	volatile int steps; /* to the list head from the entry; -1: loops */
} rd;

static bool
entry_listed(struct list_head *e)
{
	struct list_head *p = __atomic_load_n(&modules.next, __ATOMIC_ACQUIRE);

	for (int i = 0; i < 256 && p != &modules; i++) {
		if (p == e)
			return true;
		p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE);
	}
	return false;
}

/* Read sections of 2 ms, each left for a moment (a yield: a quiescent
 * state, so the grace periods rmmod waits for before it unlinks pass),
 * until the unlink happens inside one.  If it happened between two
 * (the entry is gone when a section begins), nothing can be said:
 * missed. */
static void
list_reader(void *arg)
{
	struct list_head *p;
	uint64_t end = now_ms() + KT_SOON_MS, until;
	int i;

	(void)arg;
	rd.inside = true;
	while (now_ms() < end) {
		rcu_read_lock();
		if (!entry_listed(rd.entry)) {
			rcu_read_unlock();
			rd.missed = true;
			break;
		}
		until = now_ms() + 2;
		while (entry_listed(rd.entry) && now_ms() < until)
			cpu_relax();
		if (!entry_listed(rd.entry)) {
			rd.unlinked = true;
			/* Move on from the entry, as a reader that was
			 * standing on it. */
			p = __atomic_load_n(&rd.entry->next, __ATOMIC_ACQUIRE);
			for (i = 0; i < 256 && p != &modules && p != rd.entry;
			     i++)
				p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE);
			rd.steps = p == &modules ? i : -1;
			rcu_read_unlock();
			break;
		}
		rcu_read_unlock();
		thread_yield();
	}
	rd.done = true;
	thread_exit();
}

static void
unlinked_entry_leads_on(struct ktest *t)
{
	struct kt_async *a;
	struct module *mod;
	int cpu = -1;

	if (kt_other_cpu() < 0) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	if (!load(t, "hello", "quiet=1"))
		return;
	mod = find_loaded("hello");
	KASSERT_TRUE(t, mod != NULL);
	memset(&rd, 0, sizeof(rd));
	rd.entry = &mod->list;
	/* The rmmod stops after exit, before it unlinks (the waits before
	 * it, grace periods among them, must not wait for our reader). */
	KASSERT_TRUE(t, race_arm("rmmod-exited") == 0);
	a = kt_async_start("ktest-rmmod", do_rmmod, &rm_hello);
	KASSERT_TRUE(t, a != NULL);
	KEXPECT_TRUE(t, race_wait_parked(KT_SOON_MS));
	/* Not on the rmmod's CPU: the reader spins with preemption off. */
	for (int i = 0; i < MAX_CPUS && cpu < 0; i++)
		if (cpus[i].state == CPU_ONLINE && i != a->thread->cpu)
			cpu = i;
	KASSERT_TRUE(t, cpu >= 0);
	KEXPECT_TRUE(t, thread_create("ktest-reader", list_reader, NULL, cpu) !=
	                    NULL);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rd.inside), KT_SOON_MS));
	race_release();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(rd.done), KT_SOON_MS));
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	KEXPECT_EQ(t, a->result, 0);
	if (rd.missed) {
		ktest_skip(t, "the unlink fell between two read sections");
		kt_shared_put(a);
		return;
	}
	KEXPECT_TRUE(t, rd.unlinked);
	KEXPECT_MSG(t, rd.steps >= 0,
	            "the unlinked entry leads back to itself, not to the end "
	            "of the list");
	kt_shared_put(a);
}

KTEST_SUITE(unload_race, KTEST_CASE(concurrent_rmmod_frees_once),
            KTEST_CASE(rollback_resumes_before_live),
            KTEST_CASE(nowait_rmmod_never_waits),
            KTEST_CASE(unlinked_entry_leads_on));
