/*
 * UDP and DHCP console commands, on the in-kernel socket API:
 *
 *   udpecho [-t] [-b DEV] [PORT]
 *                             an echo service (default port 7): every
 *                             datagram goes back to its sender unchanged,
 *                             answered in the receive path by the
 *                             socket's receive handler; with -t by a
 *                             thread in recvfrom/sendto instead (the
 *                             socket queue and its wakeup, measured
 *                             against the handler by bench-boot -u)
 *   udpecho stop [PORT]       stop it (all of them without PORT)
 *   udpsend [-b DEV] [-w MS] [-p SPORT] ADDR PORT TEXT|-n SIZE
 *                             send one datagram (TEXT, or SIZE bytes of
 *                             the pattern i & 0xff); with -w wait MS for
 *                             one reply and print it
 *   dhcp [DEV]                get a lease on DEV (or list the clients)
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>

#define ECHO_BUF 2048

struct echo_srv {
	struct list_head link;
	struct socket *sk;
	uint16_t port;
	bool threaded;      /* -t: recvfrom/sendto, else a receive handler */
	volatile bool stop; /* echo_lock */
	bool closing;       /* echo_lock: sk is being closed, do not wake it */
	uint32_t echoed;    /* atomic: handlers run on several CPUs */
};

static DEFINE_SPINLOCK(echo_lock);
static LIST_HEAD(echo_srvs);
static DEFINE_WAITQ(echo_wq); /* a service thread ended */

static int
echo_count(unsigned long port)
{
	struct echo_srv *s;
	int n = 0;
	uint32_t f = spin_lock_irqsave(&echo_lock);

	list_for_each_entry(s, &echo_srvs, link)
		if (port == 0 || s->port == port)
			n++;
	spin_unlock_irqrestore(&echo_lock, f);
	return n;
}

/* In the receive path (net_rx), for the handler-driven service: the
 * datagram goes back in its own skb, as lwIP's raw-API echo does. */
PACKET_TX static void
echo_handler(struct socket *sk, struct sk_buff *skb,
             const struct sockaddr_in4 *from, void *arg)
{
	struct echo_srv *s = arg;

	if (sock_send_skb(sk, skb, from) >= 0)
		__atomic_add_fetch(&s->echoed, 1, __ATOMIC_RELAXED);
}

static void
echo_recv_loop(struct echo_srv *s)
{
	uint8_t *buf = kmalloc(ECHO_BUF, INET_TAG);

	while (buf != NULL && !s->stop) {
		struct sockaddr_in4 from;
		int n = sock_recvfrom(s->sk, buf, ECHO_BUF, &from, 0);
		if (n == -ENODEV)
			break;
		if (n < 0)
			continue;
		if (sock_sendto(s->sk, buf, (size_t)n, &from) >= 0)
			__atomic_add_fetch(&s->echoed, 1, __ATOMIC_RELAXED);
	}
	kfree(buf);
}

/* The service's life: the datagrams themselves go through echo_handler
 * unless -t; this thread ends the service on `udpecho stop` or when the
 * bound device goes (the socket's -ENODEV, as the -t loop sees it). */
static void
echo_thread(void *arg)
{
	struct echo_srv *s = arg;
	uint32_t f;

	if (s->threaded)
		echo_recv_loop(s);
	else
		wait_event(s->sk->wq, s->stop || s->sk->err == -ENODEV);
	f = spin_lock_irqsave(&echo_lock);
	s->closing = true;
	spin_unlock_irqrestore(&echo_lock, f);
	kprintf("udpecho: port %u stopped after %u datagrams\n", s->port,
	        __atomic_load_n(&s->echoed, __ATOMIC_RELAXED));
	sock_close(s->sk); /* waits for running handlers */
	f = spin_lock_irqsave(&echo_lock);
	list_del_init(&s->link);
	spin_unlock_irqrestore(&echo_lock, f);
	kfree(s);
	wake_up(&echo_wq);
}

