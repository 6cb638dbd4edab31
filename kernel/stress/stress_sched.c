/*
 * Suite "stress_sched": wait queues, completions, threads, signals and
 * mutexes under load from every CPU (stress_util.h: rounds scale with the
 * stress_scale sysctl).
 *
 * Pins down, with exact counts rather than "it did not crash":
 *  - ping-pong pairs on neighbouring CPUs hand a ball back and forth
 *    through wait_event/wake_up; a lost wakeup stalls a pair and shows
 *    up as a timed-out wait
 *  - a completion's memory is not touched by complete() once
 *    wait_for_completion returned: the waiter scribbles a pattern over it
 *    at once and checks the pattern later
 *  - threads created from every CPU at once, doing a little and exiting,
 *    all run once and give back every stack page, thread object and
 *    thread-count slot
 *  - thread_signal (from threads and from a timer callback, like Ctrl-C
 *    from the UART interrupt) racing with wakeups: an interruptible wait
 *    returns -EINTR only with a signal pending, never loses the wakeup,
 *    and a signal sent to a sleeper always ends its sleep
 *  - a mutex taken with lock, lock_interruptible and trylock by a
 *    thread per CPU, sleeping while held, never has two holders and
 *    keeps a counter exact
 */
#include <kernel/stress/stress_util.h>
#include <kernel/locking/mutex.h>
#include <kernel/mm/memtag.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/layout.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

#define WAIT_MS 5000

static int
nworkers(int per_cpu)
{
	int ids[MAX_CPUS], n = stress_online(ids) * per_cpu;

	if (n < 2)
		n = 2;
	return n > STRESS_MAX_WORKERS ? STRESS_MAX_WORKERS : n;
}

/* ---- ping-pong ------------------------------------------------------ */

struct pp_pair {
	struct waitq wq;
	volatile int ball;
};

struct pp {
	int rounds;
	volatile int timeouts, passes;
	struct pp_pair pair[STRESS_MAX_WORKERS / 2];
};

static void
pp_worker(struct stress_crew *crew, int idx)
{
	struct pp *s = crew->arg;
	struct pp_pair *p = &s->pair[idx / 2];
	int side = idx % 2;
	uint32_t seed = 0x1234567u * (idx + 1);

	for (int r = 0; r < s->rounds; r++) {
		int want = 2 * r + side;
		int ret = wait_event_timeout(p->wq, READ_ONCE(p->ball) == want,
		                             WAIT_MS);

		if (ret != 0) {
			__atomic_fetch_add(&s->timeouts, 1, __ATOMIC_SEQ_CST);
			/* Let the partner run out too, not wait forever. */
			WRITE_ONCE(p->ball, -1);
			wake_up(&p->wq);
			return;
		}
		/* Vary the interleavings a little. */
		switch (stress_rand(&seed) % 8) {
		case 0:
			thread_yield();
			break;
		case 1:
			udelay(stress_rand(&seed) % 200);
			break;
		}
		__atomic_fetch_add(&s->passes, 1, __ATOMIC_SEQ_CST);
		WRITE_ONCE(p->ball, want + 1);
		wake_up(&p->wq);
	}
}

