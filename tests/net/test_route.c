/*
 * The routing table: longest-prefix match, metrics, every error of
 * add/del, flushing an interface, and a randomised run against a
 * brute-force model with route_table_check() after every change.
 */
#include <stdlib.h>

#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/route_table.h"
#include "tests/net/nettest.h"

static struct route slots[16];
static struct route_table T;

static int
add(uint32_t prefix, uint8_t len, uint32_t gw, int ifindex, uint32_t metric)
{
	struct route r = {prefix, len, gw, ifindex, metric};

	return route_add(&T, &r);
}

/* The QEMU user-net guest: default via 10.0.2.2, 10.0.2.0/24 on-link. */
static void
slirp_routes(struct kt *t)
{
	struct route r;

	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 0, 2, 2), &r), -ENETUNREACH);
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 2, 2), 1, 0), 0);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, 1, 0), 0);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 0, 2, 3), &r), 0);
	KT_EXPECT_EQ(t, r.len, 24);
	KT_EXPECT_EQ(t, route_nexthop(&r, IP4(10, 0, 2, 3)), IP4(10, 0, 2, 3));
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(8, 8, 8, 8), &r), 0);
	KT_EXPECT_EQ(t, r.len, 0);
	KT_EXPECT_EQ(t, route_nexthop(&r, IP4(8, 8, 8, 8)), IP4(10, 0, 2, 2));
	KT_EXPECT_EQ(t, route_table_check(&T), 0);
	/* Kept in lookup order: /24 before the default. */
	KT_EXPECT_EQ(t, T.slots[0].len, 24);
}

static void
longest_prefix_wins(struct kt *t)
{
	struct route r;

	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, add(IP4(10, 0, 0, 0), 8, 0, 1, 0), 0);
	KT_EXPECT_EQ(t, add(IP4(10, 1, 2, 3), 32, 0, 3, 0), 0);
	KT_EXPECT_EQ(t, add(IP4(10, 1, 0, 0), 16, 0, 2, 0), 0);
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 0, 1), 1, 0), 0);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 1, 2, 3), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 3);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 1, 2, 4), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 2);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 2, 0, 0), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 1);
	KT_EXPECT_EQ(t, r.len, 8);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(11, 0, 0, 0), &r), 0);
	KT_EXPECT_EQ(t, r.len, 0);
	/* Boundaries of a /16. */
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 1, 255, 255), &r), 0);
	KT_EXPECT_EQ(t, r.len, 16);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 0, 255, 255), &r), 0);
	KT_EXPECT_EQ(t, r.len, 8);
	KT_EXPECT_EQ(t, route_table_check(&T), 0);
}

/* Equal prefixes: the lower metric, then the earlier route. */
static void
metric_breaks_ties(struct kt *t)
{
	struct route r;

	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 2, 2), 1, 100), 0);
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 3, 2), 2, 10), 0);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(1, 1, 1, 1), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 2);
	KT_EXPECT_EQ(t, route_del(&T, 0, 0, 2), 0);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(1, 1, 1, 1), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 1);
}

static void
add_errors(struct kt *t)
{
	route_table_init(&T, slots, 2);
	KT_EXPECT_EQ(t, add(0, 33, 0, 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 1), 24, 0, 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, 0, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, -1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(0, 0, IP4(224, 0, 0, 1), 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(0, 0, IPV4_BROADCAST, 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(0, 0, IP4(127, 0, 0, 1), 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(0, 0, IP4(0, 0, 0, 1), 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, 1, 0), 0);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, IP4(10, 0, 2, 2), 2, 0),
	             -EEXIST);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, 2, 1), 0);
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 2, 2), 1, 0), -ENOSPC);
	KT_EXPECT_EQ(t, T.n, 2);
	KT_EXPECT_EQ(t, route_table_check(&T), 0);
	/* Host route /32 and a zero-capacity table. */
	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 2), 32, 0, 1, 0), 0);
	route_table_init(&T, NULL, 0);
	KT_EXPECT_EQ(t, add(0, 0, 0, 1, 0), -ENOSPC);
	KT_EXPECT_EQ(t, route_table_check(&T), 0);
}

static void
del_and_flush(struct kt *t)
{
	struct route r;

	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, route_del(&T, 0, 0, 0), -ESRCH);
	KT_EXPECT_EQ(t, route_del(&T, 0, 33, 0), -EINVAL);
	add(0, 0, IP4(10, 0, 2, 2), 1, 0);
	add(IP4(10, 0, 2, 0), 24, 0, 1, 0);
	add(IP4(192, 168, 1, 0), 24, 0, 2, 0);
	add(IP4(192, 168, 0, 0), 16, IP4(192, 168, 1, 1), 2, 0);
	KT_EXPECT_EQ(t, route_del(&T, IP4(10, 0, 2, 0), 24, 2), -ESRCH);
	KT_EXPECT_EQ(t, route_del(&T, IP4(10, 0, 2, 0), 24, 1), 0);
	KT_EXPECT_EQ(t, route_del(&T, IP4(10, 0, 2, 0), 24, 1), -ESRCH);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(10, 0, 2, 3), &r), 0);
	KT_EXPECT_EQ(t, r.len, 0);
	/* NETDEV_UNREGISTER of ifindex 2 takes both of its routes. */
	KT_EXPECT_EQ(t, route_flush_ifindex(&T, 2), 2);
	KT_EXPECT_EQ(t, T.n, 1);
	KT_EXPECT_EQ(t, route_flush_ifindex(&T, 2), 0);
	KT_EXPECT_EQ(t, route_lookup(&T, IP4(192, 168, 1, 5), &r), 0);
	KT_EXPECT_EQ(t, r.ifindex, 1);
	KT_EXPECT_EQ(t, route_table_check(&T), 0);
}

