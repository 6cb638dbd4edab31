/*
 * Suite "thread": kernel threads, preemption and deferred work (sched.h,
 * work.h).
 *
 * Pins down that many threads can be created and exit and that they give
 * everything back (stacks, thread structures, the thread count: these
 * are freed by the scheduler after the thread switched away, so the test
 * waits, bounded, for the counts to settle); that a thread created for a
 * CPU runs there and stays there; that a thread spinning without ever
 * sleeping does not starve another on the same CPU (preemption); that
 * preemption never loses a thread that is about to sleep; and that work
 * items run in the kworker thread, in queueing order, once per queueing,
 * can be queued from a timer callback, and that cancel_work_sync removes
 * a queued item and waits for a running one; and that thread_run_on runs
 * its function on the CPU asked for, returns its result, refuses a CPU
 * that is not online, and passes Ctrl-C on to the function.
 *
 * Work tests hold the single kworker in a "gate" item to make queue
 * states deterministic.  The gate gives up by itself after a while, so a
 * failing test can never wedge the kworker for good.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/work.h>
#include <kernel/sched/waitq.h>
#include <kernel/mm/memtag.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/layout.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <kernel/lib/errno.h>

#define NTHREADS         32
#define SPIN_DEADLINE_MS 10000

/* ---- create and exit ------------------------------------------------ */

struct many {
	struct completion gate;
	volatile int running, exiting;
};

static void
many_fn(void *arg)
{
	struct many *m = arg;

	__atomic_fetch_add(&m->running, 1, __ATOMIC_SEQ_CST);
	wait_for_completion_timeout(&m->gate, 2 * KT_SOON_MS, false);
	__atomic_fetch_add(&m->exiting, 1, __ATOMIC_SEQ_CST);
	kt_shared_put(m);
}

static void
thread_create_exit_many(struct ktest *t)
{
	long threads0 = kt_settle(kt_nr_threads, 30, KT_SOON_MS);
	int32_t stacks0 = kt_tag_pages("stack"), objs0 = kt_tag_objs("thread");
	struct many *m = kt_shared_alloc(sizeof(*m), 1 + NTHREADS);
	int n = 0;

	KASSERT_TRUE(t, m != NULL);
	completion_init(&m->gate);
	for (int i = 0; i < NTHREADS; i++) {
		if (thread_create("ktest-many", many_fn, m, -1) != NULL)
			n++;
		else
			kt_shared_put(m);
	}
	KEXPECT_EQ(t, n, NTHREADS);
	/* All alive at once: each holds a stack and a thread structure. */
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(m->running) == n, KT_SOON_MS));
	KEXPECT_EQ(t, nr_threads(), threads0 + n);
	KEXPECT_EQ(t, kt_tag_pages("stack"), stacks0 + n * KSTACK_PAGES);
	KEXPECT_EQ(t, kt_tag_objs("thread"), objs0 + n);
	complete(&m->gate);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(m->exiting) == n, KT_SOON_MS));
	KEXPECT_MSG(t,
	            kt_poll(nr_threads() == threads0 &&
	                        kt_tag_pages("stack") == stacks0 &&
	                        kt_tag_objs("thread") == objs0,
	                    KT_SOON_MS),
	            "after exit: %d threads (was %ld), %d stack pages (was "
	            "%d), %d thread objects (was %d)",
	            nr_threads(), threads0, kt_tag_pages("stack"), stacks0,
	            kt_tag_objs("thread"), objs0);
	kt_shared_put(m);
}

struct brief {
	volatile int ran;
};

static void
brief_fn(void *arg)
{
	struct brief *b = arg;

	__atomic_fetch_add(&b->ran, 1, __ATOMIC_SEQ_CST);
	kt_shared_put(b);
}

/*
 * Threads that exit at once, on another CPU: thread_create() (and the
 * wakeup inside it) must be done with the new thread before it can have
 * run, exited and been freed over there.  Many rounds, because the
 * window is whatever stalls the creating CPU at the wrong moment.
 */
