/*
 * ICMP: answer echo requests, hand echo replies to the ping command's
 * waiters (by id), send destination unreachable (port, protocol) within
 * RFC 1122's rules and a rate limit, and count everything else.
 */
#include "net/inet.h"
#include "net/icmp_proto.h"
#include "net/ipv4_hdr.h"
#include <kernel/errno.h>
#include <kernel/spinlock.h>
#include <kernel/timer.h>

#define UNREACH_PER_SEC 100

static DEFINE_SPINLOCK(ping_lock);
static LIST_HEAD(ping_waiters);
static DEFINE_SPINLOCK(rate_lock);
static uint64_t rate_window;
static unsigned rate_count;

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

	list_for_each_entry(w, &ping_waiters, link)
	{
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
	list_for_each_entry(w, &ping_waiters, link)
	{
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

static bool
rate_ok(void)
{
	uint64_t now = now_ms();
	uint32_t f = spin_lock_irqsave(&rate_lock);
	bool ok;

	if (now - rate_window >= 1000) {
		rate_window = now;
		rate_count = 0;
	}
	ok = rate_count++ < UNREACH_PER_SEC;
	spin_unlock_irqrestore(&rate_lock, f);
	return ok;
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
	    inet_addr_local(ri->dst) == 0 || !rate_ok())
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
