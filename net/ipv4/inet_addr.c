/*
 * Interface addresses, drop counters and the stack's start-up.
 *
 * A device has at most one IPv4 address (A/N); adding it also adds the
 * connected route A/N on that device.  The table stores the ifindex, not
 * the device (OpenBSD's if_get rule): an address holds no reference, and
 * NETDEV_UNREGISTER removes it with its routes.
 *
 * The table is read on every packet (is it for us, is the next hop a
 * broadcast) and written when an address comes or goes: writers take
 * addr_lock and bump addr_seq, readers take no lock and read again if a
 * write overlapped (kernel/locking/seqcount.h).
 *
 * The notifier registered here is the one place where the stack learns
 * that a device goes down or away; it flushes every cache in order:
 * neighbours on NETDEV_DOWN, then on NETDEV_UNREGISTER the neighbours,
 * addresses and routes, the dst cache (to the blackhole device) and the
 * sockets bound to the device.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/sched/clock.h>
#include <kernel/lib/errno.h>
#include <kernel/initcall.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/seqcount.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>

#define MAX_IFADDR 8

struct in_ifaddr {
	int ifindex; /* 0: free slot */
	char name[IFNAMSIZ];
	uint32_t addr;
	unsigned plen;
};

static DEFINE_SPINLOCK(addr_lock);
static seqcount_t addr_seq;
static struct in_ifaddr ifaddrs[MAX_IFADDR];

static DEFINE_SPINLOCK(drop_lock);
static struct net_drop_stats drops;
struct inet_mib_slot inet_mib_slots[MAX_CPUS];

void
inet_mib_read(struct inet_mib *sum)
{
	uint32_t *out = (uint32_t *)sum;

	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < MAX_CPUS; c++) {
		const volatile uint32_t *in =
		    (const volatile uint32_t *)&inet_mib_slots[c].m;
		for (size_t i = 0; i < sizeof(*sum) / sizeof(uint32_t); i++)
			out[i] += in[i];
	}
}

enum net_drop
inet_drop(enum net_drop reason)
{
	uint32_t f = spin_lock_irqsave(&drop_lock);

	net_drop_count(&drops, reason);
	spin_unlock_irqrestore(&drop_lock, f);
	return reason;
}

void
inet_drop_skb(struct sk_buff *skb, enum net_drop reason)
{
	inet_drop(reason);
	kfree_skb(skb);
}

void
inet_drop_snapshot(struct net_drop_stats *out)
{
	uint32_t f = spin_lock_irqsave(&drop_lock);

	*out = drops;
	spin_unlock_irqrestore(&drop_lock, f);
}

char *
inet_ntoa_r(uint32_t a, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff,
	         (a >> 8) & 0xff, a & 0xff);
	return buf;
}

int
inet_aton(const char *s, uint32_t *out)
{
	uint32_t a = 0;

	for (int i = 0; i < 4; i++) {
		unsigned v = 0;
		int digits = 0;
		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (digits == 0 || digits > 3 || v > 255)
			return -EINVAL;
		a = a << 8 | v;
		if (i < 3 && *s++ != '.')
			return -EINVAL;
	}
	if (*s != '\0')
		return -EINVAL;
	*out = a;
	return 0;
}

int
inet_addr_add(struct net_device *dev, uint32_t addr, unsigned plen)
{
	struct in_ifaddr *free = NULL;
	uint32_t mask, f;
	int r = 0;

	if (plen > 32 || plen == 0 || addr == 0 || ipv4_is_multicast(addr) ||
	    ipv4_is_loopback(addr) || ipv4_is_zeronet(addr) ||
	    addr == IPV4_BROADCAST)
		return -EINVAL;
	mask = ipv4_netmask(plen);
	f = spin_lock_irqsave(&addr_lock);
	for (int i = 0; i < MAX_IFADDR; i++) {
		if (ifaddrs[i].ifindex == dev->ifindex) {
			r = ifaddrs[i].addr == addr && ifaddrs[i].plen == plen
			        ? -EEXIST
			        : -EBUSY;
			goto out;
		}
		if (ifaddrs[i].ifindex != 0 && ifaddrs[i].addr == addr) {
			r = -EADDRINUSE;
			goto out;
		}
		if (ifaddrs[i].ifindex == 0 && free == NULL)
			free = &ifaddrs[i];
	}
	if (free == NULL) {
		r = -ENOSPC;
		goto out;
	}
	write_seqbegin(&addr_seq, &addr_lock);
	free->ifindex = dev->ifindex;
	strlcpy(free->name, dev->name, sizeof(free->name));
	free->addr = addr;
	free->plen = plen;
	write_seqend(&addr_seq, &addr_lock);
out:
	spin_unlock_irqrestore(&addr_lock, f);
	if (r == 0 && plen < 32) {
		r = inet_route_add(addr & mask, plen, 0, dev->ifindex, 0);
		if (r == -EEXIST)
			r = 0;
	}
	return r;
}