static void
thread_create_short_lived(struct ktest *t)
{
	enum { ROUNDS = 400 };
	long threads0 = kt_settle(kt_nr_threads, 30, KT_SOON_MS);
	int32_t stacks0 = kt_tag_pages("stack");
	struct brief *b = kt_shared_alloc(sizeof(*b), 1);
	int other = kt_other_cpu(), n = 0;

	KASSERT_TRUE(t, b != NULL);
	for (int i = 0; i < ROUNDS; i++) {
		kt_shared_get(b);
		if (thread_create("ktest-brief", brief_fn, b,
		                  other >= 0 ? other : -1) != NULL)
			n++;
		else
			kt_shared_put(b);
	}
	KEXPECT_EQ(t, n, ROUNDS);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(b->ran) == n, KT_SOON_MS));
	KEXPECT_TRUE(t, kt_poll(nr_threads() == threads0 &&
	                            kt_tag_pages("stack") == stacks0,
	                        KT_SOON_MS));
	kt_shared_put(b);
}

/* ---- placement ------------------------------------------------------ */

struct place;

struct place_arg {
	struct place *p;
	int cpu;
};

struct place {
	volatile int cpu_at_start[MAX_CPUS], moved[MAX_CPUS];
	struct completion done[MAX_CPUS];
	struct place_arg args[MAX_CPUS];
};

static void
place_fn(void *arg)
{
	struct place_arg *a = arg;
	struct place *p = a->p;
	int me = a->cpu;

	p->cpu_at_start[me] = cpu_id();
	/* Sleep and yield: a thread never migrates, whatever it does. */
	for (int i = 0; i < 10; i++) {
		if (i % 2)
			msleep(1);
		else
			thread_yield();
		if (cpu_id() != me)
			p->moved[me] = 1;
	}
	complete(&p->done[me]);
	kt_shared_put(p);
}

static void
thread_stays_on_its_cpu(struct ktest *t)
{
	struct place *p = kt_shared_alloc(sizeof(*p), 1);
	int n = 0;

	KASSERT_TRUE(t, p != NULL);
	for (int i = 0; i < MAX_CPUS; i++) {
		completion_init(&p->done[i]);
		p->cpu_at_start[i] = -1;
		p->args[i].p = p;
		p->args[i].cpu = i;
	}
	for (int i = 0; i < MAX_CPUS; i++) {
		if (READ_ONCE(cpus[i].state) != CPU_ONLINE)
			continue;
		kt_shared_get(p);
		if (thread_create("ktest-place", place_fn, &p->args[i], i) ==
		    NULL) {
			KEXPECT_MSG(t, false, "cannot create thread on cpu %d",
			            i);
			kt_shared_put(p);
			continue;
		}
		n++;
		KEXPECT_EQ(
		    t,
		    wait_for_completion_timeout(&p->done[i], KT_SOON_MS, false),
		    0);
		KEXPECT_EQ(t, p->cpu_at_start[i], i);
		KEXPECT_EQ(t, p->moved[i], 0);
	}
	KEXPECT_EQ(t, n, kt_online_cpus());
	kt_shared_put(p);
}

/* ---- preemption ----------------------------------------------------- */

struct spin;

struct spin_arg {
	struct spin *s;
	int me;
};

struct spin {
	volatile uint32_t count[2], saw_other[2];
	volatile int stop;
	uint64_t deadline;
	struct completion done[2];
	struct spin_arg args[2];
};

/* Never sleeps, never yields: only preemption lets the other one run.
 * The deadline ends it even if preemption is broken. */
static void
spin_fn(void *arg)
{
	struct spin_arg *a = arg;
	struct spin *s = a->s;
	int me = a->me, other = 1 - me;
	uint32_t seen = s->count[other];

	while (!READ_ONCE(s->stop) && now_ms() < s->deadline) {
		uint32_t o = READ_ONCE(s->count[other]);

		s->count[me]++;
		if (o != seen) {
			seen = o;
			s->saw_other[me]++;
		}
	}
	complete(&s->done[me]);
	kt_shared_put(s);
}

