/*
 * SOCK_STREAM over the socket layer.  sock_create takes the module
 * reference (the owner rule) and calls tcp_sock_init, which fails with
 * -EPROTONOSUPPORT while the module is GOING (the shell refuses this
 * module's commands then too, so in practice the socket layer's own
 * try_module_get is what refuses).  A socket's pcb lives until
 * release, which hands it back to the core (tcp_close, the only call
 * that does; tcp_abort only resets it): the connection
 * finishes on its own from there, TIME_WAIT included, and the unload
 * path counts it (tcp_unload.c).
 *
 * sk->rxq_len is kept at the number of unread bytes (1 when only an EOF
 * or an error is waiting), so the socket layer's wait in sock_recvfrom
 * and `ss` both work unchanged.
 */
#include "net/tcp/ko/tcp_mod.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/tcp/resident/tcp_persist.h"
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

struct tcp_sk {
	struct tcp_user u; /* first: the pcb's user pointer */
	struct tcp_pcb *pcb;
	struct socket *sk;
	long connect_ms; /* connect gives up after this; < 0: SYN retries */
};

struct tcp_pcb *
tcp_sock_pcb(struct socket *sk)
{
	return ((struct tcp_sk *)sk->proto_data)->pcb;
}

void
tcp_sock_set_connect_timeout(struct socket *sk, long ms)
{
	((struct tcp_sk *)sk->proto_data)->connect_ms = ms;
}

/* Lock held. */
static void
update_rxq(struct tcp_sk *ts)
{
	unsigned ready = tcp_poll(ts->pcb);
	struct tcp_info info;

	tcp_get_info(ts->pcb, now_ms(), &info);
	if ((ready & (TCP_EV_READABLE | TCP_EV_ERROR)) == 0)
		ts->sk->rxq_len = 0;
	else
		ts->sk->rxq_len = info.rx_queued != 0 ? info.rx_queued : 1;
}

void
tcp_sock_event(struct tcp_pcb *pcb, struct tcp_user *u, unsigned ev)
{
	struct tcp_sk *ts = (struct tcp_sk *)u;

	(void)pcb;
	(void)ev;
	update_rxq(ts);
	sock_wake(ts->sk);
}

int
tcp_bind_ephemeral(struct tcp_pcb *pcb, uint32_t addr)
{
	int r = -EADDRINUSE;

	for (int i = 0; i < 16384 && r == -EADDRINUSE; i++)
		r = tcp_bind(pcb, addr, tcp_persist_next_port());
	return r;
}

static bool
pcb_ready(struct tcp_pcb *pcb, unsigned mask)
{
	uint32_t f = tcp_lock_irqsave();
	bool ready = (tcp_poll(pcb) & mask) != 0;

	spin_unlock_irqrestore(&tcp_lock, f);
	return ready;
}

/* Busy-poll first (net_busy_poll_until): during a transfer the next
 * batch usually comes within the budget, and the wait never sleeps. */
int
tcp_wait_pcb(struct tcp_pcb *pcb, unsigned mask, long ms)
{
	uint64_t until = net_busy_poll_until();

	for (;;) {
		uint32_t seen = tcp_events;

		if (pcb_ready(pcb, mask))
			return 0;
		if (until == 0 || !net_busy_wait(&tcp_events, seen, until))
			break;
	}
	return wait_event_interruptible_timeout(tcp_wq, pcb_ready(pcb, mask),
	                                        ms);
}

static int
tcp_sock_init(struct socket *sk)
{
	struct tcp_sk *ts = kzalloc(sizeof(*ts), TCP_TAG);
	uint32_t f;
	int r;

	if (ts == NULL)
		return -ENOMEM;
	f = tcp_lock_irqsave();
	r = tcp_new(tcp_stack, &ts->pcb);
	if (r == 0) {
		ts->u.kind = TCP_USER_SOCK;
		ts->sk = sk;
		ts->connect_ms = -1;
		tcp_set_user(ts->pcb, ts);
	}
	spin_unlock_irqrestore(&tcp_lock, f);
	if (r != 0) {
		kfree(ts);
		return r;
	}
	sk->proto_data = ts;
	return 0;
}

