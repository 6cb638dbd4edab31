/*
 * Suite "schedctl": the controlled scheduler (kernel/sched/schedctl.h).
 *
 * A controlled run's schedule (its points, switches, wakes and hash)
 * must be the seed's alone, not the host's speed.  One case so far, the
 * one that once made two runs of the same seed differ under overload
 * (docs/repro.md): the holder waits in a drain with no other member to
 * run, and what it waits for is done by something outside the group (a
 * timer here; busy's drain timer or an RCU callback's put in the
 * stress).  Whether the drain had to sleep at all is then a matter of
 * time; with no other member runnable there was nothing to decide, so
 * the schedule must be the same whether it slept or not.
 *
 * And a run's end must not strand a member: the stress's workers set
 * their done flag and then exit, and the supervisor ends the run once
 * every flag is set; a worker the tick preempted between the two must
 * still run to its exit, though it no longer holds the token.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/locking/drain.h>
#include <kernel/sched/schedctl.h>
#include <kernel/arch/cpu.h>

struct outside_wait {
	struct timer fire;
	unsigned delay_ms; /* 0: done before the drain looks */
	volatile bool ready;
	bool slept; /* the drain did not end at its first look */
};

static bool
outside_ready(void *arg)
{
	struct outside_wait *w = arg;

	return __atomic_load_n(&w->ready, __ATOMIC_ACQUIRE);
}

/* What a put from a timer or an RCU callback does: the state, then a
 * kick for whoever drains. */
static void
outside_fire(struct timer *tm)
{
	struct outside_wait *w = tm->data;

	__atomic_store_n(&w->ready, true, __ATOMIC_RELEASE);
	drain_kick();
}

static int
drain_member(void *arg)
{
	struct outside_wait *w = arg;
	struct drain d = {.done = outside_ready,
	                  .arg = w,
	                  .what = "ktest",
	                  .name = "outside"};
	unsigned waits;

	schedctl_enter(0);
	schedctl_op(0);
	schedctl_point();
	if (w->delay_ms == 0)
		__atomic_store_n(&w->ready, true, __ATOMIC_RELEASE);
	else
		timer_add(&w->fire, now_ms() + w->delay_ms);
	waits = current->drain_waits;
	drain_wait(&d);
	w->slept = current->drain_waits != waits;
	schedctl_op(1);
	schedctl_point();
	return 0;
}

/* A controlled run of one member, fn(arg), on this CPU (member 0: it
 * calls schedctl_enter itself). */
static struct kt_async *
start_one_member(struct ktest *t, int (*fn)(void *), void *arg,
                 struct schedctl_stats *st)
{
	struct kt_async *a;

	KASSERT_TRUE(t, schedctl_begin(
	                    &(struct schedctl_config){.seed = 7,
	                                              .depth = 1,
	                                              .steps = 4,
	                                              .n = 1,
	                                              .cpu = cpu_id(),
	                                              .settle_ms = 100}) == 0);
	a = kt_async_start_on("kt-member", fn, arg, cpu_id());
	if (a == NULL) {
		schedctl_end(st);
		KASSERT_TRUE(t, a != NULL);
	}
	return a;
}

/* One controlled run of drain_member on this CPU. */
static void
run_one(struct ktest *t, struct outside_wait *w, struct schedctl_stats *st)
{
	struct kt_async *a;
	bool done;

	timer_init(&w->fire, outside_fire, w);
	a = start_one_member(t, drain_member, w, st);
	done = kt_poll(__atomic_load_n(&a->done, __ATOMIC_ACQUIRE), KT_SOON_MS);
	schedctl_end(st);
	kt_shared_put(a);
	timer_del(&w->fire);
	/* a member still going uses w: keep it (a leak, on failure only) */
	KASSERT_TRUE(t, done);
}

static void
sleep_with_no_one_to_run_is_not_a_decision(struct ktest *t)
{
	struct outside_wait *now = kt_shared_alloc(sizeof(*now), 1),
	                    *later = kt_shared_alloc(sizeof(*later), 1);
	struct schedctl_stats a, b;

	KASSERT_TRUE(t, now != NULL && later != NULL);
	later->delay_ms = 30;
	run_one(t, now, &a);
	run_one(t, later, &b);
	/* the two runs differ in what the case is about ... */
	KEXPECT_TRUE(t, !now->slept);
	KEXPECT_TRUE(t, later->slept);
	/* ... and in nothing the schedule says */
	KEXPECT_EQ(t, a.points, b.points);
	KEXPECT_EQ(t, a.switches, b.switches);
	KEXPECT_EQ(t, a.wakes, b.wakes);
	KEXPECT_EQ(t, a.timed, b.timed);
	KEXPECT_EQ(t, a.hash, b.hash);
	kt_shared_put(now);
	kt_shared_put(later);
}

struct exit_window {
	volatile bool last_op_done, ended;
};

static int
member_past_its_last_op(void *arg)
{
	struct exit_window *x = arg;

	schedctl_enter(0);
	schedctl_op(0);
	schedctl_point();
	__atomic_store_n(&x->last_op_done, true, __ATOMIC_RELEASE);
	/* between its last op and its exit, interrupts on: the tick
	 * preempts it here (a preemption keeps the token), and the case
	 * ends the run meanwhile */
	while (!__atomic_load_n(&x->ended, __ATOMIC_ACQUIRE))
		cpu_relax();
	return 0;
}

static void
run_end_strands_no_member(struct ktest *t)
{
	struct exit_window *x = kt_shared_alloc(sizeof(*x), 1);
	struct schedctl_stats st;
	struct kt_async *a;
	bool exited;

	KASSERT_TRUE(t, x != NULL);
	a = start_one_member(t, member_past_its_last_op, x, &st);
	/* this thread runs again only once the tick preempted the member */
	KEXPECT_TRUE(
	    t, kt_poll(__atomic_load_n(&x->last_op_done, __ATOMIC_ACQUIRE),
	               KT_SOON_MS));
	schedctl_end(&st);
	__atomic_store_n(&x->ended, true, __ATOMIC_RELEASE);
	exited =
	    kt_poll(__atomic_load_n(&a->done, __ATOMIC_ACQUIRE), KT_SOON_MS);
	kt_shared_put(a);
	/* a stranded member still reads x: keep it (on failure only) */
	KASSERT_TRUE(t, exited);
	kt_shared_put(x);
}

KTEST_SUITE(schedctl, KTEST_CASE(sleep_with_no_one_to_run_is_not_a_decision),
            KTEST_CASE(run_end_strands_no_member));