static int
echo_stop(unsigned long port)
{
	struct echo_srv *s;
	int n = 0;
	uint32_t f = spin_lock_irqsave(&echo_lock);

	list_for_each_entry(s, &echo_srvs, link) {
		if (port == 0 || s->port == port) {
			s->stop = true;
			if (!s->closing)
				sock_wake(s->sk);
			n++;
		}
	}
	spin_unlock_irqrestore(&echo_lock, f);
	if (n == 0)
		return cmd_error("udpecho", -ESRCH, "no echo service%s",
		                 port != 0 ? " on that port" : "");
	/* A -t thread notices within its 200 ms receive timeout. */
	wait_event_timeout(echo_wq, echo_count(port) == 0, 2000);
	return 0;
}

static int
cmd_udpecho(int argc, char **argv)
{
	struct sockaddr_in4 a = {0, 7};
	const char *dev = NULL;
	unsigned long port = 7;
	struct echo_srv *s;
	struct args args;
	uint32_t f;
	int r;

	if (args_parse(&args, "udpecho", argc, argv, "b:t", 0, 2) < 0)
		return -EINVAL;
	argc = args.argc;
	argv = args.argv;
	dev = args_val(&args, 'b');
	if (argc >= 2 && strcmp(argv[1], "stop") == 0) {
		port = 0;
		if (dev != NULL || args_has(&args, 't'))
			return args_refuse(&args, "stop takes no -b or -t");
		if (argc == 3 &&
		    args_num(&args, "PORT", argv[2], 1, 65535, &port) < 0)
			return -EINVAL;
		return echo_stop(port);
	}
	if (argc == 3)
		return args_refuse(&args, "unexpected argument '%s'", argv[2]);
	if (argc == 2 && args_num(&args, "PORT", argv[1], 1, 65535, &port) < 0)
		return -EINVAL;
	s = kzalloc(sizeof(*s), INET_TAG);
	if (s == NULL)
		return cmd_error("udpecho", -ENOMEM, "no memory");
	s->port = (uint16_t)port;
	s->threaded = args_has(&args, 't');
	a.port = s->port;
	r = sock_create(SOCK_DGRAM, IP_PROTO_UDP, &s->sk);
	if (r != 0) {
		kfree(s);
		return cmd_error("udpecho", r, "cannot create a UDP socket");
	}
	s->sk->rcvtimeo_ms = 200;
	if (!s->threaded) {
		r = sock_set_rx_handler(s->sk, echo_handler, s);
		if (r != 0) {
			cmd_error("udpecho", r, "no receive handler");
			goto fail;
		}
	}
	r = dev != NULL ? sock_bind_device(s->sk, dev) : 0;
	if (r != 0) {
		cmd_error("udpecho", r, "no device %s", dev);
		goto fail;
	}
	r = sock_bind(s->sk, &a);
	if (r != 0) {
		cmd_error("udpecho", r, "port %lu: %s", port,
		          r == -EADDRINUSE ? "in use" : "cannot bind");
		goto fail;
	}
	f = spin_lock_irqsave(&echo_lock);
	list_add_tail(&s->link, &echo_srvs);
	spin_unlock_irqrestore(&echo_lock, f);
	if (thread_create("udpecho", echo_thread, s, -1) == NULL) {
		f = spin_lock_irqsave(&echo_lock);
		list_del_init(&s->link);
		spin_unlock_irqrestore(&echo_lock, f);
		r = cmd_error("udpecho", -ENOMEM, "cannot start a thread");
		goto fail;
	}
	kprintf("udpecho: listening on port %lu%s%s\n", port,
	        dev != NULL ? " dev " : "", dev != NULL ? dev : "");
	return 0;
fail:
	sock_close(s->sk);
	kfree(s);
	return r;
}
COMMAND(udpecho, "udpecho [-t] [-b DEV] [PORT] | udpecho stop [PORT]",
        "UDP echo service (default port 7)", cmd_udpecho);

