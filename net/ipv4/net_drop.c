/*
 * Names and counters for enum net_drop (see net_drop.h).  The tables
 * come from the one X-macro list, so a new reason cannot be left
 * without a name.
 */
#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"

struct drop_desc {
	const char *name, *layer, *desc;
};

/* Names are the enum's without the prefix (NET_DROP_IP_BAD_IHL ->
 * "IP_BAD_IHL"), so what netstat prints can be grepped in the source. */
static const struct drop_desc descs[NET_DROP_COUNT] = {
#define NET_DROP_DESC(name, layer, desc)                                       \
	[NET_DROP_##name] = {#name, layer, desc},
    NET_DROP_REASONS(NET_DROP_DESC)
#undef NET_DROP_DESC
};

static const struct drop_desc *
desc_of(enum net_drop reason)
{
	static const struct drop_desc unknown = {"?", "?", "?"};

	if ((unsigned int)reason >= NET_DROP_COUNT)
		return &unknown;
	return &descs[reason];
}

const char *
net_drop_name(enum net_drop reason)
{
	return desc_of(reason)->name;
}

const char *
net_drop_layer(enum net_drop reason)
{
	return desc_of(reason)->layer;
}

const char *
net_drop_desc(enum net_drop reason)
{
	return desc_of(reason)->desc;
}

enum net_drop
net_drop_count(struct net_drop_stats *st, enum net_drop reason)
{
	if (reason != NET_DROP_NONE && (unsigned int)reason < NET_DROP_COUNT)
		st->count[reason]++;
	return reason;
}

static bool
str_eq(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

uint64_t
net_drop_total(const struct net_drop_stats *st, const char *layer)
{
	uint64_t sum = 0;
	int i;

	for (i = 1; i < NET_DROP_COUNT; i++)
		if (layer == NULL || str_eq(descs[i].layer, layer))
			sum += st->count[i];
	return sum;
}
