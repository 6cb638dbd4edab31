/*
 * Longest-prefix-match routing table over caller-supplied storage.  The
 * invariant that makes lookup a first-match scan is the sort order in
 * route_table.h; route_table_check() verifies it.  Linear scans are fine
 * for the handful of routes a testbed has.
 */
#include "net/ipv4/route_table.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

void
route_table_init(struct route_table *t, struct route *slots, size_t cap)
{
	t->slots = slots;
	t->cap = cap;
	t->n = 0;
}

static bool
matches(const struct route *r, uint32_t dst)
{
	return (dst & ipv4_netmask(r->len)) == r->prefix;
}

/* Whether a sorts strictly before b. */
static bool
before(const struct route *a, const struct route *b)
{
	if (a->len != b->len)
		return a->len > b->len;
	return a->metric < b->metric;
}

static bool
valid_gateway(uint32_t gw)
{
	if (gw == 0)
		return true;
	return !ipv4_is_multicast(gw) && gw != IPV4_BROADCAST &&
	       !ipv4_is_zeronet(gw) && !ipv4_is_loopback(gw);
}

static bool
valid_route(const struct route *r)
{
	return r->len <= 32 && (r->prefix & ~ipv4_netmask(r->len)) == 0 &&
	       r->ifindex > 0 && valid_gateway(r->gateway);
}

int
route_add(struct route_table *t, const struct route *r)
{
	size_t i, at;

	if (!valid_route(r))
		return -EINVAL;
	for (i = 0; i < t->n; i++) {
		const struct route *e = &t->slots[i];

		if (e->prefix == r->prefix && e->len == r->len &&
		    e->metric == r->metric)
			return -EEXIST;
	}
	if (t->n == t->cap)
		return -ENOSPC;
	/* After every entry that does not sort after it: equal keys keep
	 * insertion order. */
	for (at = 0; at < t->n && !before(r, &t->slots[at]); at++)
		;
	memmove(&t->slots[at + 1], &t->slots[at],
	        (t->n - at) * sizeof(t->slots[0]));
	t->slots[at] = *r;
	t->n++;
	return 0;
}

static void
remove_at(struct route_table *t, size_t i)
{
	memmove(&t->slots[i], &t->slots[i + 1],
	        (t->n - i - 1) * sizeof(t->slots[0]));
	t->n--;
}

int
route_del(struct route_table *t, uint32_t prefix, uint8_t len, int ifindex)
{
	size_t i;

	if (len > 32)
		return -EINVAL;
	for (i = 0; i < t->n; i++) {
		const struct route *e = &t->slots[i];

		if (e->prefix == prefix && e->len == len &&
		    (ifindex <= 0 || e->ifindex == ifindex)) {
			remove_at(t, i);
			return 0;
		}
	}
	return -ESRCH;
}

size_t
route_flush_ifindex(struct route_table *t, int ifindex)
{
	size_t i = 0, removed = 0;

	while (i < t->n) {
		if (t->slots[i].ifindex == ifindex) {
			remove_at(t, i);
			removed++;
		} else {
			i++;
		}
	}
	return removed;
}

int
route_lookup(const struct route_table *t, uint32_t dst, struct route *out)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (matches(&t->slots[i], dst)) {
			*out = t->slots[i];
			return 0;
		}
	}
	return -ENETUNREACH;
}

int
route_gateway_ifindex(const struct route_table *t, uint32_t gw)
{
	struct route r;

	if (route_lookup(t, gw, &r) != 0 || r.gateway != 0)
		return -ENETUNREACH;
	return r.ifindex;
}

uint32_t
route_nexthop(const struct route *r, uint32_t dst)
{
	return r->gateway != 0 ? r->gateway : dst;
}

int
route_table_check(const struct route_table *t)
{
	size_t i, j;

	if (t->n > t->cap || (t->cap > 0 && t->slots == NULL))
		return -EINVAL;
	for (i = 0; i < t->n; i++) {
		if (!valid_route(&t->slots[i]))
			return -EINVAL;
		if (i > 0 && before(&t->slots[i], &t->slots[i - 1]))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (t->slots[j].prefix == t->slots[i].prefix &&
			    t->slots[j].len == t->slots[i].len &&
			    t->slots[j].metric == t->slots[i].metric)
				return -EINVAL;
	}
	return 0;
}
