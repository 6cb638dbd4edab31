/*
 * UDP sockets (RFC 768) on the socket API.
 *
 * Ports are keyed by (port, bound device), as Linux's SO_BINDTODEVICE:
 * sockets bound to different devices may share a port (a DHCP client
 * per NIC on port 68), a socket bound to no device conflicts with every
 * socket on the port.  A socket bound to its port before its device is
 * narrowed by the device binding, never widened, so the rule holds.
 *
 * A datagram goes to the best matching socket, looked up without a lock
 * (rcu_read_lock; udp_release waits a grace period before the socket's
 * memory can go): its local port matches,
 * its local address is the wildcard or the destination, its bound device
 * (if any) is the receiving one and, if connected, its peer is the
 * source; among those a connected socket beats an unconnected one, then
 * a device-bound one beats an unbound one, then an exact local address
 * beats the wildcard (udp_score).  Queued skbs give their device reference back
 * (a datagram waiting in a socket is not in flight on a device; one
 * handed to a receive handler still is, and keeps it); the source
 * address is read back from the IP header left in front of the UDP header (no
 * options: ipv4_parse refuses them).  Queues are bounded (UDP_RXQ_MAX,
 * then UDP_RCVBUF_FULL); no socket: ICMP port unreachable and
 * UDP_NO_SOCKET.
 *
 * A socket with a receive handler (sock_set_rx_handler: lwIP's raw API,
 * an event-driven service such as udpecho) is not queued to: udp_rcv
 * hands the handler the skb after leaving the read-side section, the
 * socket pinned by in_handler (taken inside it, dropped after the
 * handler), which udp_release waits to drain once the grace period has
 * let every pin taken on a listed socket land.  So a handler may
 * send on its socket (sendto takes udp_lock to autobind), and a
 * datagram costs no wakeup and no context switch; an echo that sends
 * the skb back (sock_send_skb) costs no allocation and no copy either:
 * the received frame's own headroom takes the new headers.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/udp_proto.h"
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/panic.h>
#include <kernel/debug/racepoint.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>

#define UDP_RXQ_MAX    64
#define UDP_PORT_FIRST 49152

/* Writers of udp_socks, every rxq and address; readers of udp_socks
 * may walk it under rcu_read_lock instead (udp_lookup). */
static DEFINE_SPINLOCK(udp_lock);
static LIST_HEAD(udp_socks);
static uint16_t next_port = UDP_PORT_FIRST;

struct udp_sock {
	struct list_head link;
	struct socket *sk;
	bool bound;
	sock_rx_handler handler; /* set before bind, never changed after */
	void *handler_arg;
	/* Handlers running: taken in udp_lookup's read-side section,
	 * dropped after the handler (atomic both ways). */
	unsigned in_handler;
};

/*
 * udp_release waits here for a socket's handlers to drain.  Not in the
 * socket: a handler's last act on it is the decrement, after which the
 * socket may be freed at once, so the wakeup must touch nothing of it.
 * The handler wakes only while a release waits (udp_releasing); the
 * decrement and the releaser's increment are both full barriers, so
 * either the releaser sees the count at 0 or the handler sees it wait.
 */
static DEFINE_WAITQ(udp_handlers_done);
static unsigned udp_releasing;

/* Lock held.  Would binding port on ifindex (0: no device) clash? */
static bool
port_used(uint16_t port, int ifindex)
{
	struct udp_sock *u;

	list_for_each_entry(u, &udp_socks, link) {
		int other = u->sk->bound_ifindex;

		if (u->bound && u->sk->local.port == port &&
		    (ifindex == 0 || other == 0 || other == ifindex))
			return true;
	}
	return false;
}

/* Lock held. */
static int
bind_locked(struct socket *sk, uint32_t addr, uint16_t port)
{
	struct udp_sock *u = sk->proto_data;

	if (u->bound)
		return -EINVAL;
	if (port == 0) {
		for (int i = 0; i < 16384 && port == 0; i++) {
			uint16_t p = next_port++;
			if (next_port == 0)
				next_port = UDP_PORT_FIRST;
			if (!port_used(p, sk->bound_ifindex))
				port = p;
		}
		if (port == 0)
			return -EADDRINUSE;
	} else if (port_used(port, sk->bound_ifindex)) {
		return -EADDRINUSE;
	}
	sk->local.addr = addr;
	sk->local.port = port;
	/* Release: autobind's unlocked check then sees the address. */
	__atomic_store_n(&u->bound, true, __ATOMIC_RELEASE);
	return 0;
}

