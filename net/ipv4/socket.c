/*
 * The in-kernel socket API over a protocol registry.
 *
 * A protocol registers a proto_ops table with an owner.  sock_create
 * takes try_module_get(ops->owner) before anything else and keeps it for
 * the socket's life (the owner rule): while the protocol's module is
 * GOING creation fails with -EPROTONOSUPPORT, and the module cannot
 * finish unloading while one of its sockets exists.
 *
 * A socket may be bound to a device (sock_bind_device), once: it then
 * holds the device ("socket") until sock_close or NETDEV_UNREGISTER,
 * whichever is first; after the latter every call on it fails with
 * -ENODEV.  Protocols key their ports by the bound device too
 * (bound_ifindex, which stays set after the device is gone).
 *
 * Receiving: the protocol queues skbs on sk->rxq and wakes sk->wq;
 * sock_recvfrom sleeps (Ctrl-C-able) up to rcvtimeo_ms unless the socket
 * is non-blocking or MSG_DONTWAIT is given (-EAGAIN).
 */
#include "net/ipv4/inet.h"
#include <kernel/locking/refcount.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/fault.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/console/printk.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

static DEFINE_MUTEX(proto_mutex);
static LIST_HEAD(protos);
DEFINE_SPINLOCK(sock_lock); /* the socket list, sk->dev */
static LIST_HEAD(sockets);

int
sock_register(struct proto_ops *ops)
{
	struct proto_ops *o;
	int r = 0;

	mutex_lock(&proto_mutex);
	list_for_each_entry(o, &protos, link) {
		if (o->type == ops->type && o->protocol == ops->protocol)
			r = -EEXIST;
	}
	if (r == 0)
		list_add_tail(&ops->link, &protos);
	mutex_unlock(&proto_mutex);
	return r;
}

void
sock_unregister(struct proto_ops *ops)
{
	mutex_lock(&proto_mutex);
	list_del_init(&ops->link);
	mutex_unlock(&proto_mutex);
}

int
sock_create(int type, int protocol, struct socket **out)
{
	struct proto_ops *o, *ops = NULL;
	struct socket *sk;
	uint32_t f;
	int r;
	if (fault_should_fail(FAULT_SOCK))
		return -ENOMEM;

	/* the socket first: its protocol's module reference is tracked
	 * in it (refs MODULE names each socket that holds one) */
	sk = kzalloc(sizeof(*sk), INET_TAG);
	if (sk == NULL)
		return -ENOMEM;
	mutex_lock(&proto_mutex);
	list_for_each_entry(o, &protos, link) {
		if (o->type == type &&
		    (protocol == 0 || o->protocol == protocol)) {
			ops = o;
			break;
		}
	}
	if (ops != NULL &&
	    !try_module_get_track(ops->owner, &sk->owner_tracker, "socket"))
		ops = NULL;
	mutex_unlock(&proto_mutex);
	if (ops == NULL) {
		kfree(sk);
		return -EPROTONOSUPPORT;
	}
	sk->ops = ops;
	refcount_set(&sk->refcnt, 1);
	sk->rcvtimeo_ms = -1;
	sk->created_ms = now_ms();
	waitq_init(&sk->wq, "socket");
	INIT_LIST_HEAD(&sk->rxq);
	r = ops->init != NULL ? ops->init(sk) : 0;
	if (r != 0)
		goto out_free;
	f = spin_lock_irqsave(&sock_lock);
	list_add_tail(&sk->link, &sockets);
	spin_unlock_irqrestore(&sock_lock, f);
	*out = sk;
	return 0;

out_free:
	module_put_track(ops->owner, &sk->owner_tracker);
	kfree(sk);
	return r;
}

static int
sock_check(struct socket *sk)
{
	if (sk->err != 0)
		return sk->err;
	return 0;
}