static void
wait_wake_pingpong(struct ktest *t)
{
	int n = nworkers(2) & ~1;
	struct pp *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(300);
	for (int i = 0; i < n / 2; i++)
		waitq_init(&s->pair[i].wq, "stress-pp");
	crew = stress_crew_start(pp_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	/* Bounded by progress, not by the total: 8 CPUs' handoffs on two
	 * busy host cores once took longer than a fixed 60 s without any
	 * wait timing out.  A lost wakeup shows as a timed-out wait; a
	 * hang as a minute with no handoff. */
	KEXPECT_MSG(
	    t,
	    stress_crew_wait_progress(crew, &s->passes, stress_bound_ms(60000)),
	    "no handoff for %u ms (%d of %d done)", stress_bound_ms(60000),
	    s->passes, n * s->rounds);
	KEXPECT_MSG(t, s->timeouts == 0,
	            "%d wait(s) timed out: a wakeup was lost", s->timeouts);
	KEXPECT_EQ(t, s->passes, n * s->rounds);
out:
	kt_shared_put(s);
}

/* ---- completions reused right after the wait ------------------------ */

#define NSLOTS   8
#define SCRIBBLE 0xa5

struct cr {
	struct waitq mb_wq;
	struct completion *volatile mb;
	volatile int stop, late_writes, timeouts;
	struct completion slots[NSLOTS];
};

static bool
scribbled(const struct completion *c)
{
	const uint8_t *p = (const uint8_t *)c;

	for (size_t i = 0; i < sizeof(*c); i++)
		if (p[i] != SCRIBBLE)
			return false;
	return true;
}

static void
cr_completer(struct stress_crew *crew, int idx)
{
	struct cr *s = crew->arg;
	uint32_t seed = 77 + idx;

	for (;;) {
		struct completion *c;

		if (wait_event_timeout(s->mb_wq,
		                       READ_ONCE(s->mb) != NULL ||
		                           READ_ONCE(s->stop),
		                       2 * WAIT_MS) != 0 ||
		    READ_ONCE(s->stop))
			return;
		c = __atomic_exchange_n(&s->mb, NULL, __ATOMIC_SEQ_CST);
		if (c == NULL)
			continue;
		if (stress_rand(&seed) % 2)
			udelay(stress_rand(&seed) % 100);
		complete(c);
	}
}

static void
completion_reuse_after_wait(struct ktest *t)
{
	struct cr *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	int rounds = stress_rounds(600);
	uint32_t seed = 99;

	KASSERT_TRUE(t, s != NULL);
	waitq_init(&s->mb_wq, "stress-cr");
	memset(s->slots, SCRIBBLE, sizeof(s->slots));
	/* One completer: on another CPU when there is one. */
	crew = stress_crew_start(cr_completer, s, 1);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	for (int i = 0; i < rounds; i++) {
		struct completion *c = &s->slots[i % NSLOTS];

		if (!scribbled(c))
			s->late_writes++;
		completion_init(c);
		__atomic_store_n(&s->mb, c, __ATOMIC_SEQ_CST);
		wake_up(&s->mb_wq);
		if (stress_rand(&seed) % 2)
			udelay(stress_rand(&seed) % 100);
		if (wait_for_completion_timeout(c, WAIT_MS, false) != 0) {
			s->timeouts++;
			break;
		}
		/* "Free" it: from here on nobody may write to it. */
		memset(c, SCRIBBLE, sizeof(*c));
	}
	msleep(20);
	for (int i = 0; i < NSLOTS; i++)
		if (!scribbled(&s->slots[i]))
			s->late_writes++;
	WRITE_ONCE(s->stop, 1);
	wake_up(&s->mb_wq);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(30000)));
	KEXPECT_EQ(t, s->timeouts, 0);
	KEXPECT_MSG(t, s->late_writes == 0,
	            "a completion was written %d time(s) after its wait "
	            "returned",
	            s->late_writes);
out:
	kt_shared_put(s);
}

/* ---- thread create/exit storm ---------------------------------------- */

struct ts {
	int per_creator;
	volatile int created, ran, create_failed;
	struct waitq wq;
	volatile int poke;
};

struct ts_child {
	struct ts *s;
	uint32_t seed;
};

static void
ts_child(void *arg)
{
	struct ts_child *c = arg;
	struct ts *s = c->s;

	switch (stress_rand(&c->seed) % 4) {
	case 0:
		break;
	case 1:
		thread_yield();
		break;
	case 2:
		msleep(1);
		break;
	case 3: {
		/* Sleep briefly until a sibling pokes, then poke others. */
		int seen = READ_ONCE(s->poke);

		wait_event_timeout(s->wq, READ_ONCE(s->poke) != seen, 2);
		__atomic_fetch_add(&s->poke, 1, __ATOMIC_SEQ_CST);
		wake_up(&s->wq);
		break;
	}
	}
	__atomic_fetch_add(&s->ran, 1, __ATOMIC_SEQ_CST);
	kt_shared_put(c);
	kt_shared_put(s);
}

