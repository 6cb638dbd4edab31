/*
 * Suite "timer": time and one-shot timers (timer.h), and msleep.
 *
 * Pins down that now_ms() advances and never goes back; that a timer
 * fires once, not before its expiry, in interrupt context on the
 * timekeeping CPU; that timer_del of a pending timer stops it (and says
 * it was pending); that re-arming a pending timer moves it, either way,
 * without firing twice; that timers fire in expiry order whatever order
 * they were armed in; that timer_del waits for a callback running on
 * another CPU; and that msleep sleeps at least as long as asked.
 *
 * Upper bounds are deliberately loose (seconds): TCG on a shared host
 * stalls for a long time now and then, and a late timer is not a bug.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/x86.h>

#define LATE_MS 3000 /* how late a timer may fire and still pass */

/* What a test timer's callback saw; the timer is embedded so the
 * callback finds its record. */
struct probe {
	struct timer timer;
	struct waitq wq;
	volatile int fired;
	volatile uint64_t fired_at;
	volatile int in_irq, cpu;
	int id;
	volatile int *order; /* shared fire-order log, or NULL */
	volatile int *norder;
};

static void
probe_fn(struct timer *tm)
{
	struct probe *p = tm->data;

	p->fired_at = now_ms();
	p->in_irq = in_interrupt();
	p->cpu = cpu_id();
	if (p->order != NULL)
		p->order[__atomic_fetch_add(p->norder, 1, __ATOMIC_RELAXED)] =
		    p->id;
	__atomic_fetch_add(&p->fired, 1, __ATOMIC_SEQ_CST);
	wake_up(&p->wq);
}

static void
probe_init(struct probe *p, int id)
{
	timer_init(&p->timer, probe_fn, p);
	waitq_init(&p->wq, "ktest-timer");
	p->fired = 0;
	p->fired_at = 0;
	p->in_irq = -1;
	p->cpu = -1;
	p->id = id;
	p->order = NULL;
	p->norder = NULL;
}

/* Wait (bounded) for the probe to fire; 0 or -ETIMEDOUT. */
static int
probe_wait(struct probe *p, long ms)
{
	return wait_event_timeout(p->wq, READ_ONCE(p->fired) != 0, ms);
}

static void
now_ms_advances(struct ktest *t)
{
	uint64_t t0 = now_ms(), prev = t0, v;
	bool back = false;

	/* Busy-wait, so the clock has to move on its own (it is the TSC,
	 * clock.h), not because we slept on a timer. */
	for (int i = 0; i < 40; i++) {
		udelay(1000);
		v = now_ms();
		if (v < prev)
			back = true;
		prev = v;
	}
	KEXPECT_TRUE(t, !back);
	KEXPECT_MSG(t, prev > t0, "now_ms stuck at %u over 40 ms of udelay",
	            (unsigned)t0);
}

static void
timer_fires_after_expiry(struct ktest *t)
{
	struct probe p;
	uint64_t expires;
	int r;

	probe_init(&p, 0);
	expires = now_ms() + 50;
	timer_add(&p.timer, expires);
	r = probe_wait(&p, 50 + LATE_MS);
	/* Also waits for the callback to be done with p (it is on our
	 * stack). */
	KEXPECT_TRUE(t, !timer_del(&p.timer));
	KASSERT_TRUE(t, r == 0);
	KEXPECT_MSG(t, p.fired_at >= expires,
	            "fired at %u, before its expiry %u", (unsigned)p.fired_at,
	            (unsigned)expires);
	KEXPECT_MSG(t, p.fired_at <= expires + LATE_MS, "fired %u ms late",
	            (unsigned)(p.fired_at - expires));
	/* Once: nothing was left pending to fire again. */
	msleep(20);
	KEXPECT_EQ(t, p.fired, 1);
}

/* Callbacks run in interrupt context, on the CPU that keeps time. */
static void
timer_callback_context(struct ktest *t)
{
	struct probe p;

	probe_init(&p, 0);
	timer_add(&p.timer, now_ms() + 1);
	KEXPECT_EQ(t, probe_wait(&p, LATE_MS), 0);
	timer_del(&p.timer);
	KEXPECT_EQ(t, p.in_irq, 1);
	KEXPECT_EQ(t, p.cpu, 0);
}

static void
timer_del_prevents_fire(struct ktest *t)
{
	struct probe p;

	probe_init(&p, 0);
	timer_add(&p.timer, now_ms() + 100);
	KEXPECT_TRUE(t, timer_del(&p.timer));
	/* Well past the expiry: it must not have fired. */
	KEXPECT_EQ(t, probe_wait(&p, 300), -ETIMEDOUT);
	KEXPECT_EQ(t, p.fired, 0);
	KEXPECT_TRUE(t, !timer_del(&p.timer));
}

/* Re-arming a pending timer moves it: earlier fires early, later holds
 * it back, and it fires once either way. */