static int
udp_init_sock(struct socket *sk)
{
	struct udp_sock *u = kzalloc(sizeof(*u), INET_TAG);
	uint32_t f;

	if (u == NULL)
		return -ENOMEM;
	u->sk = sk;
	sk->proto_data = u;
	f = spin_lock_irqsave(&udp_lock);
	list_add_tail_rcu(&u->link, &udp_socks);
	spin_unlock_irqrestore(&udp_lock, f);
	return 0;
}

static bool
handlers_drained(struct udp_sock *u)
{
	return __atomic_load_n(&u->in_handler, __ATOMIC_SEQ_CST) == 0;
}

static void
udp_release(struct socket *sk)
{
	struct udp_sock *u = sk->proto_data;
	uint32_t f = spin_lock_irqsave(&udp_lock);

	list_del_rcu(&u->link);
	spin_unlock_irqrestore(&udp_lock, f);
	/* Every lookup that found the socket is done with it: its pin (if
	 * any) is taken and its datagram queued (sock_close drains the
	 * queue after us).  Expedited and shared: a close is not held up
	 * for a tick on every CPU. */
	rcu_gp_wait(rcu_gp_cookie());
	if (u->handler != NULL) {
		__atomic_add_fetch(&udp_releasing, 1, __ATOMIC_SEQ_CST);
		wait_event(udp_handlers_done, handlers_drained(u));
		__atomic_sub_fetch(&udp_releasing, 1, __ATOMIC_SEQ_CST);
	}
	kfree(u);
}

static int
udp_set_rx_handler(struct socket *sk, sock_rx_handler fn, void *arg)
{
	struct udp_sock *u = sk->proto_data;
	uint32_t f = spin_lock_irqsave(&udp_lock);
	int r = u->bound ? -EINVAL : 0;

	if (r == 0) {
		u->handler = fn;
		u->handler_arg = arg;
	}
	spin_unlock_irqrestore(&udp_lock, f);
	return r;
}

static int
udp_bind(struct socket *sk, const struct sockaddr_in4 *a)
{
	uint32_t f;
	int r;

	if (a->addr != 0 && inet_addr_local(a->addr) == 0)
		return -EINVAL;
	f = spin_lock_irqsave(&udp_lock);
	r = bind_locked(sk, a->addr, a->port);
	spin_unlock_irqrestore(&udp_lock, f);
	return r;
}

static inline int
autobind(struct socket *sk)
{
	struct udp_sock *u = sk->proto_data;
	uint32_t f;
	int r;

	/* bound goes from false to true once, under the lock: a socket
	 * seen bound stays bound, so every send after the first skips it. */
	if (__atomic_load_n(&u->bound, __ATOMIC_ACQUIRE))
		return 0;
	f = spin_lock_irqsave(&udp_lock);
	r = u->bound ? 0 : bind_locked(sk, 0, 0);
	spin_unlock_irqrestore(&udp_lock, f);
	return r;
}

static int
udp_connect(struct socket *sk, const struct sockaddr_in4 *a)
{
	struct dst_entry *dst;
	int r;

	if (a->addr == 0 || a->port == 0)
		return -EINVAL;
	r = autobind(sk);
	if (r != 0)
		return r;
	r = ip_route_output(a->addr, sk->bound_ifindex, &dst);
	if (r != 0)
		return r;
	dst_release(sk->dst);
	sk->dst = dst; /* a "dst" holder of the device while connected */
	sk->remote = *a;
	sk->connected = true;
	return 0;
}

/* Where a datagram goes: to, else the connected peer. */
static int
udp_dest(struct socket *sk, const struct sockaddr_in4 *to,
         struct sockaddr_in4 *dest)
{
	if (to != NULL && to->addr != 0)
		*dest = *to;
	else if (sk->connected)
		*dest = sk->remote;
	else
		return -ENOTCONN;
	return dest->port == 0 ? -EINVAL : 0;
}

/* Send the payload at skb->data, with UDP_HLEN + IPV4_HLEN + ETH_HLEN of
 * headroom and the tailroom to pad a short frame; skb is consumed.  In
 * line in both senders: one call fewer per datagram. */
