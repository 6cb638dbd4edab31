/*
 * Suite "stress_timer": timers and deferred work under load (timer.h,
 * work.h; rounds scale with the stress_scale sysctl).
 *
 * Pins down:
 *  - timers on the stacks of threads on every CPU, armed, re-armed and
 *    deleted against the tick: each arming either fires exactly once or
 *    is deleted while pending (never both, never neither), never fires
 *    early, and its callback never runs after timer_del returned
 *  - a timer whose callback re-arms it (a periodic timer, as protocol
 *    retransmit timers are) is gone for good once timer_del returns,
 *    even when the deletion lands while the callback runs
 *  - schedule_work/cancel_work_sync from every CPU (and from timer
 *    callbacks): every successful queueing is matched by exactly one run
 *    or one successful cancel, a work item never runs twice at once, and
 *    after cancel_work_sync it is neither queued nor running
 *  - a work item that re-queues itself is neither queued nor running
 *    once cancel_work_sync returns
 */
#include <kernel/stress/stress_util.h>
#include <kernel/sched/work.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/irq.h>

/* ---- timers on stacks ------------------------------------------------- */

struct tstorm {
	int rounds;
	volatile int after_del, early, miscount, overfire, cycles;
};

struct towner {
	struct timer tm;
	struct tstorm *s;
	volatile int alive, fired, exact;
};

static void
towner_fn(struct timer *tm)
{
	struct towner *o = tm->data;

	if (!READ_ONCE(o->alive))
		__atomic_fetch_add(&o->s->after_del, 1, __ATOMIC_SEQ_CST);
	if (o->exact && now_ms() < tm->expires)
		__atomic_fetch_add(&o->s->early, 1, __ATOMIC_SEQ_CST);
	o->fired++;
}

static void
tstorm_worker(struct stress_crew *crew, int idx)
{
	struct tstorm *s = crew->arg;
	struct towner o;
	uint32_t seed = 0xabcdefu + 131u * idx;

	o.s = s;
	o.alive = 0;
	timer_init(&o.tm, towner_fn, &o);
	for (int r = 0; r < s->rounds; r++) {
		uint32_t kind = stress_rand(&seed) % 3;
		bool was;

		o.fired = 0;
		o.exact = kind == 0;
		WRITE_ONCE(o.alive, 1);
		if (kind == 2) /* in the past: the next tick */
			timer_add(&o.tm, now_ms() - 1);
		else
			timer_add(&o.tm, now_ms() + stress_rand(&seed) % 3);
		if (kind == 1) /* re-arm, pending or not */
			timer_add(&o.tm, now_ms() + stress_rand(&seed) % 3);
		switch (stress_rand(&seed) % 4) {
		case 0:
			break;
		case 1:
			udelay(stress_rand(&seed) % 3000);
			break;
		case 2:
			msleep(stress_rand(&seed) % 3);
			break;
		case 3:
			thread_yield();
			break;
		}
		was = timer_del(&o.tm);
		WRITE_ONCE(o.alive, 0);
		if (kind != 1 && o.fired + (was ? 1 : 0) != 1)
			__atomic_fetch_add(&s->miscount, 1, __ATOMIC_SEQ_CST);
		if (kind == 1 && (o.fired > 2 || o.fired + (was ? 1 : 0) < 1))
			__atomic_fetch_add(&s->overfire, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&s->cycles, 1, __ATOMIC_SEQ_CST);
	}
	/* A late callback after our last delete would hit a dead frame:
	 * give one the chance to show itself while the frame still
	 * lives. */
	msleep(3);
}

