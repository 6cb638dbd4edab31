/*
 * The routing table (route_table.c, by ifindex) and the dst cache.
 *
 * A dst_entry is the answer to "where does a packet to daddr go": the
 * device (held, tag "dst"), the next hop and the source address.  The
 * cache holds one reference on each entry it lists; users (a connected
 * socket, a TCP connection) take their own with ip_route_output and
 * drop it with dst_release.  A packet being sent takes none: through
 * ip_route_skb it holds the route's device itself, as long as it is in
 * flight.
 *
 * The cache is an RCU list: ip_route_skb finds an entry without the
 * lock for a packet that already holds the route's device, and every
 * entry's memory goes a grace period after its last reference (its
 * device reference at once).
 *
 * Invalidation:
 *  - any route or address change empties the cache (entries become
 *    obsolete; their users look again on the next send);
 *  - NETDEV_UNREGISTER (dst_ifdown) moves every dst of the device, cached
 *    or in use, to blackhole_dev, as Linux's dst_dev_put: the device
 *    reference is dropped at once, so unregister can complete while a
 *    socket still holds the dst, and whatever is sent through it is
 *    dropped (IP_NO_ROUTE) instead of reaching a dead driver.
 *  - cache entries only the cache holds, unused for dst_gc_ms (a boot
 *    parameter and sysctl, default 10 s), are freed by route_tick.
 *
 * blackhole_dev is a device that is never registered: it has no driver,
 * is never up, and only exists to be pointed at.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/route_table.h"
#include <kernel/locking/refcount.h>
#include <kernel/bootparam.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define ROUTE_SLOTS 32

static int dst_gc_ms = 10000;
BOOTPARAM_INT(dst_gc_ms, dst_gc_ms, 100, 600000,
              "ms an unused dst cache entry is kept", 1);

DEFINE_SPINLOCK(route_lock); /* the table and the cache */
static struct route route_slots[ROUTE_SLOTS];
static struct route_table rtable;
static LIST_HEAD(dst_cache);
static LIST_HEAD(dst_inuse); /* blackholed or flushed, still referenced */
static unsigned dst_cached, dst_orphans;

struct net_device *blackhole_dev;

/* Lock held: the cache lets go of every entry.  A lockless reader may
 * still stand on one (ip_route_skb): link keeps its next pointer, and
 * the entry goes on through aux. */
static void
dst_cache_flush_locked(struct list_head *freeq) REQUIRES(route_lock)
{
	struct dst_entry *d, *tmp;

	spin_assert_held(&route_lock);
	list_for_each_entry_safe(d, tmp, &dst_cache, link) {
		list_del_rcu(&d->link);
		dst_cached--;
		d->obsolete = true;
		if (refcount_dec_and_test(&d->refcnt, "dst")) {
			list_add_tail(&d->aux, freeq);
		} else {
			list_add_tail(&d->aux, &dst_inuse);
			dst_orphans++;
		}
	}
}

static void
dst_free_rcu(struct rcu_head *h)
{
	kfree(container_of(h, struct dst_entry, rcu));
}

/* The device goes back at once (a reader only compares the pointer),
 * the memory after a grace period. */
static void
dst_free(struct dst_entry *d)
{
	dev_put_track(d->dev, &d->tracker);
	call_rcu(&d->rcu, dst_free_rcu);
}

/* freeq is private to the caller, which unlinked its entries under
 * route_lock: no one else can reach them, so aux needs no lock here. */
NO_LOCKCHECK static void
dst_free_list(struct list_head *freeq)
{
	struct dst_entry *d, *tmp;

	list_for_each_entry_safe(d, tmp, freeq, aux) {
		list_del_init(&d->aux);
		dst_free(d);
	}
}

static void
dst_cache_flush(void)
{
	LIST_HEAD(freeq);
	uint32_t f = spin_lock_irqsave(&route_lock);

	dst_cache_flush_locked(&freeq);
	spin_unlock_irqrestore(&route_lock, f);
	dst_free_list(&freeq);
}