int
sock_bind(struct socket *sk, const struct sockaddr_in4 *a)
{
	int r = sock_check(sk);

	if (r != 0)
		return r;
	return sk->ops->bind != NULL ? sk->ops->bind(sk, a) : -ENOSYS;
}

int
sock_bind_device(struct socket *sk, const char *ifname)
{
	struct net_device *dev;
	uint32_t f;

	/* Once: a port bound on one device must not move to another (its
	 * uniqueness was checked for the first), even after it is gone. */
	if (sk->bound_ifindex != 0)
		return sk->err != 0 ? sk->err : -EBUSY;
	dev = dev_get_by_name(ifname, &sk->dev_tracker, "socket");
	if (dev == NULL)
		return -ENODEV;
	f = spin_lock_irqsave(&sock_lock);
	sk->dev = dev;
	sk->bound_ifindex = dev->ifindex;
	strlcpy(sk->bound_name, dev->name, sizeof(sk->bound_name));
	spin_unlock_irqrestore(&sock_lock, f);
	return 0;
}

int
sock_connect(struct socket *sk, const struct sockaddr_in4 *a)
{
	int r = sock_check(sk);

	if (r != 0)
		return r;
	return sk->ops->connect != NULL ? sk->ops->connect(sk, a) : -ENOSYS;
}

int
sock_sendto(struct socket *sk, const void *buf, size_t len,
            const struct sockaddr_in4 *to)
{
	int r = sock_check(sk);

	if (r != 0)
		return r;
	return sk->ops->sendto(sk, buf, len, to);
}

PACKET_TX int
sock_send_skb(struct socket *sk, struct sk_buff *skb,
              const struct sockaddr_in4 *to)
{
	int r = sock_check(sk);

	if (r == 0 && sk->ops->send_skb == NULL)
		r = -ENOSYS;
	if (r != 0) {
		kfree_skb(skb);
		return r;
	}
	return INDIRECT_CALL_1(sk->ops->send_skb, udp_send_skb, sk, skb, to);
}

void
sock_wake(struct socket *sk)
{
	wake_up(&sk->wq);
}

int
sock_recvfrom(struct socket *sk, void *buf, size_t len,
              struct sockaddr_in4 *from, int flags)
{
	bool block = !sk->nonblock && (flags & MSG_DONTWAIT) == 0;
	int r;

	for (;;) {
		r = sock_check(sk);
		if (r != 0)
			return r;
		r = sk->ops->recvfrom(sk, buf, len, from);
		if (r != -EAGAIN || !block)
			return r;
		r = wait_event_interruptible_timeout(
		    sk->wq, sk->rxq_len != 0 || sk->err != 0, sk->rcvtimeo_ms);
		if (r != 0)
			return r;
	}
}

int
sock_set_rx_handler(struct socket *sk, sock_rx_handler fn, void *arg)
{
	int r = sock_check(sk);

	if (r != 0)
		return r;
	if (sk->ops->set_rx_handler == NULL)
		return -ENOSYS;
	return sk->ops->set_rx_handler(sk, fn, arg);
}

void
sock_close(struct socket *sk)
{
	const struct proto_ops *ops = sk->ops;
	struct net_device *dev;
	uint32_t f;

	f = spin_lock_irqsave(&sock_lock);
	list_del_init(&sk->link);
	dev = sk->dev;
	sk->dev = NULL;
	spin_unlock_irqrestore(&sock_lock, f);
	if (ops->release != NULL)
		ops->release(sk);
	while (!list_empty(&sk->rxq)) {
		struct sk_buff *skb =
		    list_entry(sk->rxq.next, struct sk_buff, list);
		list_del_init(&skb->list);
		kfree_skb(skb);
	}
	if (dev != NULL)
		dev_put_track(dev, &sk->dev_tracker);
	dst_release(sk->dst);
	/* the tracker is in sk: put before the free (what follows is
	 * kernel code and memory, so the module may go at the put) */
	module_put_track(ops->owner, &sk->owner_tracker);
	kfree(sk);
}