static void
tcp_sock_release(struct socket *sk)
{
	struct tcp_sk *ts = sk->proto_data;
	uint32_t f = tcp_lock_irqsave();

	tcp_set_user(ts->pcb, NULL); /* no events for a freed tcp_sk */
	tcp_close(&ts->pcb, now_ms());
	tcp_unlock_flush(f);
	kfree(ts);
	tcp_kick();
}

static int
tcp_sock_bind(struct socket *sk, const struct sockaddr_in4 *a)
{
	struct tcp_sk *ts = sk->proto_data;
	struct tcp_info info;
	uint32_t f;
	int r;

	if (a->addr != 0 && inet_addr_local(a->addr) == 0)
		return -EINVAL;
	f = tcp_lock_irqsave();
	r = a->port == 0 ? tcp_bind_ephemeral(ts->pcb, a->addr)
	                 : tcp_bind(ts->pcb, a->addr, a->port);
	tcp_get_info(ts->pcb, now_ms(), &info);
	spin_unlock_irqrestore(&tcp_lock, f);
	if (r == 0) {
		sk->local.addr = a->addr;
		sk->local.port = info.lport;
	}
	return r;
}

/* Blocks until established, refused, or timed out: by the SYN retries
 * (-ETIMEDOUT after about 63 s) or by the socket's connect timeout
 * (-ETIMEDOUT); Ctrl-C: -EINTR; -ENETDOWN at once when the route's
 * device is down.  On an error the pcb may still be in
 * SYN-SENT: the caller closes the socket, which drops it. */
static int
tcp_sock_connect(struct socket *sk, const struct sockaddr_in4 *a)
{
	struct tcp_sk *ts = sk->proto_data;
	struct dst_entry *dst;
	struct tcp_info info;
	uint32_t saddr, f;
	int r, w;

	if (a->addr == 0 || a->port == 0 || a->addr == IPV4_BROADCAST)
		return -EINVAL;
	r = ip_route_output(a->addr, sk->bound_ifindex, &dst);
	if (r != 0)
		return r;
	/* A route through a device that is down would swallow every SYN
	 * (ip_send answers ENETDOWN to the flusher, which has no one to
	 * tell): fail now, as Linux does with no route. */
	if (!netif_running(dst->dev))
		r = -ENETDOWN;
	saddr = sk->local.addr != 0 ? sk->local.addr : dst->saddr;
	dst_release(dst);
	if (r != 0)
		return r;
	f = tcp_lock_irqsave();
	r = 0;
	if (sk->local.port == 0)
		r = tcp_bind_ephemeral(ts->pcb, 0);
	if (r == 0)
		r = tcp_connect(ts->pcb, saddr, a->addr, a->port, now_ms());
	tcp_get_info(ts->pcb, now_ms(), &info);
	tcp_unlock_flush(f);
	if (r != 0)
		return r;
	tcp_kick();
	sk->local.addr = saddr;
	sk->local.port = info.lport;
	sk->remote = *a;
	w = tcp_wait_pcb(ts->pcb, TCP_EV_ERROR | TCP_EV_WRITABLE,
	                 ts->connect_ms);
	f = tcp_lock_irqsave();
	if (tcp_get_state(ts->pcb) >= TCP_ESTABLISHED)
		r = 0; /* made it, even if the wait timed out meanwhile */
	else
		r = tcp_get_error(ts->pcb) != 0 ? tcp_get_error(ts->pcb) : w;
	spin_unlock_irqrestore(&tcp_lock, f);
	if (r == 0)
		sk->connected = true;
	return r;
}

/* Sends everything (blocking, Ctrl-C-able) unless the socket is
 * non-blocking; returns what was queued or the error. */
static int
tcp_sock_sendto(struct socket *sk, const void *buf, size_t len,
                const struct sockaddr_in4 *to)
{
	struct tcp_sk *ts = sk->proto_data;
	size_t done = 0;
	long n;
	uint32_t f;
	int r;

	if (to != NULL && to->addr != 0)
		return -EINVAL; /* connected: no destination */
	if (len > 0x7fffffff)
		return -EINVAL;
	while (done < len) {
		f = tcp_lock_irqsave();
		n = tcp_send(ts->pcb, (const uint8_t *)buf + done, len - done,
		             now_ms());
		tcp_unlock_flush(f);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n != -EAGAIN || sk->nonblock)
			return done > 0 ? (int)done : (int)n;
		r = tcp_wait_pcb(ts->pcb, TCP_EV_WRITABLE | TCP_EV_ERROR, -1);
		if (r != 0)
			return done > 0 ? (int)done : r;
	}
	return (int)done;
}