int
inet_route_add(uint32_t prefix, unsigned len, uint32_t gw, int ifindex,
               uint32_t metric)
{
	struct route r = {prefix, (uint8_t)len, gw, ifindex, metric};
	uint32_t f;
	int err;

	if (len > 32)
		return -EINVAL;
	f = spin_lock_irqsave(&route_lock);
	err = 0;
	if (ifindex == 0 && gw != 0) {
		/* The gateway's connected route names the device; looked up
		 * under the lock, so it cannot go between lookup and add. */
		err = route_gateway_ifindex(&rtable, gw);
		r.ifindex = err;
		err = err < 0 ? err : 0;
	}
	if (err == 0)
		err = route_add(&rtable, &r);
	spin_unlock_irqrestore(&route_lock, f);
	if (err == 0)
		dst_cache_flush();
	return err;
}

int
inet_route_del(uint32_t prefix, unsigned len, int ifindex)
{
	uint32_t f;
	int err;

	if (len > 32)
		return -EINVAL;
	f = spin_lock_irqsave(&route_lock);
	err = route_del(&rtable, prefix, (uint8_t)len, ifindex);
	spin_unlock_irqrestore(&route_lock, f);
	if (err == 0)
		dst_cache_flush();
	return err;
}

void
inet_route_flush_dev(int ifindex)
{
	uint32_t f = spin_lock_irqsave(&route_lock);

	route_flush_ifindex(&rtable, ifindex);
	spin_unlock_irqrestore(&route_lock, f);
	dst_cache_flush();
}

void
inet_route_show(void)
{
	struct route copy[ROUTE_SLOTS];
	char a[16], g[16];
	size_t n;
	unsigned cached, orphans;
	uint32_t f = spin_lock_irqsave(&route_lock);

	n = rtable.n;
	memcpy(copy, route_slots, n * sizeof(copy[0]));
	cached = dst_cached;
	orphans = dst_orphans;
	spin_unlock_irqrestore(&route_lock, f);
	for (size_t i = 0; i < n; i++) {
		struct net_device *dev;
		const char *name = "?";
		rcu_read_lock();
		dev = dev_get_by_index_rcu(copy[i].ifindex);
		if (dev != NULL)
			name = dev->name;
		if (copy[i].len == 0)
			kprintf("default");
		else
			kprintf("%s/%u", inet_ntoa_r(copy[i].prefix, a),
			        copy[i].len);
		if (copy[i].gateway != 0)
			kprintf(" via %s", inet_ntoa_r(copy[i].gateway, g));
		kprintf(" dev %s metric %u\n", name, copy[i].metric);
		rcu_read_unlock();
	}
	if (n == 0)
		kprintf("(no routes)\n");
	kprintf("dst cache: %u entries, %u in use outside it\n", cached,
	        orphans);
}

/* A new entry for daddr via r, holding the device; NULL if the device is
 * going away (or no memory). */
static struct dst_entry *
dst_create(uint32_t daddr, int oif, const struct route *r)
{
	struct dst_entry *d = kzalloc(sizeof(*d), INET_TAG);

	if (d == NULL)
		return NULL;
	d->dev = dev_get_by_index(r->ifindex, &d->tracker, "dst");
	if (d->dev == NULL) {
		kfree(d);
		return NULL;
	}
	d->daddr = daddr;
	d->oif = oif;
	d->nexthop = route_nexthop(r, daddr);
	/* Decided once per route, not per packet: an address change
	 * empties the cache. */
	d->bcast = d->nexthop == IPV4_BROADCAST ||
	           inet_addr_is_bcast(r->ifindex, d->nexthop);
	d->saddr = inet_addr_get(r->ifindex, NULL);
	refcount_set(&d->refcnt, 1);
	return d;
}

/* The cached entry for (daddr, oif), marked used; NULL if none.  Under
 * route_lock, or in a read-side section (the entry stays in memory until
 * it ends, but may be flushed meanwhile).  lastuse may be stored by two
 * CPUs at once, and route_tick may read it half written: at worst an
 * entry in use is collected and made again.  It is the tick's clock
 * (a load, where a TSC stamp was a helper call under TCG on every
 * packet sent), stored only when it moved, so the entry's cache line
 * is written once a millisecond at most, not per packet. */
