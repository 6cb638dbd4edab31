/*
 * Suite "lockorder": the run-time lock order check (kernel/lockorder.h).
 *
 * With lockorder_catch set, a violation is a line and a count instead of
 * a panic, so the cases can commit one on purpose: a lower-ranked lock
 * taken while a higher-ranked one is held is reported with both names,
 * for spinlocks and mutexes; the documented order, equal ranks, unranked
 * locks and a trylock are not; released locks leave nothing behind.
 */
#include <kernel/ktest.h>
#include <kernel/lockorder.h>
#include <kernel/mutex.h>
#include <kernel/spinlock.h>

static DEFINE_SPINLOCK_RANK(ktest_low, LOCK_RANK_RTNL);
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

KTEST_SUITE(lockorder, KTEST_CASE(spinlock_wrong_order_reported),
            KTEST_CASE(spinlock_documented_order_silent),
            KTEST_CASE(mutex_wrong_order_reported),
            KTEST_CASE(equal_rank_silent), KTEST_CASE(trylock_silent));