static void
spinners_share_a_cpu(struct ktest *t)
{
	struct spin *s = kt_shared_alloc(sizeof(*s), 1);
	int n = 0;
	bool both;

	KASSERT_TRUE(t, s != NULL);
	s->deadline = now_ms() + SPIN_DEADLINE_MS;
	for (int i = 0; i < 2; i++) {
		completion_init(&s->done[i]);
		s->args[i].s = s;
		s->args[i].me = i;
	}
	/* Both on our own CPU: on two CPUs they would run side by side
	 * without any preemption. */
	for (int i = 0; i < 2; i++) {
		kt_shared_get(s);
		if (thread_create("ktest-spin", spin_fn, &s->args[i],
		                  cpu_id()) != NULL)
			n++;
		else
			kt_shared_put(s);
	}
	KASSERT_TRUE(t, n == 2);
	/* Each must see the other make progress several times: they take
	 * turns, they are not just started one after the other. */
	both = kt_poll(READ_ONCE(s->saw_other[0]) >= 3 &&
	                   READ_ONCE(s->saw_other[1]) >= 3,
	               SPIN_DEADLINE_MS);
	WRITE_ONCE(s->stop, 1);
	for (int i = 0; i < 2; i++)
		KEXPECT_EQ(t,
		           wait_for_completion_timeout(&s->done[i],
		                                       SPIN_DEADLINE_MS, false),
		           0);
	KEXPECT_MSG(t, both,
	            "spinners saw each other advance %u and %u times "
	            "(counts %u, %u)",
	            s->saw_other[0], s->saw_other[1], s->count[0], s->count[1]);
	kt_shared_put(s);
}

struct going {
	struct completion done, may_exit;
	volatile int survived;
};

/*
 * Every wait in the kernel is "state = sleeping; check the condition;
 * schedule()".  An interrupt can preempt the thread between the first
 * two steps; it must then stay runnable (it has not slept yet), or it is
 * lost: nobody will wake it because the condition it was about to find
 * true has already been signalled.  This thread widens that window to a
 * few time slices so a preemption lands in it for sure.
 */
static void
going_fn(void *arg)
{
	struct going *g = arg;

	set_current_state(T_SLEEPING, false);
	udelay(50000);
	set_current_state(T_RUNNING, false);
	g->survived = 1;
	complete(&g->done);
	/* Stay alive until the test is done with our struct thread. */
	wait_for_completion_timeout(&g->may_exit, 2 * KT_SOON_MS, false);
	kt_shared_put(g);
}

static void
preempt_keeps_sleeper_runnable(struct ktest *t)
{
	struct going *g = kt_shared_alloc(sizeof(*g), 2);
	struct thread *th;
	int r;

	KASSERT_TRUE(t, g != NULL);
	completion_init(&g->done);
	completion_init(&g->may_exit);
	th = thread_create("ktest-going", going_fn, g, -1);
	if (th == NULL) {
		KEXPECT_MSG(t, false, "cannot create thread");
		kt_shared_put(g);
		kt_shared_put(g);
		return;
	}
	r = wait_for_completion_timeout(&g->done, KT_SOON_MS, false);
	KEXPECT_MSG(t, r == 0,
	            "thread preempted while going to sleep was never run "
	            "again");
	if (r != 0) {
		/* Rescue it, so it does not sleep forever. */
		wake_up_thread(th);
		wait_for_completion_timeout(&g->done, KT_SOON_MS, false);
	}
	KEXPECT_EQ(t, g->survived, 1);
	complete(&g->may_exit);
	kt_shared_put(g);
}

/* ---- deferred work -------------------------------------------------- */

struct gate {
	struct work w;
	struct completion open;
	volatile int entered;
};

static void
gate_fn(struct work *w)
{
	struct gate *g = container_of(w, struct gate, w);

	WRITE_ONCE(g->entered, 1);
	wait_for_completion_timeout(&g->open, 2 * KT_SOON_MS, false);
}

