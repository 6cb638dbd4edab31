/*
 * Suite "lockorder": the run-time lock order check (kernel/locking/lockorder.h).
 *
 * With lockorder_catch set, a violation is a line and a count instead of
 * a panic, so the cases can commit one on purpose: a lower-ranked lock
 * taken while a higher-ranked one is held is reported with both names,
 * for spinlocks and mutexes; the documented order, equal ranks, unranked
 * locks and a trylock are not, but a trylock's lower rank does not hide
 * a higher one held from the next check; released locks leave nothing
 * behind.  A
 * wrong order on a busy lock is reported before the wait, while the
 * holder still holds it: reported after, a real deadlock would spin for
 * ever instead of panicking.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/arch/x86.h>
#include <kernel/locking/lockorder.h>
#include <kernel/locking/mutex.h>
#include <kernel/locking/spinlock.h>

static DEFINE_SPINLOCK_RANK(ktest_low, LOCK_RANK_RTNL);
static DEFINE_SPINLOCK_RANK(ktest_mid, LOCK_RANK_XMIT);
static DEFINE_SPINLOCK_RANK(ktest_high, LOCK_RANK_TRACK);
static DEFINE_SPINLOCK(ktest_plain);
static DEFINE_MUTEX_RANK(ktest_low_mutex, LOCK_RANK_MODULE);
static DEFINE_MUTEX_RANK(ktest_high_mutex, LOCK_RANK_RTNL);

static unsigned
caught_while(void (*fn)(void))
{
	unsigned before;

	lockorder_catch = 1;
	before = lockorder_caught;
	fn();
	lockorder_catch = 0;
	return lockorder_caught - before;
}

static void
spin_wrong(void)
{
	uint32_t f = spin_lock_irqsave(&ktest_high);
	uint32_t g = spin_lock_irqsave(&ktest_low);

	spin_unlock_irqrestore(&ktest_low, g);
	spin_unlock_irqrestore(&ktest_high, f);
}

static void
spin_right(void)
{
	uint32_t f = spin_lock_irqsave(&ktest_low);
	uint32_t g = spin_lock_irqsave(&ktest_high);
	uint32_t h = spin_lock_irqsave(&ktest_plain);

	spin_unlock_irqrestore(&ktest_plain, h);
	/* Released out of order: fine, and leaves nothing held. */
	spin_unlock_irqrestore(&ktest_low, g);
	spin_unlock_irqrestore(&ktest_high, f);
}

static void
mutex_wrong(void)
{
	mutex_lock(&ktest_high_mutex);
	mutex_lock(&ktest_low_mutex);
	mutex_unlock(&ktest_low_mutex);
	mutex_unlock(&ktest_high_mutex);
}

static void
mutex_then_spin_wrong(void)
{
	uint32_t f;

	/* A spinlock ranked below a held mutex (rtnl -> module_mutex's
	 * rank here) is the same mistake. */
	mutex_lock(&ktest_high_mutex);
	f = spin_lock_irqsave(&ktest_low); /* rank 20 == rtnl: equal, ok */
	spin_unlock_irqrestore(&ktest_low, f);
	mutex_unlock(&ktest_high_mutex);
}

static void
trylock_not_checked(void)
{
	mutex_lock(&ktest_high_mutex);
	if (mutex_trylock(&ktest_low_mutex))
		mutex_unlock(&ktest_low_mutex);
	mutex_unlock(&ktest_high_mutex);
}

/* A trylock may take a lower rank (it cannot deadlock); the locks
 * taken after it are still checked against the highest rank held. */
static void
trylock_then_wrong(void)
{
	uint32_t f = spin_lock_irqsave(&ktest_high), g;

	if (spin_trylock(&ktest_low)) {
		g = spin_lock_irqsave(&ktest_mid); /* 40 under 60: wrong */
		spin_unlock_irqrestore(&ktest_mid, g);
		spin_unlock(&ktest_low);
	}
	spin_unlock_irqrestore(&ktest_high, f);
}

static void
spinlock_wrong_order_reported(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(spin_wrong), 1);
}

static void
spinlock_documented_order_silent(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(spin_right), 0);
	/* Nothing left held: the wrong order is still caught afterwards. */
	KEXPECT_EQ(t, caught_while(spin_wrong), 1);
}

static void
mutex_wrong_order_reported(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(mutex_wrong), 1);
}

static void
equal_rank_silent(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(mutex_then_spin_wrong), 0);
}

static void
trylock_silent(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(trylock_not_checked), 0);
}

/* The held stack is kept sorted by rank and the check compares with its
 * top: the trylock's lower rank must not hide the higher one. */
static void
after_trylock_highest_still_checked(struct ktest *t)
{
	KEXPECT_EQ(t, caught_while(trylock_then_wrong), 1);
	KEXPECT_EQ(t, caught_while(spin_right), 0); /* nothing left held */
}

struct busy {
	unsigned before;
	volatile int held;
	volatile int saw_report;
};

/* On another CPU: hold ktest_low until the waiter's report is counted
 * (or a generous bound passes), and say which it was. */
static int
low_holder(void *arg)
{
	struct busy *b = arg;
	uint32_t f = spin_lock_irqsave(&ktest_low);
	uint64_t until = now_ms() + KT_SOON_MS;

	WRITE_ONCE(b->held, 1);
	while (READ_ONCE(lockorder_caught) == b->before && now_ms() < until)
		cpu_relax();
	b->saw_report = READ_ONCE(lockorder_caught) != b->before;
	spin_unlock_irqrestore(&ktest_low, f);
	kt_shared_put(b);
	return 0;
}

static void
busy_lock_reported_before_the_wait(struct ktest *t)
{
	struct busy *b;
	struct kt_async *a;
	uint64_t until;
	uint32_t f, g;
	int other = kt_other_cpu();

	if (other < 0) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	b = kt_shared_alloc(sizeof(*b), 2); /* this case, the holder */
	KASSERT_TRUE(t, b != NULL);
	lockorder_catch = 1;
	b->before = lockorder_caught;
	a = kt_async_start_on("kt-lowholder", low_holder, b, other);
	if (a == NULL) {
		lockorder_catch = 0;
		kt_shared_put(b);
		kt_shared_put(b);
		KASSERT_TRUE(t, a != NULL);
	}
	/* Spin, not sleep: the holder's CPU may be the one whose tick
	 * fires the timers, and it has interrupts off. */
	until = now_ms() + KT_SOON_MS;
	while (!READ_ONCE(b->held) && now_ms() < until)
		cpu_relax();
	KEXPECT_TRUE(t, READ_ONCE(b->held));
	f = spin_lock_irqsave(&ktest_high);
	g = spin_lock_irqsave(&ktest_low); /* busy: reported, then waits */
	spin_unlock_irqrestore(&ktest_low, g);
	spin_unlock_irqrestore(&ktest_high, f);
	lockorder_catch = 0;
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(a->done), KT_SOON_MS));
	kt_shared_put(a);
	KEXPECT_MSG(t, b->saw_report,
	            "the holder let go after %u ms without seeing a report",
	            KT_SOON_MS);
	kt_shared_put(b);
}

KTEST_SUITE(lockorder, KTEST_CASE(spinlock_wrong_order_reported),
            KTEST_CASE(spinlock_documented_order_silent),
            KTEST_CASE(mutex_wrong_order_reported),
            KTEST_CASE(equal_rank_silent), KTEST_CASE(trylock_silent),
            KTEST_CASE(after_trylock_highest_still_checked),
            KTEST_CASE(busy_lock_reported_before_the_wait));