static void
ts_creator(struct stress_crew *crew, int idx)
{
	struct ts *s = crew->arg;
	int ids[MAX_CPUS], ncpu = stress_online(ids);

	for (int i = 0; i < s->per_creator; i++) {
		struct ts_child *c = kt_shared_alloc(sizeof(*c), 1);
		/* Alternately on a neighbour CPU and round-robin. */
		int cpu = i % 2 ? ids[(idx + 1) % ncpu] : -1;

		if (c == NULL) {
			__atomic_fetch_add(&s->create_failed, 1,
			                   __ATOMIC_SEQ_CST);
			continue;
		}
		c->s = s;
		c->seed = (uint32_t)(idx * 7919 + i + 1);
		kt_shared_get(s);
		if (thread_create("stress-child", ts_child, c, cpu) == NULL) {
			kt_shared_put(s);
			kt_shared_put(c);
			__atomic_fetch_add(&s->create_failed, 1,
			                   __ATOMIC_SEQ_CST);
			continue;
		}
		__atomic_fetch_add(&s->created, 1, __ATOMIC_SEQ_CST);
	}
}

static int32_t
tag_pages(const char *tag)
{
	return memtag_at(memtag_index(tag))->pages;
}

static int32_t
tag_objs(const char *tag)
{
	return memtag_at(memtag_index(tag))->objs;
}

static void
thread_create_exit_storm(struct ktest *t)
{
	long threads0 = kt_settle(kt_nr_threads, 30, KT_SOON_MS);
	int32_t stacks0 = tag_pages("stack"), objs0 = tag_objs("thread");
	int n = nworkers(1);
	struct ts *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	bool settled;

	KASSERT_TRUE(t, s != NULL);
	s->per_creator = stress_rounds(100);
	waitq_init(&s->wq, "stress-ts");
	crew = stress_crew_start(ts_creator, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	KEXPECT_EQ(t, s->create_failed, 0);
	KEXPECT_EQ(t, s->created, n * s->per_creator);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(s->ran) == s->created,
	                        stress_bound_ms(30000)));
	settled =
	    kt_poll(nr_threads() == threads0 && tag_pages("stack") == stacks0 &&
	                tag_objs("thread") == objs0,
	            KT_SOON_MS);
	KEXPECT_MSG(t, settled,
	            "after the storm: %d threads (was %ld), %d stack pages "
	            "(was %d), %d thread objects (was %d)",
	            nr_threads(), threads0, tag_pages("stack"), stacks0,
	            tag_objs("thread"), objs0);
out:
	kt_shared_put(s);
}

/* ---- signals racing with wakeups --------------------------------------- */

struct sg {
	int rounds, n;
	struct waitq wq;
	struct waitq never_wq;
	volatile int go[STRESS_MAX_WORKERS];
	volatile int phase; /* 0 rounds, 1 sleep-until-signal, 2 release */
	struct thread *volatile th[STRESS_MAX_WORKERS];
	volatile int ready, rounds_done, eintr, bogus_eintr, timeouts;
	volatile int asleep[STRESS_MAX_WORKERS], interrupted;
};