/* route_table_check() notices a table whose order was broken. */
static void
check_catches_corruption(struct kt *t)
{
	route_table_init(&T, slots, ARRAY_LEN(slots));
	add(0, 0, IP4(10, 0, 2, 2), 1, 0);
	add(IP4(10, 0, 2, 0), 24, 0, 1, 0);
	slots[0].len = 0; /* now 0 before 0, duplicate keys */
	slots[0].prefix = 0;
	KT_EXPECT_EQ(t, route_table_check(&T), -EINVAL);
	route_table_init(&T, slots, ARRAY_LEN(slots));
	add(IP4(10, 0, 2, 0), 24, 0, 1, 0);
	slots[0].prefix |= 1; /* host bits */
	KT_EXPECT_EQ(t, route_table_check(&T), -EINVAL);
}

/* Brute force: the longest matching prefix, then the lowest metric. */
static int
model_lookup(uint32_t dst, struct route *out)
{
	size_t i;
	int best = -1;

	for (i = 0; i < T.n; i++) {
		const struct route *e = &slots[i];

		if ((dst & ipv4_netmask(e->len)) != e->prefix)
			continue;
		if (best < 0 || e->len > slots[best].len ||
		    (e->len == slots[best].len &&
		     e->metric < slots[best].metric))
			best = (int)i;
	}
	if (best >= 0)
		*out = slots[best];
	return best >= 0 ? 0 : -ENETUNREACH;
}

/* `ip route add default via G` without dev: G's connected route. */
static void
gateway_device(struct kt *t)
{
	route_table_init(&T, slots, ARRAY_LEN(slots));
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 0, 2, 2)),
	             -ENETUNREACH);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 2, 0), 24, 0, 1, 0), 0);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 3, 0), 24, 0, 2, 0), 0);
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 0, 2, 2)), 1);
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 0, 3, 2)), 2);
	/* Reached only through another gateway: not on-link. */
	KT_EXPECT_EQ(t, add(0, 0, IP4(10, 0, 2, 2), 1, 0), 0);
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 9, 9, 9)),
	             -ENETUNREACH);
	/* The longest match decides, as for a packet to G. */
	KT_EXPECT_EQ(t, add(IP4(10, 0, 3, 7), 32, IP4(10, 0, 2, 2), 1, 0), 0);
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 0, 3, 7)),
	             -ENETUNREACH);
	KT_EXPECT_EQ(t, add(IP4(10, 0, 3, 8), 32, 0, 1, 0), 0);
	KT_EXPECT_EQ(t, route_gateway_ifindex(&T, IP4(10, 0, 3, 8)), 1);
}

static void
random_against_model(struct kt *t)
{
	struct route r, a, b;
	int i, k, ra, rb;

	srand(791);
	route_table_init(&T, slots, ARRAY_LEN(slots));
	for (i = 0; i < 20000; i++) {
		r.len = (uint8_t)(rand() % 33);
		r.prefix = (uint32_t)(0x0a000000 | (rand() & 0xffff) << 8) &
		           ipv4_netmask(r.len);
		r.gateway = 0;
		r.ifindex = 1 + rand() % 3;
		r.metric = (uint32_t)(rand() % 3);
		if (rand() % 3 == 0)
			route_del(&T, r.prefix, r.len, 0);
		else
			route_add(&T, &r);
		if (route_table_check(&T) != 0) {
			kt_fail(t, __FILE__, __LINE__, "inconsistent at %d", i);
			return;
		}
		for (k = 0; k < 4; k++) {
			uint32_t dst =
			    0x0a000000 | (uint32_t)(rand() & 0xffffff);

			ra = route_lookup(&T, dst, &a);
			rb = model_lookup(dst, &b);
			if (ra != rb || (ra == 0 && (a.len != b.len ||
			                             a.metric != b.metric))) {
				kt_fail(t, __FILE__, __LINE__,
				        "lookup differs from the model at %d",
				        i);
				return;
			}
		}
	}
}

static const struct kt_case cases[] = {
    KT_CASE(slirp_routes),
    KT_CASE(longest_prefix_wins),
    KT_CASE(metric_breaks_ties),
    KT_CASE(add_errors),
    KT_CASE(del_and_flush),
    KT_CASE(check_catches_corruption),
    KT_CASE(gateway_device),
    KT_CASE(random_against_model),
    KT_END,
};
const struct kt_suite route_suite = {"route", cases};
