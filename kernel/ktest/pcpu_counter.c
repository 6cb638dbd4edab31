/*
 * Suite "pcpu_counter": the two-mode counter (kernel/locking/pcpu_counter.h).
 *
 * Per-CPU mode: adds land in this CPU's slot until the counter is killed,
 * then in the shared count; settle folds the slots in, after which the
 * sum is the shared count alone and exact; revive goes back to slots and
 * keeps the value.  Atomic mode: every add goes to the shared count, the
 * slots are never touched, kill/settle/revive change nothing, and the
 * shared count is a refcount_t (its checks apply).  With
 * a thread on every other CPU adding +1/-1 pairs throughout, the slots
 * stay untouched once settled (no add was still on its way to one: the
 * grace period waited them out) and the sum is exact when they stop.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/locking/pcpu_counter.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/x86.h>

static int
slots_sum(const struct pcpu_counter *c)
{
	int n = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		n += c->cpu[i].n;
	return n;
}

static void
kill_settle_revive(struct ktest *t)
{
	struct pcpu_counter *c = kzalloc(sizeof(*c), "ktest");

	KASSERT_TRUE(t, c != NULL);
	pcpu_counter_init(c);
	pcpu_counter_add(c, 5);
	KEXPECT_EQ(t, slots_sum(c), 5);
	pcpu_counter_kill(c);
	pcpu_counter_add(c, 3); /* to the atomic now */
	KEXPECT_EQ(t, refcount_read(pcpu_counter_shared(c)), 3);
	KEXPECT_EQ(t, pcpu_counter_sum(c), 8);
	pcpu_counter_settle(c);
	KEXPECT_EQ(t, slots_sum(c), 0);
	KEXPECT_EQ(t, refcount_read(pcpu_counter_shared(c)), 8);
	KEXPECT_EQ(t, pcpu_counter_sum(c), 8);
	pcpu_counter_settle(c); /* once only */
	KEXPECT_EQ(t, pcpu_counter_sum(c), 8);
	pcpu_counter_revive(c);
	pcpu_counter_add(c, -8);
	KEXPECT_EQ(t, slots_sum(c), -8);
	KEXPECT_EQ(t, pcpu_counter_sum(c), 0);
	kfree(c);
}

static void
atomic_mode(struct ktest *t)
{
	struct pcpu_counter *c = kzalloc(sizeof(*c), "ktest");
	unsigned reports;

	KASSERT_TRUE(t, c != NULL);
	pcpu_counter_init_atomic(c, 1); /* a module's bias */
	KEXPECT_TRUE(t, pcpu_counter_is_atomic(c));
	pcpu_counter_add(c, 2);
	KEXPECT_EQ(t, slots_sum(c), 0);
	KEXPECT_EQ(t, refcount_read(pcpu_counter_shared(c)), 3);
	pcpu_counter_kill(c);
	pcpu_counter_settle(c);
	pcpu_counter_revive(c);
	pcpu_counter_add(c, -2); /* still shared: revive is a no-op */
	KEXPECT_EQ(t, slots_sum(c), 0);
	KEXPECT_EQ(t, pcpu_counter_sum(c), 1);
	KEXPECT_TRUE(t, refcount_inc_not_zero(pcpu_counter_shared(c), "ktest"));
	KEXPECT_TRUE(t, !refcount_dec_if_one(pcpu_counter_shared(c)));
	KEXPECT_EQ(t, refcount_dec_return(pcpu_counter_shared(c), "ktest"), 1);
	KEXPECT_TRUE(t, refcount_dec_if_one(pcpu_counter_shared(c)));
	KEXPECT_TRUE(t,
	             !refcount_inc_not_zero(pcpu_counter_shared(c), "ktest"));
	/* the refcount's own check: one put too many is reported */
	reports = refcount_reports;
	KEXPECT_EQ(t, refcount_dec_return(pcpu_counter_shared(c), "ktest"), -1);
	KEXPECT_EQ(t, refcount_reports, reports + 1);
	kfree(c);
}

struct pctx {
	struct pcpu_counter c;
	volatile int stop;
	volatile int running;
	struct completion done[MAX_CPUS];
};

static void
adder(void *arg)
{
	struct pctx *x = arg;
	int me = cpu_id();

	__atomic_add_fetch(&x->running, 1, __ATOMIC_SEQ_CST);
	while (!READ_ONCE(x->stop)) {
		pcpu_counter_add(&x->c, 1);
		pcpu_counter_add(&x->c, -1);
	}
	complete(&x->done[me]);
	kt_shared_put(x);
}

static void
settle_under_adders(struct ktest *t)
{
	struct pctx *x = kt_shared_alloc(sizeof(*x), 1 + MAX_CPUS);
	int started = 0, finished = 0;

	KASSERT_TRUE(t, x != NULL);
	pcpu_counter_init(&x->c);
	pcpu_counter_add(&x->c, 1); /* the base, like a device's */
	for (int i = 0; i < MAX_CPUS; i++) {
		completion_init(&x->done[i]);
		if (i == cpu_id() || cpus[i].state != CPU_ONLINE ||
		    thread_create("ktest-adder", adder, x, i) == NULL) {
			kt_shared_put(x);
			complete(&x->done[i]);
			continue;
		}
		started++;
	}
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(x->running) == started, KT_SOON_MS));
	msleep(10);
	pcpu_counter_kill(&x->c);
	pcpu_counter_settle(&x->c);
	msleep(20); /* the adders keep going, into the atomic */
	KEXPECT_EQ(t, slots_sum(&x->c), 0);
	WRITE_ONCE(x->stop, 1);
	for (int i = 0; i < MAX_CPUS; i++)
		finished += wait_for_completion_timeout(&x->done[i], KT_SOON_MS,
		                                        false) == 0;
	KEXPECT_EQ(t, finished, MAX_CPUS);
	KEXPECT_EQ(t, slots_sum(&x->c), 0);
	KEXPECT_EQ(t, pcpu_counter_sum(&x->c), 1);
	kt_shared_put(x);
}

KTEST_SUITE(pcpu_counter, KTEST_CASE(kill_settle_revive),
            KTEST_CASE(atomic_mode), KTEST_CASE(settle_under_adders));
