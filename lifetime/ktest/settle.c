/*
 * Suite "lifetime": the lifetime stress's end of run (lifetime/settle.c).
 *
 * A thread the run started that is still on its way out when the last
 * operation returns (a DHCP client whose device went with the run's
 * last rmmod exits a moment later, closing its socket) holds memory the
 * start did not: the settle must wait for it before "start state
 * restored", or the checkpoint make stress takes next sees it.
 */
#include "lifetime/lifetime.h"
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>

/* Long enough that a settle that does not wait returns well before. */
#define EXITS_AFTER_MS 300

static int
exit_later(void *arg)
{
	(void)arg;
	msleep(EXITS_AFTER_MS);
	return 0;
}

static void
settle_waits_for_exiting_thread(struct ktest *t)
{
	struct lt_run *run = kzalloc(sizeof(*run), "ktest");
	struct lt_snapshot *snap;
	struct kt_async *a;

	KASSERT_TRUE(t, run != NULL);
	/* The previous case's threads gone first: they are not the run's. */
	kt_settle(kt_nr_threads, 50, KT_SOON_MS);
	snap = lt_snapshot_take();
	if (snap == NULL) {
		kfree(run);
		KASSERT_TRUE(t, snap != NULL);
	}
	a = kt_async_start("ktest-exiter", exit_later, NULL);
	KEXPECT_TRUE(t, a != NULL);
	if (a != NULL) {
		KEXPECT_EQ(t, lt_settle(run, snap), 0);
		KEXPECT_TRUE(t, READ_ONCE(a->done));
		kt_shared_put(a);
	}
	lt_snapshot_free(snap);
	kfree(run);
}

KTEST_SUITE(lifetime, KTEST_CASE(settle_waits_for_exiting_thread));
