/*
 * ICMP: answer echo requests, hand echo replies to the ping command's
 * waiters (by id), send destination unreachable (port, protocol) within
 * RFC 1122's rules and the rate limits, and count everything else.
 *
 * Rate limits (RFC 1812 4.3.2.8, as Linux): every ICMP error goes
 * through two token buckets (net/ipv4/tbucket.h), never an echo reply:
 *   - per destination: 1 per icmp_ratelimit_ms (default 1000), burst 6
 *     (Linux's icmp_ratelimit and XRLIM_BURST_FACTOR); the buckets of
 *     the last PEER_SLOTS destinations are kept, the least recently
 *     used one is reused (a new destination starts with a full bucket,
 *     which the global bucket bounds);
 *   - for the host: icmp_msgs_per_sec (1000), burst icmp_msgs_burst (50)
 *     (Linux's icmp_global_allow).
 * 0 in icmp_ratelimit_ms or icmp_msgs_per_sec turns that limit off.
 * What they hold back is counted (netstat -s: "icmp errors").
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/tbucket.h"
#include <kernel/bootparam.h>
#include <kernel/lib/errno.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define PEER_SLOTS 16
#define PEER_BURST 6

static int icmp_ratelimit_ms = 1000;
static int icmp_msgs_per_sec = 1000;
static int icmp_msgs_burst = 50;
BOOTPARAM_INT(icmp_ratelimit_ms, icmp_ratelimit_ms, 0, 600000,
              "ms per ICMP error to one destination (burst 6; 0: off)", 1);
BOOTPARAM_INT(icmp_msgs_per_sec, icmp_msgs_per_sec, 0, 1000000,
              "ICMP errors per second from this host (0: no limit)", 1);
BOOTPARAM_INT(icmp_msgs_burst, icmp_msgs_burst, 1, 100000,
              "burst of the host-wide ICMP error limit", 1);

static DEFINE_SPINLOCK(ping_lock);
static LIST_HEAD(ping_waiters);

struct icmp_peer {
	uint32_t addr; /* 0: free */
	uint64_t used;
	struct tbucket tb;
};

static DEFINE_SPINLOCK(rate_lock); /* the buckets */
static struct icmp_peer peers[PEER_SLOTS];
static struct tbucket host_tb;

void
ping_register(struct ping_waiter *w)
{
	uint32_t f = spin_lock_irqsave(&ping_lock);

	list_add_tail(&w->link, &ping_waiters);
	spin_unlock_irqrestore(&ping_lock, f);
}

void
ping_unregister(struct ping_waiter *w)
{
	uint32_t f = spin_lock_irqsave(&ping_lock);

	list_del_init(&w->link);
	spin_unlock_irqrestore(&ping_lock, f);
}

static bool
echo_data_ok(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i] != (uint8_t)i)
			return false;
	return true;
}

int
icmp_send_echo(uint32_t daddr, uint16_t id, uint16_t seq, size_t size)
{
	struct sk_buff *skb = inet_alloc_skb(ICMP_HLEN + size);
	uint8_t *p;

	if (skb == NULL)
		return -ENOMEM;
	p = skb->data + ICMP_HLEN;
	for (size_t i = 0; i < size; i++)
		p[i] = (uint8_t)i;
	icmp_build_echo(skb->data, skb->len, ICMP_ECHO_REQUEST, id, seq, p,
	                size);
	INET_INC(icmp_out);
	return ip_send(skb, 0, daddr, IP_PROTO_ICMP, 0);
}

static void
echo_reply_rcv(const struct icmp_msg *m, const struct inet_rx_info *ri)
{
	struct ping_waiter *w;
	bool found = false;
	uint32_t f = spin_lock_irqsave(&ping_lock);

	list_for_each_entry(w, &ping_waiters, link) {
		if (w->id != m->id)
			continue;
		w->last_seq = m->seq;
		w->last_rx_us = now_us();
		w->last_len = (uint32_t)m->data_len;
		w->last_ttl = ri->ttl;
		if (!echo_data_ok(m->data, m->data_len))
			w->bad++;
		w->replies++;
		wake_up(w->wq);
		found = true;
	}
	spin_unlock_irqrestore(&ping_lock, f);
	if (!found)
		inet_drop(NET_DROP_ICMP_UNSUPPORTED);
}

static void
echo_request_rcv(const struct icmp_msg *m, const struct inet_rx_info *ri)
{
	struct sk_buff *skb;

	/* No answer to broadcast pings (RFC 1122 3.2.2.6 allows it). */
	if (ri->link_bcast || inet_addr_local(ri->dst) == 0) {
		inet_drop(NET_DROP_ICMP_UNSUPPORTED);
		return;
	}
	skb = inet_alloc_skb(ICMP_HLEN + m->data_len);
	if (skb == NULL)
		return;
	icmp_build_echo(skb->data, skb->len, ICMP_ECHO_REPLY, m->id, m->seq,
	                m->data, m->data_len);
	INET_INC(icmp_out);
	ip_send(skb, ri->dst, ri->src, IP_PROTO_ICMP, 0);
}