/* Hold the kworker: everything queued now waits behind the gate. */
static bool
gate_close(struct ktest *t, struct gate *g)
{
	work_init(&g->w, gate_fn);
	completion_init(&g->open);
	g->entered = 0;
	KEXPECT_TRUE(t, schedule_work(&g->w));
	if (!kt_poll(READ_ONCE(g->entered) != 0, KT_SOON_MS)) {
		KEXPECT_MSG(t, false, "kworker did not run the gate");
		return false;
	}
	return true;
}

static void
gate_open(struct gate *g)
{
	complete(&g->open);
	cancel_work_sync(&g->w);
}

struct rec {
	struct work w;
	int id;
	volatile int ran, in_irq;
	char thread[24];
	volatile int *log, *nlog;
	struct completion done;
};

static void
rec_fn(struct work *w)
{
	struct rec *r = container_of(w, struct rec, w);

	strlcpy(r->thread, thread_name(current), sizeof(r->thread));
	r->in_irq = in_interrupt();
	if (r->log != NULL)
		r->log[__atomic_fetch_add(r->nlog, 1, __ATOMIC_SEQ_CST)] =
		    r->id;
	__atomic_fetch_add(&r->ran, 1, __ATOMIC_SEQ_CST);
	complete(&r->done);
}

static void
rec_init(struct rec *r, int id)
{
	memset(r, 0, sizeof(*r));
	work_init(&r->w, rec_fn);
	completion_init(&r->done);
	r->id = id;
	r->in_irq = -1;
}

static void
work_runs_in_kworker(struct ktest *t)
{
	struct rec r;

	rec_init(&r, 0);
	KEXPECT_TRUE(t, schedule_work(&r.w));
	KEXPECT_EQ(t, wait_for_completion_timeout(&r.done, KT_SOON_MS, false),
	           0);
	/* Also waits until the kworker is done with r. */
	KEXPECT_TRUE(t, !cancel_work_sync(&r.w));
	KEXPECT_EQ(t, r.ran, 1);
	KEXPECT_MSG(t, strcmp(r.thread, "kworker") == 0, "ran in thread '%s'",
	            r.thread);
	KEXPECT_EQ(t, r.in_irq, 0);
}

static void
work_queued_once(struct ktest *t)
{
	struct gate g;
	struct rec r;

	rec_init(&r, 0);
	if (!gate_close(t, &g))
		goto out;
	KEXPECT_TRUE(t, schedule_work(&r.w));
	KEXPECT_TRUE(t, !schedule_work(&r.w));
	KEXPECT_TRUE(t, !schedule_work(&r.w));
out:
	gate_open(&g);
	KEXPECT_EQ(t, wait_for_completion_timeout(&r.done, KT_SOON_MS, false),
	           0);
	cancel_work_sync(&r.w);
	KEXPECT_EQ(t, r.ran, 1);
	/* Once it ran, it can be queued again. */
	KEXPECT_TRUE(t, schedule_work(&r.w));
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(r.ran) == 2, KT_SOON_MS));
	cancel_work_sync(&r.w);
}

static void
work_runs_in_order(struct ktest *t)
{
	enum { N = 4 };
	struct gate g;
	struct rec r[N];
	volatile int log[N] = {-1, -1, -1, -1}, nlog = 0;
	int ok = 0;

	for (int i = 0; i < N; i++) {
		rec_init(&r[i], i);
		r[i].log = log;
		r[i].nlog = &nlog;
	}
	gate_close(t, &g);
	/* Queue in a scrambled order; they must run in exactly this one. */
	static const int q[N] = {2, 0, 3, 1};
	for (int i = 0; i < N; i++)
		KEXPECT_TRUE(t, schedule_work(&r[q[i]].w));
	gate_open(&g);
	for (int i = 0; i < N; i++) {
		ok += wait_for_completion_timeout(&r[i].done, KT_SOON_MS,
		                                  false) == 0;
		cancel_work_sync(&r[i].w);
	}
	KEXPECT_EQ(t, ok, N);
	KEXPECT_EQ(t, nlog, N);
	for (int i = 0; i < N; i++)
		KEXPECT_EQ(t, log[i], q[i]);
}

