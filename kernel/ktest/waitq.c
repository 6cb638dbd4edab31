/*
 * Suite "waitq": wait queues and completions (waitq.h).
 *
 * Pins down that wake_up() wakes a thread sleeping in wait_event (and
 * that it really slept until then), that it reports how many were
 * sleeping, that wait_event_timeout returns -ETIMEDOUT after at least its
 * timeout when nobody wakes it and 0 at once when the condition already
 * holds, that thread_signal ends an interruptible wait (and an
 * interruptible msleep) with -EINTR but not an uninterruptible one, that
 * a completion signalled by another thread ends wait_for_completion, and
 * that every one of many waiters, spread over the CPUs, is woken.
 *
 * Helper threads share a kt_shared_alloc() context with the test, so a
 * test that gives up on a helper after a failure leaves it nothing
 * dangling.  A helper's struct thread is only touched (thread_signal)
 * while the helper is known to be waiting, never after it may have
 * exited.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/x86.h>

#define NWAITERS 8

struct wctx {
	struct waitq wq;
	volatile int cond;
	volatile int ret;     /* what the helper's wait returned */
	volatile int woke;    /* helpers past their wait */
	volatile int waiting; /* helpers about to wait */
	struct completion done[NWAITERS];
	struct completion go;
};

static struct wctx *
wctx_new(int refs)
{
	struct wctx *c = kt_shared_alloc(sizeof(*c), refs);

	if (c == NULL)
		return NULL;
	waitq_init(&c->wq, "ktest-wq");
	completion_init(&c->go);
	for (int i = 0; i < NWAITERS; i++)
		completion_init(&c->done[i]);
	return c;
}

/* Start fn(c) in a thread holding one reference; NULL (and the reference
 * dropped) if it cannot. */
static struct thread *
start(struct wctx *c, const char *name, void (*fn)(void *), int cpu)
{
	struct thread *th = thread_create(name, fn, c, cpu);

	if (th == NULL)
		kt_shared_put(c);
	return th;
}

/* A helper is known to be in its wait once it is on the queue. */
static bool
queued(struct wctx *c)
{
	uint32_t f = spin_lock_irqsave(&c->wq.lock);
	bool q = waitq_active(&c->wq);

	spin_unlock_irqrestore(&c->wq.lock, f);
	return q;
}

/* On a failure path a helper may still wait: let it go. */
static void
release(struct wctx *c)
{
	WRITE_ONCE(c->cond, 1);
	wake_up(&c->wq);
}

static void
sleeper(void *arg)
{
	struct wctx *c = arg;

	wait_event(c->wq, READ_ONCE(c->cond) != 0);
	__atomic_fetch_add(&c->woke, 1, __ATOMIC_SEQ_CST);
	complete(&c->done[0]);
	kt_shared_put(c);
}

static void
wake_up_wakes_sleeper(struct ktest *t)
{
	struct wctx *c = wctx_new(2);

	KASSERT_TRUE(t, c != NULL);
	if (start(c, "ktest-sleeper", sleeper, -1) == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		goto out;
	}
	KEXPECT_TRUE(t, kt_poll(queued(c), KT_SOON_MS));
	/* Asleep, not spinning past its wait. */
	msleep(50);
	KEXPECT_EQ(t, c->woke, 0);
	WRITE_ONCE(c->cond, 1);
	KEXPECT_EQ(t, wake_up(&c->wq), 1);
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&c->done[0], KT_SOON_MS, false), 0);
	KEXPECT_EQ(t, c->woke, 1);
	KEXPECT_TRUE(t, !queued(c));
out:
	release(c);
	kt_shared_put(c);
}

static void
wake_up_empty_queue(struct ktest *t)
{
	DEFINE_WAITQ(wq);

	KEXPECT_TRUE(t, !waitq_active(&wq));
	KEXPECT_EQ(t, wake_up(&wq), 0);
}

static void
wait_timeout_etimedout(struct ktest *t)
{
	DEFINE_WAITQ(wq);
	int never = 0;
	uint64_t t0 = now_ms(), d;
	int r = wait_event_timeout(wq, READ_ONCE(never) != 0, 100);

	d = now_ms() - t0;
	KEXPECT_EQ(t, r, -ETIMEDOUT);
	KEXPECT_MSG(t, d >= 100, "timed out after %u ms, asked 100",
	            (unsigned)d);
	KEXPECT_TRUE(t, d < 100 + KT_SOON_MS);
	/* The wait entry is gone from the queue. */
	KEXPECT_TRUE(t, !waitq_active(&wq));
}

static void
wait_condition_already_true(struct ktest *t)
{
	DEFINE_WAITQ(wq);
	int yes = 1;
	uint64_t t0 = now_ms();

	KEXPECT_EQ(t, wait_event_timeout(wq, yes != 0, 10000), 0);
	KEXPECT_EQ(t, wait_event_interruptible(wq, yes != 0), 0);
	KEXPECT_TRUE(t, now_ms() - t0 < KT_SOON_MS);
	KEXPECT_TRUE(t, !waitq_active(&wq));
}

static void
intr_waiter(void *arg)
{
	struct wctx *c = arg;

	c->ret = wait_event_interruptible(c->wq, READ_ONCE(c->cond) != 0);
	complete(&c->done[0]);
	kt_shared_put(c);
}

static void
interruptible_wait_eintr(struct ktest *t)
{
	struct wctx *c = wctx_new(2);
	struct thread *th;

	KASSERT_TRUE(t, c != NULL);
	c->ret = 1;
	th = start(c, "ktest-intr", intr_waiter, -1);
	if (th == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		goto out;
	}
	if (!kt_poll(queued(c), KT_SOON_MS)) {
		KEXPECT_MSG(t, false, "waiter never queued");
		goto out;
	}
	thread_signal(th);
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&c->done[0], KT_SOON_MS, false), 0);
	KEXPECT_EQ(t, c->ret, -EINTR);
	KEXPECT_TRUE(t, !queued(c));