static void
unreach_rcv(const struct icmp_msg *m)
{
	struct ping_waiter *w;
	uint32_t f;

	if (m->quote.proto != IP_PROTO_ICMP)
		return;
	f = spin_lock_irqsave(&ping_lock);
	list_for_each_entry(w, &ping_waiters, link) {
		w->unreach++;
		wake_up(w->wq);
	}
	spin_unlock_irqrestore(&ping_lock, f);
}

static void
icmp_rcv(struct sk_buff *skb, const struct inet_rx_info *ri)
{
	struct icmp_msg m;
	enum net_drop why;

	INET_INC(icmp_in);
	why = icmp_parse(skb->data, skb->len, &m);
	if (why != NET_DROP_NONE) {
		inet_drop_skb(skb, why);
		return;
	}
	switch (m.type) {
	case ICMP_ECHO_REQUEST:
		echo_request_rcv(&m, ri);
		break;
	case ICMP_ECHO_REPLY:
		echo_reply_rcv(&m, ri);
		break;
	case ICMP_DEST_UNREACH:
	case ICMP_TIME_EXCEEDED:
		unreach_rcv(&m);
		break;
	default:
		inet_drop(NET_DROP_ICMP_UNSUPPORTED);
		break;
	}
	kfree_skb(skb);
}

/* Lock held: daddr's bucket, or the least recently used one reset. */
static struct tbucket *
peer_bucket(uint32_t daddr, uint64_t now)
{
	struct icmp_peer *p, *lru = &peers[0];

	for (p = peers; p < peers + PEER_SLOTS; p++) {
		if (p->addr == daddr)
			goto found;
		if (p->used < lru->used)
			lru = p;
	}
	p = lru;
	memset(p, 0, sizeof(*p));
	p->addr = daddr;
found:
	p->used = now;
	return &p->tb;
}

/* May an ICMP error go to daddr now?  Host bucket first (Linux's
 * order), so a flood from many sources cannot drain every peer's. */
static bool
rate_ok(uint32_t daddr)
{
	const struct tbucket_params host = {(uint32_t)icmp_msgs_per_sec, 1000,
	                                    (uint32_t)icmp_msgs_burst};
	const struct tbucket_params peer = {1, (uint32_t)icmp_ratelimit_ms,
	                                    PEER_BURST};
	uint64_t now = now_ms();
	uint32_t f = spin_lock_irqsave(&rate_lock);
	bool ok = tbucket_allow(&host_tb, &host, now);

	if (!ok)
		INET_INC(icmp_rl_global);
	else if (icmp_ratelimit_ms != 0 &&
	         !tbucket_allow(peer_bucket(daddr, now), &peer, now)) {
		INET_INC(icmp_rl_peer);
		ok = false;
	}
	spin_unlock_irqrestore(&rate_lock, f);
	return ok;
}

void
icmp_rate_reset(void)
{
	uint32_t f = spin_lock_irqsave(&rate_lock);

	memset(peers, 0, sizeof(peers));
	memset(&host_tb, 0, sizeof(host_tb));
	spin_unlock_irqrestore(&rate_lock, f);
}

void
icmp_send_unreach(const struct inet_rx_info *ri, uint8_t code)
{
	struct ipv4_info orig;
	struct sk_buff *skb;
	size_t qlen;
	int n;

	if (ipv4_parse(ri->iph, ri->ip_len, &orig) != NET_DROP_NONE ||
	    !icmp_may_send_error(&orig, ri->link_bcast) ||
	    inet_addr_local(ri->dst) == 0 || !rate_ok(ri->src))
		return;
	qlen = orig.hdr_len + 8 < ri->ip_len ? orig.hdr_len + 8 : ri->ip_len;
	skb = inet_alloc_skb(ICMP_HLEN + qlen);
	if (skb == NULL)
		return;
	n = icmp_build_unreach(skb->data, skb->len, code, 0, ri->iph,
	                       ri->ip_len);
	if (n < 0) {
		kfree_skb(skb);
		return;
	}
	skb->len = (unsigned)n;
	INET_INC(icmp_out);
	INET_INC(icmp_err_out);
	ip_send(skb, ri->dst, ri->src, IP_PROTO_ICMP, 0);
}

static const struct inet_protocol icmp_protocol = {
    .proto = IP_PROTO_ICMP,
    .handler = icmp_rcv,
};

void
icmp_init(void)
{
	inet_add_protocol(&icmp_protocol);
}