static void
cancel_work_sync_cancels_queued(struct ktest *t)
{
	struct gate g;
	struct rec r, sentinel;

	rec_init(&r, 0);
	rec_init(&sentinel, 1);
	gate_close(t, &g);
	KEXPECT_TRUE(t, schedule_work(&r.w));
	KEXPECT_TRUE(t, cancel_work_sync(&r.w));
	KEXPECT_TRUE(t, !cancel_work_sync(&r.w));
	KEXPECT_TRUE(t, schedule_work(&sentinel.w));
	gate_open(&g);
	/* Works run in order: once the sentinel ran, r would have too. */
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&sentinel.done, KT_SOON_MS, false),
	    0);
	cancel_work_sync(&sentinel.w);
	cancel_work_sync(&r.w);
	KEXPECT_EQ(t, r.ran, 0);
}

struct slow_work {
	struct work w;
	volatile int started, finished;
};

static void
slow_work_fn(struct work *w)
{
	struct slow_work *s = container_of(w, struct slow_work, w);

	WRITE_ONCE(s->started, 1);
	msleep(100);
	WRITE_ONCE(s->finished, 1);
}

static void
cancel_work_sync_waits_running(struct ktest *t)
{
	struct slow_work s = {.started = 0, .finished = 0};

	work_init(&s.w, slow_work_fn);
	KEXPECT_TRUE(t, schedule_work(&s.w));
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(s.started) != 0, KT_SOON_MS));
	/* Running, no longer queued: nothing to cancel, but wait. */
	KEXPECT_TRUE(t, !cancel_work_sync(&s.w));
	KEXPECT_EQ(t, s.finished, 1);
}

struct timer_work {
	struct timer timer;
	struct rec r;
	volatile int queued;
};

static void
queue_from_timer(struct timer *tm)
{
	struct timer_work *tw = tm->data;

	tw->queued = schedule_work(&tw->r.w);
}

/* Timer callbacks (interrupt context) hand work to the kworker. */
static void
work_from_timer_callback(struct ktest *t)
{
	struct timer_work tw;

	rec_init(&tw.r, 0);
	tw.queued = -1;
	timer_init(&tw.timer, queue_from_timer, &tw);
	timer_add(&tw.timer, now_ms() + 5);
	KEXPECT_EQ(
	    t, wait_for_completion_timeout(&tw.r.done, KT_SOON_MS, false), 0);
	timer_del(&tw.timer);
	cancel_work_sync(&tw.r.w);
	KEXPECT_EQ(t, tw.queued, 1);
	KEXPECT_EQ(t, tw.r.ran, 1);
	KEXPECT_EQ(t, tw.r.in_irq, 0);
	KEXPECT_MSG(t, strcmp(tw.r.thread, "kworker") == 0,
	            "ran in thread '%s'", tw.r.thread);
}

/* ---- idle time ------------------------------------------------------ */

/* A CPU whose only thread sleeps halts: `cpus` counts that time (in
 * TSC cycles), never more than passed. */
static void
idle_time_counts_halts(struct ktest *t)
{
	struct cpu *c = this_cpu();
	uint64_t idle0 = READ_ONCE(c->idle_tsc), t0 = rdtsc(), idle, el;

	msleep(100);
	idle = READ_ONCE(c->idle_tsc) - idle0;
	el = rdtsc() - t0;
	KEXPECT_MSG(t, idle > 0, "no idle time over a 100 ms sleep");
	KEXPECT_MSG(t, idle <= el, "idle %llu cycles of %llu elapsed", idle,
	            el);
}

/* ---- thread_run_on ------------------------------------------------- */

static int
report_cpu(void *arg)
{
	*(int *)arg = cpu_id();
	return 1000 + cpu_id();
}