out:
	release(c);
	kt_shared_put(c);
}

static void
unintr_waiter(void *arg)
{
	struct wctx *c = arg;

	c->ret =
	    wait_event_timeout(c->wq, READ_ONCE(c->cond) != 0, 2 * KT_SOON_MS);
	complete(&c->done[0]);
	kt_shared_put(c);
}

/* A signal does not end an uninterruptible wait: only the condition
 * (or the timeout) does. */
static void
uninterruptible_ignores_signal(struct ktest *t)
{
	struct wctx *c = wctx_new(2);
	struct thread *th;

	KASSERT_TRUE(t, c != NULL);
	c->ret = 1;
	th = start(c, "ktest-unintr", unintr_waiter, -1);
	if (th == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		goto out;
	}
	if (!kt_poll(queued(c), KT_SOON_MS)) {
		KEXPECT_MSG(t, false, "waiter never queued");
		goto out;
	}
	thread_signal(th);
	KEXPECT_EQ(t, wait_for_completion_timeout(&c->done[0], 100, false),
	           -ETIMEDOUT);
	WRITE_ONCE(c->cond, 1);
	wake_up(&c->wq);
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&c->done[0], KT_SOON_MS, false), 0);
	KEXPECT_EQ(t, c->ret, 0);
out:
	release(c);
	kt_shared_put(c);
}

static void
intr_sleeper(void *arg)
{
	struct wctx *c = arg;

	WRITE_ONCE(c->waiting, 1);
	c->ret = msleep_interruptible(60000);
	complete(&c->done[0]);
	kt_shared_put(c);
}

static void
msleep_interruptible_eintr(struct ktest *t)
{
	struct wctx *c = wctx_new(2);
	struct thread *th;
	uint64_t t0;

	KASSERT_TRUE(t, c != NULL);
	c->ret = 1;
	th = start(c, "ktest-msleep", intr_sleeper, -1);
	if (th == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		goto out;
	}
	/* Signalled before or during its sleep, it must end either way. */
	if (!kt_poll(READ_ONCE(c->waiting) != 0, KT_SOON_MS)) {
		KEXPECT_MSG(t, false, "sleeper never started");
		goto out;
	}
	msleep(20);
	t0 = now_ms();
	thread_signal(th);
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&c->done[0], KT_SOON_MS, false), 0);
	KEXPECT_EQ(t, c->ret, -EINTR);
	KEXPECT_TRUE(t, now_ms() - t0 < KT_SOON_MS);
out:
	release(c);
	kt_shared_put(c);
}

static void
completer(void *arg)
{
	struct wctx *c = arg;

	msleep(20);
	complete(&c->go);
	kt_shared_put(c);
}

static void
completion_from_other_thread(struct ktest *t)
{
	struct wctx *c = wctx_new(2);
	struct completion never;

	KASSERT_TRUE(t, c != NULL);
	if (start(c, "ktest-complete", completer, -1) == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		goto out;
	}
	KEXPECT_EQ(t, wait_for_completion_timeout(&c->go, KT_SOON_MS, false),
	           0);
	/* Done stays done. */
	KEXPECT_EQ(t, wait_for_completion_timeout(&c->go, 1, false), 0);
	completion_init(&never);
	KEXPECT_EQ(t, wait_for_completion_timeout(&never, 50, false),
	           -ETIMEDOUT);
out:
	release(c);
	kt_shared_put(c);
}

static void
many_waiter(void *arg)
{
	struct wctx *c = arg;
	int me = __atomic_fetch_add(&c->waiting, 1, __ATOMIC_SEQ_CST);

	wait_event(c->wq, READ_ONCE(c->cond) != 0);
	__atomic_fetch_add(&c->woke, 1, __ATOMIC_SEQ_CST);
	complete(&c->done[me]);
	kt_shared_put(c);
}

static void
many_waiters_all_woken(struct ktest *t)
{
	struct wctx *c = wctx_new(1 + NWAITERS);
	int started = 0, done = 0;

	KASSERT_TRUE(t, c != NULL);
	/* cpu -1 spreads them over every online CPU. */
	for (int i = 0; i < NWAITERS; i++)
		started += start(c, "ktest-waiter", many_waiter, -1) != NULL;
	KEXPECT_EQ(t, started, NWAITERS);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(c->waiting) == started, KT_SOON_MS));
	msleep(20);
	KEXPECT_EQ(t, c->woke, 0);
	WRITE_ONCE(c->cond, 1);
	wake_up(&c->wq);
	for (int i = 0; i < started; i++)
		done += wait_for_completion_timeout(&c->done[i], KT_SOON_MS,
		                                    false) == 0;
	KEXPECT_EQ(t, done, started);
	KEXPECT_EQ(t, c->woke, started);
	release(c);
	kt_shared_put(c);
}

KTEST_SUITE(waitq, KTEST_CASE(wake_up_wakes_sleeper),
            KTEST_CASE(wake_up_empty_queue), KTEST_CASE(wait_timeout_etimedout),
            KTEST_CASE(wait_condition_already_true),
            KTEST_CASE(interruptible_wait_eintr),
            KTEST_CASE(uninterruptible_ignores_signal),
            KTEST_CASE(msleep_interruptible_eintr),
            KTEST_CASE(completion_from_other_thread),
            KTEST_CASE(many_waiters_all_woken));