void
sock_ifdown(struct net_device *dev)
{
	struct socket *sk;
	uint32_t f = spin_lock_irqsave(&sock_lock);

	list_for_each_entry(sk, &sockets, link) {
		if (sk->dev != dev)
			continue;
		dev_put_track(dev, &sk->dev_tracker);
		sk->dev = NULL;
		sk->err = -ENODEV;
		if (sk->ops->dev_gone != NULL)
			sk->ops->dev_gone(sk);
		wake_up(&sk->wq);
	}
	spin_unlock_irqrestore(&sock_lock, f);
}

size_t
sock_count_dev(int ifindex)
{
	struct socket *sk;
	size_t n = 0;
	uint32_t f = spin_lock_irqsave(&sock_lock);

	list_for_each_entry(sk, &sockets, link)
		if (sk->dev != NULL && sk->bound_ifindex == ifindex)
			n++;
	spin_unlock_irqrestore(&sock_lock, f);
	return n;
}

static void
fmt_addr(char *buf, size_t size, const struct sockaddr_in4 *a)
{
	char b[16];

	if (a->addr == 0 && a->port == 0)
		snprintf(buf, size, "*:*");
	else if (a->addr == 0)
		snprintf(buf, size, "*:%u", a->port);
	else
		snprintf(buf, size, "%s:%u", inet_ntoa_r(a->addr, b), a->port);
}

void
sock_show_all(void)
{
	struct proto_ops *o;
	struct socket *sk;
	char l[24], r[24], st[48];
	uint64_t now = now_ms();
	unsigned n = 0;
	uint32_t f = spin_lock_irqsave(&sock_lock);

	kprintf("proto state    local                 remote                "
	        "rxq  dev    age\n");
	list_for_each_entry(sk, &sockets, link) {
		fmt_addr(l, sizeof(l), &sk->local);
		fmt_addr(r, sizeof(r), &sk->remote);
		if (sk->ops->show != NULL)
			sk->ops->show(sk, st, sizeof(st));
		else
			strlcpy(st, "-", sizeof(st));
		kprintf("%-5s %-8s %-21s %-21s %-4u %-6s %llus%s\n",
		        sk->ops->name, st, l, r, sk->rxq_len,
		        sk->bound_ifindex == 0 ? "*"
		        : sk->dev != NULL      ? sk->bound_name
		                               : "(gone)",
		        (now - sk->created_ms) / 1000,
		        sk->err != 0 ? " error" : "");
		n++;
	}
	spin_unlock_irqrestore(&sock_lock, f);
	kprintf("%u sockets\n", n);
	mutex_lock(&proto_mutex);
	list_for_each_entry(o, &protos, link) {
		if (o->show_all != NULL && try_module_get(o->owner)) {
			o->show_all();
			module_put(o->owner);
		}
	}
	mutex_unlock(&proto_mutex);
}

void
socket_init(void)
{
}

/* The socket registry: every socket has its ops and a reference, and a
 * socket bound to a device that still holds it points at that device. */
static const char *
sockets_sane(char *buf, size_t size)
{
	struct socket *sk;
	const char *why = NULL;
	uint32_t f = spin_lock_irqsave(&sock_lock);

	list_for_each_entry(sk, &sockets, link) {
		if (sk->ops == NULL || refcount_read(&sk->refcnt) < 1 ||
		    (sk->dev != NULL &&
		     sk->dev->ifindex != sk->bound_ifindex)) {
			snprintf(buf, size,
			         "socket %p: ops %p, refcnt %d, dev %p bound "
			         "to ifindex %d",
			         (void *)sk, (const void *)sk->ops,
			         refcount_read(&sk->refcnt), (void *)sk->dev,
			         sk->bound_ifindex);
			why = buf;
			break;
		}
	}
	spin_unlock_irqrestore(&sock_lock, f);
	return why;
}
INVARIANT(sockets, sockets_sane);