int
inet_addr_del(int ifindex, uint32_t addr)
{
	uint32_t f = spin_lock_irqsave(&addr_lock);
	int r = -ESRCH;
	unsigned plen = 0;

	for (int i = 0; i < MAX_IFADDR; i++) {
		if (ifaddrs[i].ifindex == ifindex &&
		    (addr == 0 || ifaddrs[i].addr == addr)) {
			addr = ifaddrs[i].addr;
			plen = ifaddrs[i].plen;
			write_seqbegin(&addr_seq, &addr_lock);
			ifaddrs[i].ifindex = 0;
			write_seqend(&addr_seq, &addr_lock);
			r = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&addr_lock, f);
	if (r == 0 && plen < 32)
		inet_route_del(addr & ipv4_netmask(plen), plen, ifindex);
	return r;
}

PACKET_RX uint32_t
inet_addr_get(int ifindex, unsigned *plen)
{
	uint32_t a;
	unsigned seq, len;

	if (ifindex == 0)
		return 0;
	do {
		seq = read_seqbegin(&addr_seq);
		a = 0;
		len = 0;
		for (int i = 0; i < MAX_IFADDR; i++) {
			if (READ_ONCE(ifaddrs[i].ifindex) == ifindex) {
				a = READ_ONCE(ifaddrs[i].addr);
				len = READ_ONCE(ifaddrs[i].plen);
				break;
			}
		}
	} while (read_seqretry(&addr_seq, seq));
	if (a != 0 && plen != NULL)
		*plen = len;
	return a;
}

PACKET_RX int
inet_addr_local(uint32_t addr)
{
	unsigned seq;
	int idx;

	do {
		seq = read_seqbegin(&addr_seq);
		idx = 0;
		for (int i = 0; i < MAX_IFADDR; i++) {
			int ifindex = READ_ONCE(ifaddrs[i].ifindex);
			if (ifindex != 0 && READ_ONCE(ifaddrs[i].addr) == addr)
				idx = ifindex;
		}
	} while (read_seqretry(&addr_seq, seq));
	return idx;
}

PACKET_RX bool
inet_addr_is_bcast(int ifindex, uint32_t addr)
{
	unsigned plen = 0;
	uint32_t a = inet_addr_get(ifindex, &plen);

	if (a == 0 || plen >= 31)
		return false;
	return addr == (a | ~ipv4_netmask(plen));
}

void
inet_addr_show(void)
{
	struct in_ifaddr copy[MAX_IFADDR];
	char b[16];
	uint32_t f = spin_lock_irqsave(&addr_lock);
	int n = 0;

	memcpy(copy, ifaddrs, sizeof(copy));
	spin_unlock_irqrestore(&addr_lock, f);
	for (int i = 0; i < MAX_IFADDR; i++) {
		if (copy[i].ifindex == 0)
			continue;
		kprintf("%d: %s inet %s/%u\n", copy[i].ifindex, copy[i].name,
		        inet_ntoa_r(copy[i].addr, b), copy[i].plen);
		n++;
	}
	if (n == 0)
		kprintf("(no addresses)\n");
}

/* ---- the notifier ----------------------------------------------------------
 */

static void
inet_netdev_event(struct notifier_block *nb, unsigned long event,
                  struct net_device *dev)
{
	(void)nb;
	switch (event) {
	case NETDEV_DOWN:
		arp_ifdown(dev);
		break;
	case NETDEV_UNREGISTER:
		arp_ifdown(dev);
		inet_addr_del(dev->ifindex, 0);
		inet_route_flush_dev(dev->ifindex);
		dst_ifdown(dev);
		sock_ifdown(dev);
		break;
	default:
		break;
	}
}

static struct notifier_block inet_notifier = {
    .notifier_call = inet_netdev_event,
};

static void
inet_thread(void *arg)
{
	(void)arg;
	for (;;) {
		msleep(100);
		arp_tick(now_ms_coarse());
		route_tick();
	}
}

static void
inet_init(void)
{
	route_init();
	arp_init();
	socket_init();
	ip_input_init();
	icmp_init();
	udp_init();
	register_netdevice_notifier(&inet_notifier);
	if (thread_create("inet", inet_thread, NULL, 0) == NULL)
		pr_err("inet: cannot start the inet thread\n");
}
proto_initcall(inet_init);
