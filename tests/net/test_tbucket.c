/*
 * The token bucket under ICMP's rate limits: a burst, then one token per
 * interval; the refill cap; a host-wide rate given per second; no limit
 * at rate 0; a clock that stands still or goes back.
 */
#include "net/ipv4/tbucket.h"
#include "tests/net/nettest.h"

/* Linux's per-destination default: 1 per 1000 ms, burst 6. */
static const struct tbucket_params peer = {1, 1000, 6};

static unsigned
allowed(struct tbucket *b, const struct tbucket_params *p, uint64_t now,
        unsigned tries)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tries; i++)
		n += tbucket_allow(b, p, now);
	return n;
}

static void
burst_then_one_per_interval(struct kt *t)
{
	struct tbucket b = {0};

	KT_EXPECT_EQ(t, allowed(&b, &peer, 5000, 24), 6);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 5999, 10), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 6000, 10), 1);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 6500, 10), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 8000, 10), 2); /* 500 + 1500 */
	KT_EXPECT_EQ(t, allowed(&b, &peer, 8999, 10), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 9000, 10), 1);
}

/* Idle time refills up to the burst, never beyond, however long. */
static void
refill_is_capped(struct kt *t)
{
	struct tbucket b = {0};

	KT_EXPECT_EQ(t, allowed(&b, &peer, 0, 6), 6);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 3000, 10), 3);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 1000000, 10), 6);
	KT_EXPECT_EQ(t, allowed(&b, &peer, UINT64_MAX / 2, 10), 6);
}

/* 1000 per second, burst 50 (icmp_msgs_per_sec, icmp_msgs_burst):
 * one token per millisecond after the burst; 3 per second is exact
 * although 1000/3 ms is not an integer. */
static void
rate_per_second(struct kt *t)
{
	static const struct tbucket_params host = {1000, 1000, 50};
	static const struct tbucket_params three = {3, 1000, 1};
	struct tbucket b = {0}, c = {0};

	KT_EXPECT_EQ(t, allowed(&b, &host, 100, 80), 50);
	KT_EXPECT_EQ(t, allowed(&b, &host, 110, 80), 10);
	KT_EXPECT_EQ(t, allowed(&b, &host, 1110, 80), 50);
	KT_EXPECT_EQ(t, allowed(&c, &three, 0, 5), 1);
	KT_EXPECT_EQ(t, allowed(&c, &three, 333, 5), 0); /* 999/1000 */
	KT_EXPECT_EQ(t, allowed(&c, &three, 334, 5), 1); /* 1002, capped */
	KT_EXPECT_EQ(t, allowed(&c, &three, 667, 5), 0);
	KT_EXPECT_EQ(t, allowed(&c, &three, 668, 5), 1);
}

static void
rate_zero_is_unlimited(struct kt *t)
{
	static const struct tbucket_params off = {0, 1000, 6};
	struct tbucket b = {0};

	KT_EXPECT_EQ(t, allowed(&b, &off, 0, 1000), 1000);
}

/* The same instant, or an earlier one, adds nothing. */
static void
clock_standing_or_back(struct kt *t)
{
	struct tbucket b = {0};

	KT_EXPECT_EQ(t, allowed(&b, &peer, 10000, 6), 6);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 10000, 6), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 2000, 6), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 10999, 6), 0);
	KT_EXPECT_EQ(t, allowed(&b, &peer, 11000, 6), 1);
}

static const struct kt_case cases[] = {
    KT_CASE(burst_then_one_per_interval),
    KT_CASE(refill_is_capped),
    KT_CASE(rate_per_second),
    KT_CASE(rate_zero_is_unlimited),
    KT_CASE(clock_standing_or_back),
    KT_END,
};
const struct kt_suite tbucket_suite = {"tbucket", cases};