static inline struct dst_entry *
dst_cache_find(uint32_t daddr, int oif)
{
	struct dst_entry *d;

	ASSERT(rcu_read_held() || spin_held(&route_lock));
	list_for_each_entry_rcu(d, &dst_cache, link)
	{
		if (d->daddr == daddr && d->oif == oif) {
			uint64_t now = now_ms_coarse();

			if (d->lastuse != now)
				d->lastuse = now;
			return d;
		}
	}
	return NULL;
}

int
ip_route_output(uint32_t daddr, int oif, struct dst_entry **out)
{
	struct dst_entry *d, *fresh;
	struct route r;
	uint32_t f;
	int err;

	f = spin_lock_irqsave(&route_lock);
	d = dst_cache_find(daddr, oif);
	if (d != NULL) {
		refcount_inc(&d->refcnt, "dst");
		spin_unlock_irqrestore(&route_lock, f);
		*out = d;
		return 0;
	}
	if (oif > 0 && (daddr == IPV4_BROADCAST)) {
		r = (struct route){0, 0, 0, oif, 0};
		err = 0;
	} else {
		err = route_lookup(&rtable, daddr, &r);
		if (err == 0 && oif > 0 && r.ifindex != oif)
			err = -ENETUNREACH;
	}
	spin_unlock_irqrestore(&route_lock, f);
	if (err != 0)
		return err;
	fresh = dst_create(daddr, oif, &r);
	if (fresh == NULL)
		return -ENETUNREACH;
	/* Cache it (one reference for the cache, one for the caller). */
	f = spin_lock_irqsave(&route_lock);
	refcount_set(&fresh->refcnt, 2);
	fresh->lastuse = now_ms_coarse();
	list_add_tail_rcu(&fresh->link, &dst_cache);
	dst_cached++;
	spin_unlock_irqrestore(&route_lock, f);
	*out = fresh;
	return 0;
}

void
dst_release(struct dst_entry *d)
{
	uint32_t f;
	bool last;

	if (d == NULL)
		return;
	f = spin_lock_irqsave(&route_lock);
	last = refcount_dec_and_test(&d->refcnt, "dst");
	if (last) {
		ASSERT(d->obsolete);
		list_del_init(&d->aux);
		dst_orphans--;
	}
	spin_unlock_irqrestore(&route_lock, f);
	if (last)
		dst_free(d);
}

/* Lock held: point d at the blackhole device instead of its own. */
static void
dst_dev_put(struct dst_entry *d)
{
	dev_put_track(d->dev, &d->tracker);
	d->dev = blackhole_dev;
	dev_hold_track(blackhole_dev, &d->tracker, "dst");
}

void
dst_ifdown(struct net_device *dev)
{
	struct dst_entry *d;
	LIST_HEAD(freeq);
	uint32_t f = spin_lock_irqsave(&route_lock);

	dst_cache_flush_locked(&freeq);
	list_for_each_entry(d, &dst_inuse, aux)
		if (d->dev == dev)
			dst_dev_put(d);
	spin_unlock_irqrestore(&route_lock, f);
	dst_free_list(&freeq);
}

size_t
dst_count_dev(struct net_device *dev)
{
	struct dst_entry *d;
	size_t n = 0;
	uint32_t f = spin_lock_irqsave(&route_lock);

	list_for_each_entry(d, &dst_cache, link)
		if (d->dev == dev)
			n++;
	list_for_each_entry(d, &dst_inuse, aux)
		if (d->dev == dev)
			n++;
	spin_unlock_irqrestore(&route_lock, f);
	return n;
}

void
route_tick(void)
{
	struct dst_entry *d, *tmp;
	LIST_HEAD(freeq);
	uint64_t now = now_ms_coarse();
	uint64_t gc = (uint64_t)READ_ONCE(dst_gc_ms);
	uint32_t f = spin_lock_irqsave(&route_lock);

	list_for_each_entry_safe(d, tmp, &dst_cache, link) {
		/* a reader may have stored a later tick than now */
		uint64_t last = d->lastuse;

		if (refcount_read(&d->refcnt) != 1 || last > now ||
		    now - last < gc)
			continue;
		list_del_rcu(&d->link);
		dst_cached--;
		list_add_tail(&d->aux, &freeq);
	}
	spin_unlock_irqrestore(&route_lock, f);
	dst_free_list(&freeq);
}

