/*
 * Suite "refcount": the one reference count type (kernel/locking/refcount.h).
 *
 * The ordinary life of a count; then each misuse reported, once, through
 * refcount_report, and left so that nothing is freed early: a put one
 * too many undone, an increment from zero reported, a saturated count
 * staying saturated (a leak, never a free), a biased count refusing to
 * drop its base.  A count really shared: two CPUs (where there are two)
 * take and drop references at once, and the count ends where it began.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/locking/refcount.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/smp.h>
#include <kernel/arch/x86.h>

static void
life_of_a_count(struct ktest *t)
{
	refcount_t r;

	refcount_set(&r, 1);
	refcount_inc(&r, "ktest");
	KEXPECT_EQ(t, refcount_read(&r), 2);
	KEXPECT_TRUE(t, refcount_inc_not_zero(&r, "ktest"));
	KEXPECT_TRUE(t, !refcount_dec_and_test(&r, "ktest"));
	KEXPECT_TRUE(t, !refcount_dec_and_test(&r, "ktest"));
	KEXPECT_TRUE(t, refcount_dec_and_test(&r, "ktest"));
	KEXPECT_EQ(t, refcount_read(&r), 0);
	KEXPECT_TRUE(t, !refcount_inc_not_zero(&r, "ktest"));
	KEXPECT_EQ(t, refcount_read(&r), 0);
}

static void
put_too_many_undone(struct ktest *t)
{
	unsigned before = refcount_reports;
	refcount_t r;

	refcount_set(&r, 0);
	KEXPECT_TRUE(t, !refcount_dec_and_test(&r, "ktest"));
	KEXPECT_EQ(t, refcount_reports, before + 1);
	KEXPECT_EQ(t, refcount_read(&r), 0);
	refcount_set(&r, 1);
	KEXPECT_EQ(t, refcount_dec_return(&r, "ktest"), 0);
	KEXPECT_EQ(t, refcount_dec_return(&r, "ktest"), -1); /* reported */
	KEXPECT_EQ(t, refcount_reports, before + 2);
}

static void
inc_from_zero_reported(struct ktest *t)
{
	unsigned before = refcount_reports;
	refcount_t r;

	refcount_set(&r, 0);
	refcount_inc(&r, "ktest");
	KEXPECT_EQ(t, refcount_reports, before + 1);
}

/* A count whose base comes later (a device's, before registration):
 * its first hold is from zero, and that is no use after a put. */
static void
full_inc_from_zero_allowed(struct ktest *t)
{
	unsigned before = refcount_reports;
	refcount_t r;

	refcount_set(&r, 0);
	refcount_inc_full(&r, "ktest");
	KEXPECT_EQ(t, refcount_read(&r), 1);
	KEXPECT_EQ(t, refcount_reports, before);
	KEXPECT_EQ(t, refcount_dec_return(&r, "ktest"), 0);
	KEXPECT_EQ(t, refcount_dec_return(&r, "ktest"), -1);
	refcount_inc_full(&r, "ktest"); /* from below zero: reported */
	KEXPECT_EQ(t, refcount_reports, before + 2);
	KEXPECT_EQ(t, refcount_read(&r), 0);
}

static void
saturated_stays(struct ktest *t)
{
	unsigned before = refcount_reports;
	refcount_t r;

	refcount_set(&r, REFCOUNT_SATURATED);
	refcount_inc(&r, "ktest");
	KEXPECT_EQ(t, refcount_read(&r), REFCOUNT_SATURATED);
	KEXPECT_EQ(t, refcount_reports, before + 1);
	KEXPECT_TRUE(t, refcount_inc_not_zero(&r, "ktest"));
	KEXPECT_EQ(t, refcount_read(&r), REFCOUNT_SATURATED);
	for (int i = 0; i < 3; i++) /* never reaches zero: a leak */
		KEXPECT_TRUE(t, !refcount_dec_and_test(&r, "ktest"));
	KEXPECT_EQ(t, refcount_read(&r), REFCOUNT_SATURATED);
}

static void
biased_count(struct ktest *t)
{
	unsigned before = refcount_reports;
	refcount_t r;

	refcount_set(&r, 1); /* the owner's bias */
	KEXPECT_TRUE(t, refcount_inc_not_zero(&r, "ktest"));
	KEXPECT_TRUE(t, !refcount_dec_if_one(&r)); /* a holder left */
	KEXPECT_TRUE(t, refcount_dec_not_one(&r, "ktest"));
	KEXPECT_TRUE(t, !refcount_dec_not_one(&r, "ktest")); /* the base */
	KEXPECT_EQ(t, refcount_reports, before + 1);
	KEXPECT_EQ(t, refcount_read(&r), 1);
	KEXPECT_TRUE(t, refcount_dec_if_one(&r));
	KEXPECT_TRUE(t, !refcount_inc_not_zero(&r, "ktest"));
	KEXPECT_EQ(t, refcount_read(&r), 0);
}

#define SHARED_ROUNDS 20000

static refcount_t shared;
static volatile bool other_done;

static void
take_and_drop(void *arg)
{
	(void)arg;
	for (int i = 0; i < SHARED_ROUNDS; i++) {
		refcount_inc(&shared, "ktest-shared");
		(void)refcount_dec_and_test(&shared, "ktest-shared");
	}
	__atomic_store_n(&other_done, true, __ATOMIC_RELEASE);
	thread_exit();
}

static void
two_cpus_end_where_they_began(struct ktest *t)
{
	unsigned before = refcount_reports;

	refcount_set(&shared, 1);
	other_done = false;
	/* on another CPU where there is one (round-robin), else beside us */
	KASSERT_TRUE(t, thread_create("ktest-refcount", take_and_drop, NULL,
	                              nr_online_cpus() > 1 ? 1 : -1) != NULL);
	for (int i = 0; i < SHARED_ROUNDS; i++) {
		KEXPECT_TRUE(t, refcount_inc_not_zero(&shared, "ktest-shared"));
		(void)refcount_dec_and_test(&shared, "ktest-shared");
	}
	while (!__atomic_load_n(&other_done, __ATOMIC_ACQUIRE))
		msleep(1); /* it ends: a fixed number of rounds */
	KEXPECT_EQ(t, refcount_read(&shared), 1);
	KEXPECT_EQ(t, refcount_reports, before);
}

KTEST_SUITE(refcount, KTEST_CASE(life_of_a_count),
            KTEST_CASE(put_too_many_undone), KTEST_CASE(inc_from_zero_reported),
            KTEST_CASE(full_inc_from_zero_allowed), KTEST_CASE(saturated_stays),
            KTEST_CASE(biased_count),
            KTEST_CASE(two_cpus_end_where_they_began));