static void
run_on_runs_there_and_returns(struct ktest *t)
{
	int ran = 0;

	for (int i = 0; i < MAX_CPUS; i++) {
		if (READ_ONCE(cpus[i].state) != CPU_ONLINE) {
			KEXPECT_EQ(
			    t, thread_run_on(i, "ktest-run", report_cpu, &ran),
			    -ENODEV);
			continue;
		}
		ran = -1;
		KEXPECT_EQ(t, thread_run_on(i, "ktest-run", report_cpu, &ran),
		           1000 + i);
		KEXPECT_EQ(t, ran, i);
	}
	KEXPECT_EQ(t, thread_run_on(-1, "ktest-run", report_cpu, &ran),
	           -ENODEV);
	KEXPECT_EQ(t, thread_run_on(MAX_CPUS, "ktest-run", report_cpu, &ran),
	           -ENODEV);
}

struct sleeper {
	volatile int started, signalled;
	struct thread *caller;
	uint64_t slept_ms;
};

static int
sleep_until_interrupted(void *arg)
{
	struct sleeper *s = arg;
	uint64_t t0 = now_ms();
	int r;

	WRITE_ONCE(s->started, 1);
	r = msleep_interruptible(30000);
	s->slept_ms = now_ms() - t0;
	return r;
}

/* Ctrl-C for the caller once the function runs.  The sleeper is shared
 * state (docs/testing.md): the case waits for `signalled` before it
 * returns, so the caller's thread is alive when it is signalled. */
static void
interrupt_caller(void *arg)
{
	struct sleeper *s = arg;

	kt_poll(READ_ONCE(s->started), KT_SOON_MS);
	thread_signal(s->caller);
	WRITE_ONCE(s->signalled, 1);
	kt_shared_put(s);
}

/* Ctrl-C on the caller reaches the function, whether it comes while the
 * function runs or before the worker has started. */
static void
run_on_passes_ctrl_c_on(struct ktest *t)
{
	struct sleeper *s = kt_shared_alloc(sizeof(*s), 2);
	int last = kt_online_cpus() > 1 ? 1 : 0;

	KASSERT_TRUE(t, s != NULL);
	s->caller = this_cpu()->curr;
	if (thread_create("ktest-intr", interrupt_caller, s, cpu_id()) ==
	    NULL) {
		kt_shared_put(s);
		KEXPECT_MSG(t, false, "cannot start the interrupter");
		goto out;
	}
	KEXPECT_EQ(t,
	           thread_run_on(last, "ktest-run", sleep_until_interrupted, s),
	           -EINTR);
	KEXPECT_MSG(t, s->slept_ms < 30000, "slept %u ms: never interrupted",
	            (unsigned)s->slept_ms);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(s->signalled), KT_SOON_MS));
	clear_signal();
	/* Signalled before the call: the worker starts interrupted. */
	s->started = 0;
	thread_signal(this_cpu()->curr);
	KEXPECT_EQ(t,
	           thread_run_on(last, "ktest-run", sleep_until_interrupted, s),
	           -EINTR);
	KEXPECT_TRUE(t, s->started);
	clear_signal();
out:
	kt_shared_put(s);
}

KTEST_SUITE(thread, KTEST_CASE(thread_create_exit_many),
            KTEST_CASE(thread_create_short_lived),
            KTEST_CASE(thread_stays_on_its_cpu),
            KTEST_CASE(spinners_share_a_cpu),
            KTEST_CASE(preempt_keeps_sleeper_runnable),
            KTEST_CASE(work_runs_in_kworker), KTEST_CASE(work_queued_once),
            KTEST_CASE(work_runs_in_order),
            KTEST_CASE(cancel_work_sync_cancels_queued),
            KTEST_CASE(cancel_work_sync_waits_running),
            KTEST_CASE(work_from_timer_callback),
            KTEST_CASE(idle_time_counts_halts),
            KTEST_CASE(run_on_runs_there_and_returns),
            KTEST_CASE(run_on_passes_ctrl_c_on));