static void
timer_rearm_moves(struct ktest *t)
{
	struct probe p;
	uint64_t far, near, later;

	probe_init(&p, 0);
	far = now_ms() + 60000;
	timer_add(&p.timer, far);
	near = now_ms() + 30;
	timer_add(&p.timer, near);
	KEXPECT_EQ(t, probe_wait(&p, 30 + LATE_MS), 0);
	KEXPECT_TRUE(t, p.fired_at >= near && p.fired_at < far);
	KEXPECT_TRUE(t, !timer_del(&p.timer));

	probe_init(&p, 0);
	timer_add(&p.timer, now_ms() + 20);
	later = now_ms() + 300;
	timer_add(&p.timer, later);
	KEXPECT_EQ(t, probe_wait(&p, 300 + LATE_MS), 0);
	KEXPECT_MSG(t, p.fired_at >= later,
	            "fired at %u, before the re-armed expiry %u",
	            (unsigned)p.fired_at, (unsigned)later);
	msleep(50);
	KEXPECT_EQ(t, p.fired, 1);
	timer_del(&p.timer);
}

static void
timer_ordering(struct ktest *t)
{
	enum { N = 5 };
	static const int delay[N] = {80, 20, 100, 40, 60};
	struct probe p[N];
	volatile int order[N], norder = 0;
	uint64_t now = now_ms();
	int got = 0;

	for (int i = 0; i < N; i++) {
		probe_init(&p[i], i);
		p[i].order = order;
		p[i].norder = &norder;
	}
	for (int i = 0; i < N; i++)
		timer_add(&p[i].timer, now + (uint64_t)delay[i]);
	for (int i = 0; i < N; i++)
		got += probe_wait(&p[i], 100 + LATE_MS) == 0;
	for (int i = 0; i < N; i++)
		timer_del(&p[i].timer);
	KASSERT_TRUE(t, got == N && norder == N);
	/* Expiry order: 20, 40, 60, 80, 100 ms. */
	KEXPECT_EQ(t, order[0], 1);
	KEXPECT_EQ(t, order[1], 3);
	KEXPECT_EQ(t, order[2], 4);
	KEXPECT_EQ(t, order[3], 0);
	KEXPECT_EQ(t, order[4], 2);
}

/* A slow callback, to catch timer_del returning while it still runs. */
struct slow {
	struct timer timer;
	volatile int started, finished;
};

static void
slow_fn(struct timer *tm)
{
	struct slow *s = tm->data;

	WRITE_ONCE(s->started, 1);
	udelay(10000);
	WRITE_ONCE(s->finished, 1);
}

struct del_ctx {
	struct slow s;
	struct completion done;
	volatile int finished_after_del, saw_start;
};

static void
del_thread(void *arg)
{
	struct del_ctx *c = arg;
	uint64_t end = now_ms() + LATE_MS;

	timer_add(&c->s.timer, now_ms() + 5);
	while (!READ_ONCE(c->s.started) && now_ms() < end)
		cpu_relax();
	c->saw_start = READ_ONCE(c->s.started);
	timer_del(&c->s.timer);
	c->finished_after_del = READ_ONCE(c->s.finished);
	complete(&c->done);
	kt_shared_put(c);
}

static void
timer_del_waits_for_callback(struct ktest *t)
{
	int other = -1;
	struct del_ctx *c;

	/* Callbacks run on CPU 0; deleting from CPU 0 can never overlap
	 * one, so the deleter must run elsewhere. */
	for (int i = 1; i < MAX_CPUS; i++)
		if (READ_ONCE(cpus[i].state) == CPU_ONLINE)
			other = i;
	if (other < 0) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	c = kt_shared_alloc(sizeof(*c), 2);
	KASSERT_TRUE(t, c != NULL);
	timer_init(&c->s.timer, slow_fn, &c->s);
	completion_init(&c->done);
	if (thread_create("ktest-tdel", del_thread, c, other) == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		kt_shared_put(c);
		kt_shared_put(c);
		return;
	}
	KEXPECT_EQ(t, wait_for_completion_timeout(&c->done, 2 * LATE_MS, false),
	           0);
	KEXPECT_EQ(t, c->saw_start, 1);
	KEXPECT_EQ(t, c->finished_after_del, 1);
	kt_shared_put(c);
}

static void
msleep_lower_bound(struct ktest *t)
{
	static const unsigned ms[] = {1, 10, 100, 250};

	for (unsigned i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		uint64_t t0 = now_ms(), d;

		msleep(ms[i]);
		d = now_ms() - t0;
		KEXPECT_MSG(t, d >= ms[i], "msleep(%u) returned after %u ms",
		            ms[i], (unsigned)d);
		KEXPECT_MSG(t, d <= ms[i] + LATE_MS, "msleep(%u) took %u ms",
		            ms[i], (unsigned)d);
	}
}

KTEST_SUITE(timer, KTEST_CASE(now_ms_advances),
            KTEST_CASE(timer_fires_after_expiry),
            KTEST_CASE(timer_callback_context),
            KTEST_CASE(timer_del_prevents_fire), KTEST_CASE(timer_rearm_moves),
            KTEST_CASE(timer_ordering),
            KTEST_CASE(timer_del_waits_for_callback),
            KTEST_CASE(msleep_lower_bound));
