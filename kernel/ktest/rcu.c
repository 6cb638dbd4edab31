/*
 * rcu: grace periods wait for every reader that started before them.
 *  - a reader spinning inside rcu_read_lock on another CPU (interrupts
 *    on, ticks arriving) holds synchronize_rcu() until it unlocks
 *  - so does a reader whose CPU has another runnable thread (the tick
 *    wants to preempt it and must not count that as quiescent)
 *  - with the rcu_skip_grace debug switch the same check fails: the
 *    control that shows the test can fail
 *  - call_rcu callbacks run after a grace period; rcu_barrier waits
 *  - a CPU halted in the idle loop counts as quiescent without an IPI
 *    (rcu_idle_skips moves), but an interrupt handler that woke it is a
 *    reader like any other: a timer callback on an idle boot CPU holds
 *    an expedited grace period asked for on another CPU
 */
#include <kernel/debug/ktest.h>
#include <kernel/locking/rcu.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>
#include <kernel/ktest/ktest_util.h>

#define READER_MS 300

static struct {
	volatile int in_reader, reader_done, hog_stop;
	struct completion reader_exit, hog_exit;
} st;

static void
reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	st.in_reader = 1;
	udelay(READER_MS * 1000);
	st.reader_done = 1;
	rcu_read_unlock();
	complete(&st.reader_exit);
}

static void
hog(void *arg)
{
	(void)arg;
	while (!st.hog_stop)
		cpu_relax();
	complete(&st.hog_exit);
}

static int
other_cpu(void)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && cpus[i].state == CPU_ONLINE)
			return i;
	return -1;
}

static bool
wait_until_in_reader(void)
{
	uint64_t end = now_ms() + 10000;

	while (!st.in_reader && now_ms() < end)
		msleep(1);
	return st.in_reader;
}

/* Start a reader on another CPU, wait until it is inside, then ask for a
 * grace period; returns whether the reader had finished by then. */
static int
grace_outlasts_reader(struct ktest *t, bool with_hog)
{
	int cpu = other_cpu(), finished;

	st.in_reader = 0;
	st.reader_done = 0;
	st.hog_stop = 0;
	completion_init(&st.reader_exit);
	completion_init(&st.hog_exit);
	if (with_hog)
		KASSERT_TRUE(t, thread_create("hog", hog, NULL, cpu) != NULL);
	KASSERT_TRUE(t, thread_create("reader", reader, NULL, cpu) != NULL);
	/* Nothing wakes us when the reader enters, so poll (bounded). */
	KEXPECT_TRUE(t, wait_until_in_reader());
	KEXPECT_TRUE(t, !st.reader_done);
	synchronize_rcu();
	finished = st.reader_done;
	wait_for_completion(&st.reader_exit);
	st.hog_stop = 1;
	if (with_hog)
		wait_for_completion(&st.hog_exit);
	return finished;
}

static void
waits_for_spinning_reader(struct ktest *t)
{
	if (other_cpu() < 0) {
		ktest_skip(t, "one CPU: a reader cannot run concurrently");
		return;
	}
	KEXPECT_TRUE(t, grace_outlasts_reader(t, false));
}

static void
waits_for_reader_with_competition(struct ktest *t)
{
	if (other_cpu() < 0) {
		ktest_skip(t, "one CPU: a reader cannot run concurrently");
		return;
	}
	KEXPECT_TRUE(t, grace_outlasts_reader(t, true));
}

static void
skipping_the_wait_is_caught(struct ktest *t)
{
	int finished;

	if (other_cpu() < 0) {
		ktest_skip(t, "one CPU: a reader cannot run concurrently");
		return;
	}
	rcu_skip_grace = 1;
	finished = grace_outlasts_reader(t, false);
	rcu_skip_grace = 0;
	KEXPECT_TRUE(t, !finished);
}

static struct {
	struct rcu_head head;
	volatile int ran;
	volatile int reader_active_when_ran;
} cb;

