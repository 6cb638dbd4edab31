/*
 * Drop reasons and counters; and, last of all suites, the check that
 * every reason a parser or state machine returns was produced by some
 * crafted input above (the "(stack)" reasons belong to the kernel layer
 * and are exempt).
 */
#include <string.h>

#include "tests/net/nettest.h"

static bool seen[NET_DROP_COUNT];

void
drop_seen(enum net_drop r)
{
	if ((unsigned int)r < NET_DROP_COUNT)
		seen[r] = true;
}

bool
drop_was_seen(enum net_drop r)
{
	return (unsigned int)r < NET_DROP_COUNT && seen[r];
}

static void
names_unique_and_described(struct kt *t)
{
	int i, j;

	for (i = 0; i < NET_DROP_COUNT; i++) {
		KT_EXPECT(t, strcmp(net_drop_name(i), "?") != 0);
		KT_EXPECT(t, strlen(net_drop_desc(i)) > 3);
		for (j = 0; j < i; j++)
			KT_EXPECT(
			    t, strcmp(net_drop_name(i), net_drop_name(j)) != 0);
	}
	KT_EXPECT_STREQ(t, net_drop_name(NET_DROP_IP_BAD_CHECKSUM),
	                "IP_BAD_CHECKSUM");
	KT_EXPECT_STREQ(t, net_drop_layer(NET_DROP_IP_BAD_CHECKSUM), "ip");
	KT_EXPECT_STREQ(t, net_drop_name(NET_DROP_COUNT), "?");
	KT_EXPECT_STREQ(t, net_drop_layer((enum net_drop) - 1), "?");
}

static void
counters(struct kt *t)
{
	struct net_drop_stats st;

	memset(&st, 0, sizeof(st));
	KT_EXPECT_EQ(t, net_drop_count(&st, NET_DROP_IP_TTL_ZERO),
	             NET_DROP_IP_TTL_ZERO);
	net_drop_count(&st, NET_DROP_IP_TTL_ZERO);
	net_drop_count(&st, NET_DROP_UDP_BAD_LEN);
	net_drop_count(&st, NET_DROP_NONE);
	net_drop_count(&st, NET_DROP_COUNT);
	KT_EXPECT_EQ(t, st.count[NET_DROP_IP_TTL_ZERO], 2);
	KT_EXPECT_EQ(t, st.count[NET_DROP_NONE], 0);
	KT_EXPECT_EQ(t, net_drop_total(&st, "ip"), 2);
	KT_EXPECT_EQ(t, net_drop_total(&st, "udp"), 1);
	KT_EXPECT_EQ(t, net_drop_total(&st, "dhcp"), 0);
	KT_EXPECT_EQ(t, net_drop_total(&st, NULL), 3);
}

/* Layers are contiguous, so netstat can print one heading per layer. */
static void
layers_grouped(struct kt *t)
{
	int i, j;

	for (i = 2; i < NET_DROP_COUNT; i++)
		for (j = 1; j < i - 1; j++)
			if (strcmp(net_drop_layer(j), net_drop_layer(i)) == 0)
				KT_EXPECT(t, strcmp(net_drop_layer(i - 1),
				                    net_drop_layer(i)) == 0);
}

static void
every_reason_crafted(struct kt *t)
{
	int i;

	for (i = 1; i < NET_DROP_COUNT; i++) {
		if (strstr(net_drop_desc(i), "(stack)") != NULL)
			continue;
		if (!drop_was_seen(i))
			kt_fail(t, __FILE__, __LINE__,
			        "no test produces %s (%s)", net_drop_name(i),
			        net_drop_desc(i));
	}
}

static const struct kt_case cases[] = {
    KT_CASE(names_unique_and_described),
    KT_CASE(counters),
    KT_CASE(layers_grouped),
    KT_CASE(every_reason_crafted),
    KT_END,
};
const struct kt_suite drop_suite = {"net_drop", cases};