static inline __attribute__((always_inline)) int
udp_output(struct socket *sk, struct sk_buff *skb,
           const struct sockaddr_in4 *dest)
{
	struct ip_nexthop nh;
	unsigned len = skb->len;
	bool presummed = skb_csum_rx_covers(skb);
	uint32_t src;
	int r;

	r = autobind(sk);
	/* The dst cache makes this one lock round trip; a connected
	 * socket's own dst only pins the path (and shows as a holder). */
	if (r == 0)
		r = ip_route_skb(dest->addr, sk->bound_ifindex, skb, &nh);
	if (r != 0) {
		kfree_skb(skb);
		return r;
	}
	src = sk->local.addr != 0 ? sk->local.addr : nh.saddr;
	skb_push(skb, UDP_HLEN);
	/* A device that can sums the datagram as it sends it. */
	skb->csum_partial = (nh.dev->features & NETIF_F_L4_CSUM) != 0;
	skb->csum_start = (uint16_t)(skb->data - skb->head);
	skb->csum_offset = 6;
	if (skb->csum_partial)
		udp_build_partial(skb->data, skb->len, src, dest->addr,
		                  sk->local.port, dest->port,
		                  skb->data + UDP_HLEN, len);
	else if (presummed) /* received bytes, their sum kept (run_handler) */
		udp_build_presummed(skb->data, skb->len, src, dest->addr,
		                    sk->local.port, dest->port, len,
		                    skb->csum_rx);
	else
		udp_build(skb->data, skb->len, src, dest->addr, sk->local.port,
		          dest->port, skb->data + UDP_HLEN, len);
	INET_INC(udp_out);
	r = ip_send_nexthop(skb, &nh, src, dest->addr, IP_PROTO_UDP);
	return r < 0 ? r : (int)len;
}

static int
udp_sendto(struct socket *sk, const void *buf, size_t len,
           const struct sockaddr_in4 *to)
{
	struct sockaddr_in4 dest;
	struct sk_buff *skb;
	int r = udp_dest(sk, to, &dest);

	if (r != 0)
		return r;
	if (len > ETH_MAX_MTU)
		return -E2BIG;
	skb = inet_alloc_skb(UDP_HLEN + len);
	if (skb == NULL)
		return -ENOMEM;
	memcpy(skb_pull(skb, UDP_HLEN), buf, len);
	return udp_output(sk, skb, &dest);
}

/* Zero-copy when the skb has the room udp_output needs, as a received
 * one has (the headers it came with); else through a copy. */
PACKET_TX int
udp_send_skb(struct socket *sk, struct sk_buff *skb,
             const struct sockaddr_in4 *to)
{
	unsigned head = UDP_HLEN + IPV4_HLEN + ETH_HLEN,
	         frame = head + skb->len;
	struct sockaddr_in4 dest;
	int r = udp_dest(sk, to, &dest);

	if (r == 0 && skb->len > ETH_MAX_MTU)
		r = -E2BIG;
	if (r != 0) {
		kfree_skb(skb);
		return r;
	}
	if ((unsigned)(skb->data - skb->head) < head ||
	    (frame < ETH_ZLEN && skb_tailroom(skb) < ETH_ZLEN - frame)) {
		r = udp_sendto(sk, skb->data, skb->len, &dest);
		kfree_skb(skb);
		return r;
	}
	return udp_output(sk, skb, &dest);
}

static int
udp_recvfrom(struct socket *sk, void *buf, size_t len,
             struct sockaddr_in4 *from)
{
	struct sk_buff *skb;
	size_t n;
	uint32_t f = spin_lock_irqsave(&udp_lock);

	if (list_empty(&sk->rxq)) {
		spin_unlock_irqrestore(&udp_lock, f);
		return -EAGAIN;
	}
	skb = list_entry(sk->rxq.next, struct sk_buff, list);
	list_del_init(&skb->list);
	sk->rxq_len--;
	spin_unlock_irqrestore(&udp_lock, f);
	n = skb->len - UDP_HLEN;
	if (n > len)
		n = len; /* the rest of the datagram is discarded */
	memcpy(buf, skb->data + UDP_HLEN, n);
	if (from != NULL) {
		from->addr = get_be32(skb->data - IPV4_HLEN + 12);
		from->port = get_be16(skb->data);
	}
	kfree_skb(skb);
	return (int)n;
}

static void
udp_show(struct socket *sk, char *buf, size_t size)
{
	strlcpy(buf, sk->connected ? "ESTAB" : "UNCONN", size);
}

struct proto_ops udp_proto_ops = {
    .name = "udp",
    .type = SOCK_DGRAM,
    .protocol = IP_PROTO_UDP,
    .owner = NULL,
    .init = udp_init_sock,
    .release = udp_release,
    .bind = udp_bind,
    .connect = udp_connect,
    .sendto = udp_sendto,
    .send_skb = udp_send_skb,
    .recvfrom = udp_recvfrom,
    .show = udp_show,
    .set_rx_handler = udp_set_rx_handler,
};