static void
print_reply(const uint8_t *buf, int n, const struct sockaddr_in4 *from)
{
	char b[16];
	bool text = true;

	for (int i = 0; i < n; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			text = false;
	kprintf("udpsend: reply of %d bytes from %s:%u", n,
	        inet_ntoa_r(from->addr, b), from->port);
	if (text && n <= 200)
		kprintf(": %.*s", n, (const char *)buf);
	kprintf("\n");
}

static int
cmd_udpsend(int argc, char **argv)
{
	unsigned long wait = 0, sport = 0, dport, size = 0;
	struct sockaddr_in4 to, from, local = {0, 0};
	const char *dev = NULL, *text = NULL;
	struct socket *sk;
	uint8_t *buf;
	struct args a;
	int i = 1, r = 0, n;

	if (args_parse(&a, "udpsend", argc, argv, "b:w:p:n:", 2, 3) < 0 ||
	    args_flag_num(&a, 'w', "MS", 0, 3600000, &wait) < 0 ||
	    args_flag_num(&a, 'p', "SPORT", 0, 65535, &sport) < 0 ||
	    args_flag_num(&a, 'n', "SIZE", 0, ETH_MAX_MTU, &size) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	dev = args_val(&a, 'b');
	if (args_has(&a, 'n') == (argc == 4))
		return args_refuse(&a, "give TEXT or -n SIZE");
	if (argc == 4) {
		text = argv[3];
		size = strlen(text);
	}
	if (inet_aton(argv[i], &to.addr) != 0)
		return cmd_error("udpsend", -EINVAL, "bad address '%s'",
		                 argv[i]);
	if (parse_ulong(argv[i + 1], &dport) != 0 || dport == 0 ||
	    dport > 65535)
		return cmd_error("udpsend", -EINVAL, "bad port");
	to.port = (uint16_t)dport;
	local.port = (uint16_t)sport;
	buf = kmalloc(size > ECHO_BUF ? size : ECHO_BUF, INET_TAG);
	if (buf == NULL)
		return cmd_error("udpsend", -ENOMEM, "no memory");
	for (unsigned long k = 0; k < size; k++)
		buf[k] = text != NULL ? (uint8_t)text[k] : (uint8_t)k;
	r = sock_create(SOCK_DGRAM, IP_PROTO_UDP, &sk);
	if (r != 0) {
		kfree(buf);
		return cmd_error("udpsend", r, "cannot create a UDP socket");
	}
	r = dev != NULL ? sock_bind_device(sk, dev) : 0;
	if (r == 0 && sport != 0)
		r = sock_bind(sk, &local);
	if (r == 0)
		r = sock_sendto(sk, buf, size, &to);
	if (r < 0) {
		cmd_error("udpsend", r, "cannot send to %s:%lu", argv[i],
		          dport);
		goto out;
	}
	kprintf("udpsend: sent %lu bytes from port %u\n", size, sk->local.port);
	r = 0;
	if (wait != 0) {
		sk->rcvtimeo_ms = (long)wait;
		n = sock_recvfrom(sk, buf, ECHO_BUF, &from, 0);
		if (n < 0)
			r = cmd_error("udpsend", n, "no reply within %lu ms",
			              wait);
		else
			print_reply(buf, n, &from);
	}
out:
	sock_close(sk);
	kfree(buf);
	return r < 0 ? r : 0;
}
COMMAND(udpsend,
        "udpsend [-b DEV] [-w MS] [-p SPORT] ADDR PORT TEXT | udpsend [..] "
        "-n SIZE ADDR PORT",
        "send one UDP datagram (and wait for a reply)", cmd_udpsend);

static int
cmd_dhcp(int argc, char **argv)
{
	char msg[96];
	struct args a;
	int r;

	if (args_parse(&a, "dhcp", argc, argv, "x", 0, 1) < 0)
		return -EINVAL;
	if (a.npos == 0 && args_has(&a, 'x'))
		return cmd_refuse("dhcp", "-x needs a device");
	if (a.npos == 0) {
		dhcp_show();
		return 0;
	}
	r = args_has(&a, 'x') ? dhcp_stop(a.pos[0], msg, sizeof(msg))
	                      : dhcp_start(a.pos[0], 30000, msg, sizeof(msg));
	if (r != 0)
		return cmd_error("dhcp", r, "%s", msg);
	kprintf("dhcp: %s\n",
	        msg); /* "DEV: address A/N": one line either way */
	return 0;
}
COMMAND(dhcp, "dhcp [-x] [DEV]",
        "get an address from a DHCP server (-x: stop DEV's client; no DEV: "
        "list clients)",
        cmd_dhcp);