static void
cb_fn(struct rcu_head *h)
{
	(void)h;
	cb.reader_active_when_ran = st.in_reader && !st.reader_done;
	cb.ran = 1;
}

static void
call_rcu_after_grace(struct ktest *t)
{
	int cpu = other_cpu();

	cb.ran = 0;
	cb.reader_active_when_ran = 0;
	st.in_reader = 0;
	st.reader_done = 0;
	completion_init(&st.reader_exit);
	if (cpu >= 0) {
		KASSERT_TRUE(t, thread_create("reader", reader, NULL, cpu) !=
		                    NULL);
		KEXPECT_TRUE(t, wait_until_in_reader());
	}
	call_rcu(&cb.head, cb_fn);
	rcu_barrier();
	KEXPECT_EQ(t, cb.ran, 1);
	KEXPECT_EQ(t, cb.reader_active_when_ran, 0);
	if (cpu >= 0)
		wait_for_completion(&st.reader_exit);
}

static void
idle_cpu_needs_no_ipi(struct ktest *t)
{
	int cpu = other_cpu();
	bool skipped = false;

	if (cpu < 0) {
		ktest_skip(t, "one CPU: no other CPU to be idle");
		return;
	}
	/* The other CPU may be busy for a moment (a thread of an earlier
	 * case exiting): try until it is found halted. */
	for (int i = 0; i < 200 && !skipped; i++) {
		unsigned long before = rcu_idle_skips;

		if (!kt_poll(cpus[cpu].idle_eqs & 1, KT_SOON_MS))
			break;
		synchronize_rcu_expedited();
		skipped = rcu_idle_skips != before;
	}
	KEXPECT_TRUE(t, skipped);
}

static struct {
	struct timer timer;
	struct completion gp_exit;
	volatile int finished;
} irq_reader;

/* A timer callback: interrupt context on the boot CPU, woken from its
 * idle halt (the case keeps the boot CPU otherwise idle). */
static void
irq_reader_fn(struct timer *tm)
{
	(void)tm;
	rcu_read_lock();
	st.in_reader = 1;
	udelay(100 * 1000);
	st.reader_done = 1;
	rcu_read_unlock();
}

static void
gp_asker(void *arg)
{
	uint64_t end = now_ms() + 10000;

	(void)arg;
	/* Spin, not msleep: our wakeup would be a timer on the boot CPU,
	 * which is busy in the reader, so we would only look after it. */
	while (!READ_ONCE(st.in_reader) && now_ms() < end)
		cpu_relax();
	if (st.in_reader) {
		synchronize_rcu_expedited();
		irq_reader.finished = st.reader_done;
	}
	complete(&irq_reader.gp_exit);
}

static void
reader_in_idle_interrupt_holds_grace(struct ktest *t)
{
	int cpu = -1;

	for (int i = 1; i < MAX_CPUS && cpu < 0; i++)
		if (cpus[i].state == CPU_ONLINE)
			cpu = i;
	if (cpu < 0) {
		ktest_skip(t,
		           "one CPU: the reader and the grace period need two");
		return;
	}
	st.in_reader = 0;
	st.reader_done = 0;
	irq_reader.finished = -1;
	completion_init(&irq_reader.gp_exit);
	timer_init(&irq_reader.timer, irq_reader_fn, NULL);
	KASSERT_TRUE(t, thread_create("gp-asker", gp_asker, NULL, cpu) != NULL);
	timer_add(&irq_reader.timer, now_ms() + 20);
	wait_for_completion(&irq_reader.gp_exit);
	KEXPECT_EQ(t, irq_reader.finished, 1);
	timer_del(&irq_reader.timer);
}

KTEST_SUITE(rcu, KTEST_CASE(waits_for_spinning_reader),
            KTEST_CASE(waits_for_reader_with_competition),
            KTEST_CASE(skipping_the_wait_is_caught),
            KTEST_CASE(call_rcu_after_grace), KTEST_CASE(idle_cpu_needs_no_ipi),
            KTEST_CASE(reader_in_idle_interrupt_holds_grace));
