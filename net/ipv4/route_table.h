/*
 * The IPv4 routing table as pure data: (prefix, length, gateway,
 * ifindex, metric) entries with longest-prefix-match lookup.
 *
 * Entries name their interface by ifindex, never by device pointer
 * (OpenBSD's if_get(), lwIP's netif index): the table can outlive a
 * device, and the kernel layer turns the index into a held device
 * reference per lookup, or drops the routes with route_flush_ifindex()
 * on NETDEV_UNREGISTER.
 *
 * Storage is supplied by the caller; the table keeps it sorted by
 * (prefix length descending, metric ascending, insertion order), so the
 * first entry that matches a destination is the answer and `ip route`
 * prints the table in the order lookups consult it.  No locking here.
 */
#ifndef NET_ROUTE_TABLE_H
#define NET_ROUTE_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct route {
	uint32_t prefix;  /* host order, no bits set beyond len */
	uint8_t len;      /* 0..32; 0 is the default route */
	uint32_t gateway; /* 0: destination is on-link */
	int ifindex;      /* > 0 */
	uint32_t metric;  /* lower wins among equal lengths */
};

struct route_table {
	struct route *slots;
	size_t cap;
	size_t n; /* slots[0..n) are in use, in lookup order */
};

void route_table_init(struct route_table *t, struct route *slots, size_t cap);

/*
 * Adds a route.  Errors:
 *   -EINVAL  len > 32, prefix has bits set beyond len, ifindex <= 0, or
 *            the gateway is multicast, limited broadcast, in 0/8 or
 *            loopback (gateway 0 means on-link and is fine)
 *   -EEXIST  a route with the same prefix, len and metric exists (as
 *            Linux; `ip route replace` is del + add)
 *   -ENOSPC  the table is full
 */
int route_add(struct route_table *t, const struct route *r);

/*
 * Deletes the first (lowest metric) route with this prefix and len, on
 * ifindex if ifindex > 0.  Returns 0, -EINVAL (len > 32) or -ESRCH (no
 * such route, as `ip route del` reports it).
 */
int route_del(struct route_table *t, uint32_t prefix, uint8_t len, int ifindex);

/* Removes every route through ifindex; returns how many. */
size_t route_flush_ifindex(struct route_table *t, int ifindex);

/* Longest-prefix match; copies the route to *out.  Returns 0 or
 * -ENETUNREACH. */
int route_lookup(const struct route_table *t, uint32_t dst, struct route *out);

/* The interface a gateway is reached on, as `ip route add ... via G`
 * without `dev` wants it: the ifindex of the route lookups would use for
 * gw, if that route is on-link (a connected network).  -ENETUNREACH if
 * there is no route to gw or it needs a gateway itself. */
int route_gateway_ifindex(const struct route_table *t, uint32_t gw);

/* The address to resolve on the link: the gateway, or dst if on-link. */
uint32_t route_nexthop(const struct route *r, uint32_t dst);

/* The consistency check the tests (and a debug kernel) run after every
 * change: each entry valid, order kept, no duplicates.  0 or -EINVAL. */
int route_table_check(const struct route_table *t);

#endif /* NET_ROUTE_TABLE_H */