static void
sg_helper(struct stress_crew *crew, int idx)
{
	struct sg *s = crew->arg;

	s->th[idx] = current;
	__atomic_fetch_add(&s->ready, 1, __ATOMIC_SEQ_CST);
	for (int r = 1; r <= s->rounds; r++) {
		for (;;) {
			int ret = wait_event_interruptible_timeout(
			    s->wq, READ_ONCE(s->go[idx]) >= r, WAIT_MS);

			if (ret == -EINTR) {
				if (!signal_pending())
					__atomic_fetch_add(&s->bogus_eintr, 1,
					                   __ATOMIC_SEQ_CST);
				clear_signal();
				__atomic_fetch_add(&s->eintr, 1,
				                   __ATOMIC_SEQ_CST);
				continue;
			}
			if (ret != 0) {
				__atomic_fetch_add(&s->timeouts, 1,
				                   __ATOMIC_SEQ_CST);
				goto park;
			}
			break;
		}
	}
	__atomic_fetch_add(&s->rounds_done, 1, __ATOMIC_SEQ_CST);
	/* Phase 1: sleep on a condition that never comes true; only a
	 * signal ends it. */
	wait_event_timeout(s->wq, READ_ONCE(s->phase) >= 1, 2 * WAIT_MS);
	clear_signal();
	s->asleep[idx] = 1;
	if (wait_event_interruptible_timeout(s->never_wq, false, WAIT_MS) ==
	    -EINTR)
		__atomic_fetch_add(&s->interrupted, 1, __ATOMIC_SEQ_CST);
	clear_signal();
park:
	/* Stay alive (and signalable) until the test lets go. */
	wait_event_timeout(s->wq, READ_ONCE(s->phase) >= 2,
	                   stress_bound_ms(60000));
}

struct sg_timer {
	struct timer tm;
	struct thread *th;
};

static void
sg_timer_fn(struct timer *tm)
{
	struct sg_timer *st = tm->data;

	thread_signal(st->th); /* as the UART interrupt does for Ctrl-C */
}

static bool
on_queue(struct waitq *wq, struct thread *th)
{
	struct wait_entry *w;
	bool found = false;
	uint32_t f = spin_lock_irqsave(&wq->lock);

	list_for_each_entry(w, &wq->waiters, link)
		if (w->thread == th && th->state == T_SLEEPING)
			found = true;
	spin_unlock_irqrestore(&wq->lock, f);
	return found;
}

static void
signal_races_wakeup(struct ktest *t)
{
	struct sg *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	struct sg_timer st;
	uint32_t seed = 4242;
	int n = nworkers(1);

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(200);
	s->n = n;
	waitq_init(&s->wq, "stress-sg");
	waitq_init(&s->never_wq, "stress-sg-never");
	timer_init(&st.tm, sg_timer_fn, &st);
	crew = stress_crew_start(sg_helper, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	if (!kt_poll(READ_ONCE(s->ready) == n, KT_SOON_MS)) {
		KEXPECT_MSG(t, false, "helpers did not start");
		goto release;
	}
	for (int r = 1; r <= s->rounds; r++) {
		int i = (int)(stress_rand(&seed) % (uint32_t)n);
		uint32_t how = stress_rand(&seed) % 4;

		/* Advance every helper; signal one of them in a random
		 * position relative to the wakeup (before, after, from a
		 * timer interrupt that lands around it). */
		if (how == 0)
			thread_signal(s->th[i]);
		if (how == 2) {
			st.th = s->th[i];
			timer_add(&st.tm, now_ms() + stress_rand(&seed) % 2);
		}
		for (int k = 0; k < n; k++)
			WRITE_ONCE(s->go[k], r);
		wake_up(&s->wq);
		if (how == 1)
			thread_signal(s->th[i]);
		if (stress_rand(&seed) % 4 == 0)
			udelay(stress_rand(&seed) % 300);
		/* The timer must be finished before st is reused. */
		timer_del(&st.tm);
	}
	KEXPECT_TRUE(
	    t, kt_poll(READ_ONCE(s->rounds_done) + READ_ONCE(s->timeouts) == n,
	               stress_bound_ms(30000)));
	KEXPECT_MSG(t, s->timeouts == 0,
	            "%d helper(s) timed out: a wakeup was lost", s->timeouts);
	KEXPECT_MSG(t, s->bogus_eintr == 0,
	            "%d -EINTR without a pending signal", s->bogus_eintr);
	/* Phase 1: every sleeping helper is woken by a signal, half of
	 * them from a timer callback. */
	WRITE_ONCE(s->phase, 1);
	wake_up(&s->wq);
	for (int i = 0; i < n && s->timeouts == 0; i++) {
		if (!kt_poll(READ_ONCE(s->asleep[i]) &&
		                 on_queue(&s->never_wq, s->th[i]),
		             KT_SOON_MS)) {
			KEXPECT_MSG(t, false, "helper %d never went to sleep",
			            i);
			break;
		}
		if (i % 2) {
			thread_signal(s->th[i]);
		} else {
			st.th = s->th[i];
			timer_add(&st.tm, now_ms() + 1);
			KEXPECT_TRUE(t,
			             kt_poll(!on_queue(&s->never_wq, s->th[i]),
			                     KT_SOON_MS));
			timer_del(&st.tm);
		}
	}
	if (s->timeouts == 0)
		KEXPECT_TRUE(
		    t, kt_poll(READ_ONCE(s->interrupted) == n, KT_SOON_MS));
release:
	timer_del(&st.tm);
	WRITE_ONCE(s->phase, 2);
	wake_up(&s->wq);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(30000)));