static void
timer_stack_storm(struct ktest *t)
{
	int ids[MAX_CPUS], n = 2 * stress_online(ids);
	struct tstorm *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(150);
	crew = stress_crew_start(tstorm_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	KEXPECT_EQ(t, s->cycles, n * s->rounds);
	KEXPECT_MSG(t, s->after_del == 0,
	            "%d callback(s) ran after timer_del returned",
	            s->after_del);
	KEXPECT_MSG(t, s->early == 0, "%d timer(s) fired early", s->early);
	KEXPECT_MSG(t, s->miscount == 0,
	            "%d arming(s) fired+deleted != 1 (lost or doubled)",
	            s->miscount);
	KEXPECT_EQ(t, s->overfire, 0);
out:
	kt_shared_put(s);
}

/* ---- a periodic (self re-arming) timer deleted mid-callback ------------- */

#define PERIODIC_CB_US 3000

struct periodic {
	struct timer tm;
	volatile int in_cb, stop, fires, rounds, failures, skipped;
	/* Rounds whose callback the deleter never saw running: lost (it
	 * never ran: a timer bug), unseen (it ran, and the deleter spun
	 * without a pause and still missed every run: impossible unless
	 * in_cb is broken), stalled (it ran while the deleter's vCPU was
	 * not running: the host's doing; reported, and bounded). */
	volatile int lost, unseen, stalled;
	uint64_t longest_stall_us, lost_ticks;
};

static void
periodic_fn(struct timer *tm)
{
	struct periodic *p = tm->data;

	WRITE_ONCE(p->in_cb, 1);
	p->fires++;
	udelay(PERIODIC_CB_US); /* the window timer_del lands in */
	if (!READ_ONCE(p->stop))
		timer_add(tm, now_ms() + 1);
	WRITE_ONCE(p->in_cb, 0);
}

static void
periodic_deleter(struct stress_crew *crew, int idx)
{
	struct periodic *p = crew->arg;

	/* Worker 0 shares CPU 0 with the timer interrupt: only the
	 * others can delete while the callback runs. */
	if (cpu_id() == 0 || idx != 1) {
		if (idx == 1)
			p->skipped = 1;
		return;
	}
	for (int r = 0; r < p->rounds; r++) {
		uint64_t end = now_ms() + KT_SOON_MS, last = now_us(), gap = 0;
		uint64_t ticks = irq_count(0);
		int f0 = p->fires, f1;

		p->in_cb = 0;
		timer_add(&p->tm, now_ms() + 1);
		/* Delete while the callback certainly runs. */
		while (!READ_ONCE(p->in_cb) && now_ms() < end) {
			uint64_t t = now_us();

			if (t - last > gap)
				gap = t - last;
			last = t;
			cpu_relax();
		}
		if (!READ_ONCE(p->in_cb)) {
			/* Tell a lost timer from a deleter that was not
			 * running: the callback spends PERIODIC_CB_US of
			 * every ~PERIODIC_CB_US + 1 ms with in_cb set, so a
			 * deleter that never paused that long sees it. */
			uint64_t now = now_us();

			if (now - last > gap)
				gap = now - last;
			timer_del(&p->tm);
			if (p->fires == f0) {
				/* Did the tick stop, or the list? */
				p->lost++;
				p->lost_ticks = irq_count(0) - ticks;
			} else if (gap < PERIODIC_CB_US) {
				p->unseen++;
			} else {
				p->stalled++;
				if (gap > p->longest_stall_us)
					p->longest_stall_us = gap;
			}
			continue;
		}
		timer_del(&p->tm);
		f1 = p->fires;
		msleep(20);
		if (p->fires != f1 || p->tm.pending) {
			p->failures++;
			/* Stop it for real before the next round. */
			WRITE_ONCE(p->stop, 1);
			kt_poll(!p->tm.pending && !READ_ONCE(p->in_cb),
			        KT_SOON_MS);
			timer_del(&p->tm);
			kt_poll(!READ_ONCE(p->in_cb), KT_SOON_MS);
			WRITE_ONCE(p->stop, 0);
		}
	}
}

static void
periodic_timer_del(struct ktest *t)
{
	int ids[MAX_CPUS];
	struct periodic *p;
	struct stress_crew *crew;

	if (stress_online(ids) < 2) {
		ktest_skip(t, "needs a CPU other than the timer CPU");
		return;
	}
	p = kt_shared_alloc(sizeof(*p), 1);
	KASSERT_TRUE(t, p != NULL);
	timer_init(&p->tm, periodic_fn, p);
	p->rounds = stress_rounds(10);
	crew = stress_crew_start(periodic_deleter, p, 2);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	KEXPECT_EQ(t, p->skipped, 0);
	KEXPECT_MSG(t, p->failures == 0,
	            "%d of %d deletions left the timer armed (it re-armed "
	            "itself while timer_del waited for it)",
	            p->failures, p->rounds);
	KEXPECT_MSG(t, p->lost == 0,
	            "%d of %d armings did not fire within %d ms (the PIT "
	            "ticked %u times in the last)",
	            p->lost, p->rounds, KT_SOON_MS, (unsigned)p->lost_ticks);
	KEXPECT_MSG(t, p->unseen == 0,
	            "%d of %d rounds never saw the callback running, though "
	            "it ran and the deleter never paused %d us",
	            p->unseen, p->rounds, PERIODIC_CB_US);
	/* A vCPU the host did not run for seconds is not a kernel bug, but
	 * the case must still have deleted mid-callback almost every time. */
	if (p->stalled > 0)
		ktest_note(t,
		           "%d round(s) missed the callback: the deleter's "
		           "vCPU stood still for up to %u ms",
		           p->stalled, (unsigned)(p->longest_stall_us / 1000));
	KEXPECT_MSG(t, p->stalled <= p->rounds / 10,
	            "%d of %d rounds missed the callback (the deleter "
	            "stalled up to %u ms)",
	            p->stalled, p->rounds,
	            (unsigned)(p->longest_stall_us / 1000));
	/* Whatever happened, it must be dead before p goes. */
	WRITE_ONCE(p->stop, 1);
	timer_del(&p->tm);
	kt_poll(!READ_ONCE(p->in_cb) && !p->tm.pending, KT_SOON_MS);
	timer_del(&p->tm);
	KEXPECT_TRUE(t, !p->tm.pending);
out:
	kt_shared_put(p);
}

/* ---- work items from every CPU ------------------------------------------- */

#define ITEMS_PER_WORKER 4

struct witem {
	struct work w;
	struct timer tm;
	volatile int in_fn, overlap, runs, queued_ok, cancelled_ok;
};

struct wstorm {
	int rounds;
	volatile int dirty_after_cancel;
	struct witem items[STRESS_MAX_WORKERS * ITEMS_PER_WORKER];
};

static void
witem_fn(struct work *w)
{
	struct witem *it = container_of(w, struct witem, w);

	if (__atomic_add_fetch(&it->in_fn, 1, __ATOMIC_SEQ_CST) != 1)
		it->overlap++;
	it->runs++;
	if (it->runs % 8 == 0)
		msleep(1);
	__atomic_sub_fetch(&it->in_fn, 1, __ATOMIC_SEQ_CST);
}

static void
witem_timer_fn(struct timer *tm)
{
	struct witem *it = tm->data;

	if (schedule_work(&it->w))
		__atomic_fetch_add(&it->queued_ok, 1, __ATOMIC_SEQ_CST);
}

static void
wstorm_worker(struct stress_crew *crew, int idx)
{
	struct wstorm *s = crew->arg;
	struct witem *mine = &s->items[idx * ITEMS_PER_WORKER];
	uint32_t seed = 0x5151u * (idx + 3);

	for (int r = 0; r < s->rounds; r++) {
		struct witem *it = &mine[stress_rand(&seed) % ITEMS_PER_WORKER];

		switch (stress_rand(&seed) % 5) {
		case 0:
		case 1:
			if (schedule_work(&it->w))
				__atomic_fetch_add(&it->queued_ok, 1,
				                   __ATOMIC_SEQ_CST);
			break;
		case 2:
			timer_add(&it->tm, now_ms() + stress_rand(&seed) % 2);
			break;
		case 3:
			/* Tear down in the usual order: timer, then work. */
			timer_del(&it->tm);
			if (cancel_work_sync(&it->w))
				__atomic_fetch_add(&it->cancelled_ok, 1,
				                   __ATOMIC_SEQ_CST);
			if (READ_ONCE(it->in_fn) != 0 || it->w.queued)
				__atomic_fetch_add(&s->dirty_after_cancel, 1,
				                   __ATOMIC_SEQ_CST);
			break;
		case 4:
			if (stress_rand(&seed) % 2)
				thread_yield();
			else
				udelay(stress_rand(&seed) % 500);
			break;
		}
	}
	for (int i = 0; i < ITEMS_PER_WORKER; i++) {
		timer_del(&mine[i].tm);
		if (cancel_work_sync(&mine[i].w))
			__atomic_fetch_add(&mine[i].cancelled_ok, 1,
			                   __ATOMIC_SEQ_CST);
		if (READ_ONCE(mine[i].in_fn) != 0 || mine[i].w.queued)
			__atomic_fetch_add(&s->dirty_after_cancel, 1,
			                   __ATOMIC_SEQ_CST);
	}
}

static void
work_storm(struct ktest *t)
{
	int ids[MAX_CPUS], n = 2 * stress_online(ids);
	struct wstorm *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	int queued = 0, accounted = 0, overlaps = 0, runs = 0;

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(300);
	for (int i = 0; i < n * ITEMS_PER_WORKER; i++) {
		work_init(&s->items[i].w, witem_fn);
		timer_init(&s->items[i].tm, witem_timer_fn, &s->items[i]);
	}
	crew = stress_crew_start(wstorm_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	if (!stress_crew_wait(crew, stress_bound_ms(60000))) {
		/* Workers may still use s (they hold a reference). */
		KEXPECT_MSG(t, false, "workers did not finish");
		goto out;
	}
	for (int i = 0; i < n * ITEMS_PER_WORKER; i++) {
		struct witem *it = &s->items[i];

		queued += it->queued_ok;
		runs += it->runs;
		accounted += it->runs + it->cancelled_ok;
		overlaps += it->overlap;
		KEXPECT_MSG(t, it->queued_ok == it->runs + it->cancelled_ok,
		            "item %d: queued %d times, ran %d, cancelled %d", i,
		            it->queued_ok, it->runs, it->cancelled_ok);
	}
	KEXPECT_EQ(t, queued, accounted);
	KEXPECT_TRUE(t, runs > 0);
	KEXPECT_EQ(t, overlaps, 0);
	KEXPECT_MSG(t, s->dirty_after_cancel == 0,
	            "%d time(s) a work was queued or running after "
	            "cancel_work_sync returned",
	            s->dirty_after_cancel);
out:
	kt_shared_put(s);
}

/* ---- a self re-queueing work cancelled while it runs --------------------- */

struct requeue {
	struct work w;
	volatile int in_fn, runs, stop;
};

static void
requeue_fn(struct work *w)
{
	struct requeue *q = container_of(w, struct requeue, w);

	WRITE_ONCE(q->in_fn, 1);
	q->runs++;
	msleep(3); /* the window cancel_work_sync lands in */
	if (!READ_ONCE(q->stop))
		schedule_work(w);
	WRITE_ONCE(q->in_fn, 0);
}

static void
cancel_self_requeueing_work(struct ktest *t)
{
	struct requeue *q = kt_shared_alloc(sizeof(*q), 1);
	int rounds = stress_rounds(5), bad = 0;

	KASSERT_TRUE(t, q != NULL);
	work_init(&q->w, requeue_fn);
	for (int r = 0; r < rounds; r++) {
		int runs;

		q->stop = 0;
		schedule_work(&q->w);
		if (!kt_poll(READ_ONCE(q->in_fn) != 0, KT_SOON_MS)) {
			KEXPECT_MSG(t, false, "the work never ran");
			break;
		}
		cancel_work_sync(&q->w);
		runs = q->runs;
		if (q->w.queued || READ_ONCE(q->in_fn)) {
			bad++;
		} else {
			msleep(20);
			if (q->runs != runs)
				bad++;
		}
		/* Stop it for real (also when the above failed). */
		WRITE_ONCE(q->stop, 1);
		kt_poll(!q->w.queued && !READ_ONCE(q->in_fn), KT_SOON_MS);
		cancel_work_sync(&q->w);
	}
	KEXPECT_MSG(t, bad == 0,
	            "%d of %d cancels left the work queued or running", bad,
	            rounds);
	kt_shared_put(q);
}

KTEST_SUITE(stress_timer, KTEST_CASE(timer_stack_storm),
            KTEST_CASE(periodic_timer_del), KTEST_CASE(work_storm),
            KTEST_CASE(cancel_self_requeueing_work));