/* How well sk matches the datagram: -1 not at all, else higher wins. */
static int
udp_score(const struct socket *sk, const struct inet_rx_info *ri,
          const struct udp_dgram *d)
{
	int score = 0;

	if (sk->local.port != d->dport)
		return -1;
	if (sk->local.addr != 0) {
		if (sk->local.addr != ri->dst && ri->dst != IPV4_BROADCAST)
			return -1;
		score += 1;
	}
	if (sk->bound_ifindex != 0) {
		if (sk->bound_ifindex != ri->ifindex)
			return -1;
		score += 2;
	}
	if (sk->connected) {
		if (sk->remote.addr != ri->src || sk->remote.port != d->sport)
			return -1;
		score += 4;
	}
	return score;
}

/* In a read-side section: the socket stays in memory until it ends. */
static struct socket *
udp_lookup(const struct inet_rx_info *ri, const struct udp_dgram *d)
{
	struct socket *best = NULL;
	struct udp_sock *u;
	int best_score = -1;

	ASSERT(rcu_read_held());
	list_for_each_entry_rcu(u, &udp_socks, link)
	{
		int score = __atomic_load_n(&u->bound, __ATOMIC_ACQUIRE)
		                ? udp_score(u->sk, ri, d)
		                : -1;

		if (score > best_score) {
			best = u->sk;
			best_score = score;
		}
	}
	return best;
}

/* Hand the datagram to sk's receive handler, which owns skb from here;
 * sk was pinned (in_handler) in udp_lookup's read-side section, which has
 * ended (a handler may sleep), and no lock is held. */
static void
run_handler(struct socket *sk, struct sk_buff *skb, const struct udp_dgram *d,
            const struct inet_rx_info *ri)
{
	struct udp_sock *u = sk->proto_data;
	struct sockaddr_in4 from = {ri->src, d->sport};

	ASSERT(!spin_held(&udp_lock)); /* the handler may send */
	skb_pull(skb, UDP_HLEN);
	if (d->csum_present) { /* payload_len < 2^16: a 16-bit length */
		/* for a reply of the same bytes (udp_output) */
		skb->csum_rx = d->payload_sum;
		skb->csum_rx_start = (uint16_t)(skb->data - skb->head);
		skb->csum_rx_len = (uint16_t)d->payload_len;
	}
	u->handler(sk, skb, &from, u->handler_arg);
	/* The last touch of u: it may be freed from here on.  Only while a
	 * release waits is there a wakeup (and its lock). */
	__atomic_sub_fetch(&u->in_handler, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&udp_releasing, __ATOMIC_SEQ_CST) != 0)
		wake_up(&udp_handlers_done);
}

PACKET_RX void
udp_rcv(struct sk_buff *skb, const struct inet_rx_info *ri)
{
	struct udp_dgram d;
	struct socket *sk;
	struct udp_sock *u;
	enum net_drop why;
	bool queued = false, handler = false;
	uint32_t f;

	INET_INC(udp_in);
	why = udp_parse(skb->data, skb->len, ri->src, ri->dst, &d);
	if (why != NET_DROP_NONE) {
		inet_drop_skb(skb, why);
		return;
	}
	skb->len = (unsigned)(UDP_HLEN + d.payload_len);
	rcu_read_lock();
	sk = udp_lookup(ri, &d);
	race_point_spin("udp-lookup-found"); /* a close may start here */
	u = sk != NULL ? sk->proto_data : NULL;
	if (u != NULL && u->handler != NULL) {
		__atomic_add_fetch(&u->in_handler, 1, __ATOMIC_RELAXED);
		handler = true;
	} else if (sk != NULL) {
		f = spin_lock_irqsave(&udp_lock);
		if (sk->rxq_len < UDP_RXQ_MAX) {
			skb_set_dev(skb, NULL); /* queued, not in flight */
			list_add_tail(&skb->list, &sk->rxq);
			sk->rxq_len++;
			wake_up(&sk->wq);
			queued = true;
		}
		spin_unlock_irqrestore(&udp_lock, f);
	}
	rcu_read_unlock();
	if (handler)
		run_handler(sk, skb, &d, ri);
	else if (sk == NULL) {
		icmp_send_unreach(ri, ICMP_PORT_UNREACH);
		inet_drop_skb(skb, NET_DROP_UDP_NO_SOCKET);
	} else if (!queued) {
		inet_drop_skb(skb, NET_DROP_UDP_RCVBUF_FULL);
	}
}

static const struct inet_protocol udp_protocol = {
    .proto = IP_PROTO_UDP,
    .handler = udp_rcv,
};

void
udp_init(void)
{
	sock_register(&udp_proto_ops);
	inet_add_protocol(&udp_protocol);
}