out:
	kt_shared_put(s);
}

/* ---- mutex contention ---------------------------------------------------- */

struct mx {
	struct mutex m;
	int iters;
	volatile int holders, overlaps, not_owner, intr_failed;
	volatile uint32_t counter;
};

static void
mx_worker(struct stress_crew *crew, int idx)
{
	struct mx *s = crew->arg;
	uint32_t seed = 31337u * (idx + 1), v;

	for (int i = 0; i < s->iters; i++) {
		switch (stress_rand(&seed) % 4) {
		case 0:
			if (mutex_lock_interruptible(&s->m) != 0) {
				__atomic_fetch_add(&s->intr_failed, 1,
				                   __ATOMIC_SEQ_CST);
				continue;
			}
			break;
		case 1:
			while (!mutex_trylock(&s->m))
				thread_yield();
			break;
		default:
			mutex_lock(&s->m);
			break;
		}
		if (__atomic_add_fetch(&s->holders, 1, __ATOMIC_SEQ_CST) != 1)
			__atomic_fetch_add(&s->overlaps, 1, __ATOMIC_SEQ_CST);
		if (!mutex_held(&s->m))
			__atomic_fetch_add(&s->not_owner, 1, __ATOMIC_SEQ_CST);
		v = s->counter;
		switch (stress_rand(&seed) % 16) {
		case 0:
			msleep(1); /* the holder may sleep */
			break;
		case 1:
			thread_yield();
			break;
		default:
			cpu_relax();
		}
		s->counter = v + 1;
		__atomic_sub_fetch(&s->holders, 1, __ATOMIC_SEQ_CST);
		mutex_unlock(&s->m);
	}
}

static void
mutex_contention(struct ktest *t)
{
	struct mx *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	/* One per CPU: every unlock wakes every waiter, so more threads
	 * cost quadratically on 8 emulated CPUs. */
	int n = nworkers(1);

	KASSERT_TRUE(t, s != NULL);
	mutex_init(&s->m, "stress-mutex");
	s->iters = stress_rounds(150);
	crew = stress_crew_start(mx_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	KEXPECT_EQ(t, s->overlaps, 0);
	KEXPECT_EQ(t, s->not_owner, 0);
	KEXPECT_EQ(t, s->intr_failed, 0);
	KEXPECT_EQ(t, s->counter, (uint32_t)(n * s->iters));
	KEXPECT_TRUE(t, s->m.owner == NULL);
	KEXPECT_TRUE(t, !waitq_active(&s->m.wq));
out:
	kt_shared_put(s);
}

KTEST_SUITE(stress_sched, KTEST_CASE(wait_wake_pingpong),
            KTEST_CASE(completion_reuse_after_wait),
            KTEST_CASE(thread_create_exit_storm),
            KTEST_CASE(signal_races_wakeup), KTEST_CASE(mutex_contention));