void
route_init(void)
{
	route_table_init(&rtable, route_slots, ROUTE_SLOTS);
	blackhole_dev = alloc_netdev(0, "blackhole");
	if (blackhole_dev == NULL)
		panic("inet: no memory for the blackhole device");
}

/* out says where to send through d, out of dev (d's device as read). */
static void
dst_copy_nexthop(const struct dst_entry *d, struct net_device *dev,
                 struct ip_nexthop *out)
{
	out->dev = dev;
	out->nexthop = d->nexthop;
	out->saddr = d->saddr;
	out->bcast = d->bcast;
}

/* Lock held: skb takes its own reference on d's current device (so
 * dst_ifdown cannot swap it in between), and out says where to send. */
static void
dst_fill_nexthop(struct dst_entry *d, struct sk_buff *skb,
                 struct ip_nexthop *out)
{
	ASSERT(spin_held(&route_lock));
	skb_set_dev(skb, d->dev);
	dst_copy_nexthop(d, d->dev, out);
}

void
dst_route_skb(struct dst_entry *d, struct sk_buff *skb, struct ip_nexthop *out)
{
	uint32_t f = spin_lock_irqsave(&route_lock);

	dst_fill_nexthop(d, skb, out);
	spin_unlock_irqrestore(&route_lock, f);
}

/*
 * A cached route costs one lock round trip here instead of three
 * (ip_route_output, dst_route_skb, dst_release), and none for a packet
 * that already holds the route's device: the packet takes no reference
 * on the dst, only its own on the device, which is what keeps the path
 * alive while it is sent.  A cached dst is never on the blackhole
 * device (dst_ifdown empties the cache first).
 */
PACKET_TX int
ip_route_skb(uint32_t daddr, int oif, struct sk_buff *skb,
             struct ip_nexthop *out)
{
	struct dst_entry *d;
	uint32_t f;
	int r;

	/* A packet that already holds the route's device (a reply going
	 * back out the way it came) needs no reference taken, so no lock:
	 * the entry is found and copied in a read-side section. */
	rcu_read_lock();
	d = skb->dev != NULL ? dst_cache_find(daddr, oif) : NULL;
	race_point_spin("dst-found"); /* a flush may run here */
	if (d != NULL && READ_ONCE(d->dev) == skb->dev)
		dst_copy_nexthop(d, skb->dev, out);
	else
		d = NULL;
	rcu_read_unlock();
	if (d != NULL)
		return 0;
	f = spin_lock_irqsave(&route_lock);
	d = dst_cache_find(daddr, oif);
	if (d != NULL)
		dst_fill_nexthop(d, skb, out);
	spin_unlock_irqrestore(&route_lock, f);
	if (d != NULL)
		return 0;
	r = ip_route_output(daddr, oif, &d); /* fills the cache */
	if (r != 0)
		return r;
	dst_route_skb(d, skb, out);
	dst_release(d);
	return 0;
}

/* The routing table's order and the dst cache: dst_cached counts the
 * cache, whose entries are current, held and point at a device. */
static const char *
route_sane(char *buf, size_t size)
{
	struct dst_entry *d;
	unsigned count = 0;
	const char *why = NULL;
	uint32_t f = spin_lock_irqsave(&route_lock);

	if (route_table_check(&rtable) != 0)
		why = "routing table out of order or invalid";
	list_for_each_entry(d, &dst_cache, link) {
		count++;
		if (why == NULL &&
		    (d->obsolete || refcount_read(&d->refcnt) < 1 ||
		     d->dev == NULL)) {
			snprintf(buf, size,
			         "cached dst: obsolete %d, refcnt %d, dev %p",
			         d->obsolete, refcount_read(&d->refcnt),
			         (void *)d->dev);
			why = buf;
		}
	}
	if (why == NULL && count != dst_cached) {
		snprintf(buf, size, "%u dst cached, dst_cached %u", count,
		         dst_cached);
		why = buf;
	}
	spin_unlock_irqrestore(&route_lock, f);
	return why;
}
INVARIANT(route, route_sane);
