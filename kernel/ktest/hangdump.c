/*
 * Suite "hangdump": what `ps -w` and the hang dump (kernel/debug/hangdump.h)
 * say about a sleeping thread.  Each case blocks a helper thread on
 * purpose - on a mutex the case holds, in an interruptible sleep, in a
 * drain, on a plain wait queue, in a grace period the case's read-side
 * section holds up - and checks that the thread's wait line
 * names what it waits on (the mutex and its owner, the sleep's deadline,
 * the drain's subject, the queue) and that the holder's line shows the
 * ranked lock the lock order checker sees it hold.
 */
#include <kernel/arch/cpu.h>
#include <kernel/locking/drain.h>
#include <kernel/debug/hangdump.h>
#include <kernel/debug/ktest.h>
#include <kernel/locking/mutex.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/x86.h>
#include "kernel/ktest/ktest_util.h"

static DEFINE_MUTEX_RANK(ktest_hd_mutex, LOCK_RANK_MODULE);
static DEFINE_WAITQ(ktest_hd_wq);
static volatile int hd_released;

static void
expect_has(struct ktest *t, const char *line, const char *want)
{
	KEXPECT_MSG(t, strcmp(line, "") != 0 && strstr(line, want) != NULL,
	            "'%s' lacks '%s'", line, want);
}

/* th is inside a wait noted as kind (the notes are string constants). */
static bool
waits_in(const struct thread *th, const char *kind)
{
	const char *k = READ_ONCE(th->wait.kind);

	return k != NULL && strcmp(k, kind) == 0;
}

/*
 * Run fn in a helper thread, and once it sleeps in a wait noted as kind
 * (NULL: on a plain wait queue) take its wait line into buf; then let
 * it go with release(a) and wait for it to finish.  Its result, or
 * -ETIMEDOUT (reported) if it did not finish; buf is "" if it never
 * slept there.
 */
static int
blocked_line(struct ktest *t, int (*fn)(void *), const char *kind,
             void (*release)(struct kt_async *a), char *buf, size_t size)
{
	struct kt_async *a = kt_async_start("hd-helper", fn, NULL);
	struct thread *th;
	int r = -ETIMEDOUT;

	buf[0] = '\0';
	if (a == NULL) {
		release(NULL);
		KEXPECT_TRUE(t, a != NULL);
		return -ENOMEM;
	}
	th = a->thread;
	if (kt_poll(READ_ONCE(th->state) == T_SLEEPING &&
	                (kind != NULL ? waits_in(th, kind)
	                              : READ_ONCE(th->wait.queue) != NULL),
	            KT_SOON_MS))
		thread_format_wait(th, buf, size);
	release(a);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	if (READ_ONCE(a->done))
		r = a->result;
	kt_shared_put(a);
	return r;
}

static int
lock_it(void *arg)
{
	(void)arg;
	mutex_lock(&ktest_hd_mutex);
	mutex_unlock(&ktest_hd_mutex);
	return 0;
}

/* Drops the mutex the test case took before it blocked a thread on it:
 * a hand-over the analysis cannot follow through a callback. */
NO_LOCKCHECK static void
unlock_it(struct kt_async *a)
{
	(void)a;
	mutex_unlock(&ktest_hd_mutex);
}

NO_LOCKCHECK static void
mutex_waiter_names_mutex_and_owner(struct ktest *t)
{
	char line[256], want[64], held[64];

	mutex_lock(&ktest_hd_mutex);
	thread_format_wait(current, held, sizeof(held));
	KEXPECT_EQ(
	    t, blocked_line(t, lock_it, "mutex", unlock_it, line, sizeof(line)),
	    0);
	snprintf(want, sizeof(want), "wait=mutex:ktest_hd_mutex owner=%d:%s ",
	         current->tid, current->name);
	expect_has(t, line, want);
	expect_has(t, line, "queue=ktest_hd_mutex.wq ");
	expect_has(t, line, "intr=0 ");
	expect_has(t, line, "held=-");
	/* The holder, as the lock order checker sees it. */
	expect_has(t, held, "wait=- sig=0 held=ktest_hd_mutex");
}

static int
sleep_long(void *arg)
{
	(void)arg;
	return msleep_interruptible(600000);
}

static void
interrupt_it(struct kt_async *a)
{
	if (a != NULL)
		thread_signal(a->thread);
}

static void
sleeper_names_sleep_and_deadline(struct ktest *t)
{
	char line[256];
	const char *until;
	unsigned long left;

	KEXPECT_EQ(t,
	           blocked_line(t, sleep_long, "sleep", interrupt_it, line,
	                        sizeof(line)),
	           -EINTR);
	expect_has(t, line, "wait=sleep until=+");
	expect_has(t, line, "ms intr=1 sig=0 held=-");
	/* 600 s ahead, less however slow the emulator was meanwhile. */
	until = strstr(line, "until=+");
	left = 0;
	for (until = until != NULL ? until + 7 : "";
	     *until >= '0' && *until <= '9'; until++)
		left = left * 10 + (unsigned long)(*until - '0');
	KEXPECT_MSG(t, left > 500000 && left <= 600000, "until +%lu ms", left);
}