static int
tcp_sock_recvfrom(struct socket *sk, void *buf, size_t len,
                  struct sockaddr_in4 *from)
{
	struct tcp_sk *ts = sk->proto_data;
	uint32_t f = tcp_lock_irqsave();
	long n = tcp_recv(ts->pcb, buf, len > 0x7fffffff ? 0x7fffffff : len,
	                  now_ms());

	update_rxq(ts);
	tcp_unlock_flush(f);
	if (from != NULL)
		*from = sk->remote;
	return (int)n;
}

/* Lock held. */
static void
fmt_timer(const struct tcp_info *in, char *buf, size_t size)
{
	if (in->timer == NULL || in->timer[0] == '\0')
		buf[0] = '\0';
	else if (in->state == TCP_TIME_WAIT)
		snprintf(buf, size, "timewait %u.%us left",
		         (uint32_t)in->timer_ms / 1000,
		         (uint32_t)in->timer_ms % 1000 / 100);
	else
		snprintf(buf, size, "%s %llu ms", in->timer, in->timer_ms);
}

static void
tcp_sock_show(struct socket *sk, char *buf, size_t size)
{
	struct tcp_sk *ts = sk->proto_data;
	struct tcp_info in;
	uint32_t f = tcp_lock_irqsave();

	tcp_get_info(ts->pcb, now_ms(), &in);
	spin_unlock_irqrestore(&tcp_lock, f);
	strlcpy(buf, tcp_state_name(in.state), size);
}

static void
show_one(void *arg, const struct tcp_pcb *pcb)
{
	const struct tcp_user *u = tcp_get_user(pcb);
	char l[16], r[16], la[24], ra[24], tm[40];
	struct tcp_info in;

	if (u != NULL && u->kind == TCP_USER_SOCK)
		return; /* listed by the socket layer above */
	tcp_get_info(pcb, *(uint64_t *)arg, &in);
	snprintf(la, sizeof(la), "%s:%u",
	         in.laddr ? inet_ntoa_r(in.laddr, l) : "*", in.lport);
	snprintf(ra, sizeof(ra), "%s:%u",
	         in.raddr ? inet_ntoa_r(in.raddr, r) : "*", in.rport);
	fmt_timer(&in, tm, sizeof(tm));
	kprintf("tcp   %-12s %-21s %-21s %-5u %s%s\n", tcp_state_name(in.state),
	        la, ra, in.rx_queued,
	        u != NULL
	            ? "tcpecho "
	            : (in.orphan && in.state != TCP_TIME_WAIT ? "orphan " : ""),
	        tm);
}

/* Every TCP connection, not only the ones with a struct socket. */
void
tcp_show_all(void)
{
	unsigned counts[TCP_NSTATES], total;
	uint64_t now = now_ms();
	uint32_t f = tcp_lock_irqsave();

	total = tcp_count_by_state(tcp_stack, counts);
	kprintf("tcp connections: %u (%u TIME_WAIT, msl %u ms)\n", total,
	        counts[TCP_TIME_WAIT], tcp_get_config(tcp_stack)->msl_ms);
	tcp_foreach(tcp_stack, show_one, &now);
	spin_unlock_irqrestore(&tcp_lock, f);
}

struct proto_ops tcp_proto_ops = {
    .name = "tcp",
    .type = SOCK_STREAM,
    .protocol = IP_PROTO_TCP,
    .owner = THIS_MODULE,
    .init = tcp_sock_init,
    .release = tcp_sock_release,
    .bind = tcp_sock_bind,
    .connect = tcp_sock_connect,
    .sendto = tcp_sock_sendto,
    .recvfrom = tcp_sock_recvfrom,
    .show = tcp_sock_show,
    .show_all = tcp_show_all,
};