static bool
hd_done(void *arg)
{
	(void)arg;
	return READ_ONCE(hd_released) != 0;
}

static int
drain_it(void *arg)
{
	struct drain d = {.done = hd_done,
	                  .arg = arg,
	                  .interruptible = false,
	                  .what = "ktest",
	                  .name = "hd-subject"};

	return drain_wait(&d);
}

static int
wait_queue(void *arg)
{
	(void)arg;
	wait_event(ktest_hd_wq, READ_ONCE(hd_released) != 0);
	return 0;
}

/* Ends drain_it and wait_queue: their condition, then both wakeups. */
static void
release_it(struct kt_async *a)
{
	(void)a;
	hd_released = 1;
	drain_kick();
	wake_up(&ktest_hd_wq);
}

static void
drain_waiter_names_its_subject(struct ktest *t)
{
	char line[256];

	hd_released = 0;
	KEXPECT_EQ(
	    t,
	    blocked_line(t, drain_it, "drain", release_it, line, sizeof(line)),
	    0);
	expect_has(t, line, "wait=drain:ktest:hd-subject queue=drain_wq ");
	expect_has(t, line, " intr=0 ");
}

static void
queue_waiter_names_its_queue(struct ktest *t)
{
	char line[256];

	hd_released = 0;
	KEXPECT_EQ(
	    t,
	    blocked_line(t, wait_queue, NULL, release_it, line, sizeof(line)),
	    0);
	expect_has(t, line, "wait=queue:ktest_hd_wq intr=0 sig=0 held=-");
}

static volatile int gp_go;

static int
grace_period_now(void *arg)
{
	(void)arg;
	while (!READ_ONCE(gp_go))
		msleep(1);
	synchronize_rcu_expedited();
	return 0;
}

/* A grace period held up by a CPU in a read-side section: the waiter
 * names that CPU.  The case is the reader, so it polls without sleeping
 * (a context switch would end its read-side section). */
static void
grace_period_waiter_names_the_cpu(struct ktest *t)
{
	char line[256], want[32];
	struct kt_async *a;
	uint64_t until;
	int other = kt_other_cpu();

	if (other < 0) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	gp_go = 0;
	a = kt_async_start_on("hd-gp", grace_period_now, NULL, other);
	KASSERT_TRUE(t, a != NULL);
	snprintf(want, sizeof(want), "wait=rcu_gp:cpu%d", cpu_id());
	rcu_read_lock();
	gp_go = 1;
	/* The other CPUs pass their quiescent states soon; then ours is
	 * the one it waits for, until the section ends. */
	until = now_ms() + KT_SOON_MS;
	do {
		cpu_relax();
		thread_format_wait(a->thread, line, sizeof(line));
	} while (strstr(line, want) == NULL && now_ms() < until);
	rcu_read_unlock();
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	kt_shared_put(a);
	expect_has(t, line, want);
}

static void
running_thread_waits_on_nothing(struct ktest *t)
{
	char line[256];

	thread_format_wait(current, line, sizeof(line));
	KEXPECT_MSG(t, strcmp(line, "wait=- sig=0 held=-") == 0, "got '%s'",
	            line);
}

static void
probe_strlcpy_copies_and_cuts(struct ktest *t)
{
	char buf[8];

	KEXPECT_EQ(t, probe_strlcpy(buf, "drain_wq", sizeof(buf)), 7);
	KEXPECT_TRUE(t, strcmp(buf, "drain_w") == 0);
	KEXPECT_EQ(t, probe_strlcpy(buf, NULL, sizeof(buf)), 0);
	KEXPECT_TRUE(t, buf[0] == '\0');
	/* The first page is never mapped (NULL dereferences fault). */
	KEXPECT_EQ(t, probe_strlcpy(buf, (const char *)16, sizeof(buf)), 1);
	KEXPECT_TRUE(t, strcmp(buf, "?") == 0);
}

KTEST_SUITE(hangdump, KTEST_CASE(mutex_waiter_names_mutex_and_owner),
            KTEST_CASE(sleeper_names_sleep_and_deadline),
            KTEST_CASE(drain_waiter_names_its_subject),
            KTEST_CASE(queue_waiter_names_its_queue),
            KTEST_CASE(grace_period_waiter_names_the_cpu),
            KTEST_CASE(running_thread_waits_on_nothing),
            KTEST_CASE(probe_strlcpy_copies_and_cuts));
