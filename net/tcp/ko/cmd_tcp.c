/*
 * tcp.ko's console commands (owned by the module: the shell holds a
 * reference while one runs, and none starts while rmmod is going on):
 *
 *   tcpconnect [-w|-r] [-t MS] ADDR PORT [MSG]   connect (giving up
 *       after MS, default 10 s), send MSG, read the echo, close (we close
 *       first: TIME_WAIT here); -w waits for the peer to close first;
 *       -r resets instead of closing
 *   tcplisten [-c CPU] PORT              accept one connection, receive
 *       to the end checking the test pattern, report throughput; the
 *       receive loop runs on CPU (default: a CPU other than net_rx's)
 *   tcpbulk ADDR PORT BYTES[K|M]         send the test pattern, half
 *       close, wait for the peer's close, report throughput
 *   tcpecho [PORT|stop]                  the echo service (tcp_echo.c)
 *
 * The test pattern is byte i = (i * 7) ^ (i >> 10), the same in the
 * host tools (tests/tcp/peer/), so both ends check every byte.
 */
#include "net/tcp/ko/tcp_mod.h"
#include "net/tcp/ko/pattern.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>

#define CHUNK               16384
#define CONNECT_TIMEOUT_MS  10000 /* default; the SYN retries take 63 s */
#define CONNECT_TIMEOUT_MAX 3600000u

static struct tcp_pattern pattern; /* set up by tcp_cmds_register */

static int
parse_port(const char *cmd, const char *s, uint16_t *port)
{
	unsigned long v;

	if (parse_ulong(s, &v) != 0 || v == 0 || v > 65535)
		return cmd_error(cmd, -EINVAL, "bad port '%s'", s);
	*port = (uint16_t)v;
	return 0;
}

static int
parse_addr(const char *cmd, const char *s, uint32_t *addr)
{
	if (inet_aton(s, addr) != 0 || *addr == 0 || *addr == IPV4_BROADCAST)
		return cmd_error(cmd, -EINVAL, "bad address '%s'", s);
	return 0;
}

static char *
fmt_ep(char *buf, size_t size, uint32_t a, uint16_t p)
{
	char b[16];

	snprintf(buf, size, "%s:%u", inet_ntoa_r(a, b), p);
	return buf;
}

/* Socket, connect (giving up after connect_ms), report; the error after
 * printing it. */
static int
connect_to(const char *cmd, uint32_t addr, uint16_t port, long connect_ms,
           long timeo, struct socket **out)
{
	struct sockaddr_in4 to = {addr, port};
	struct socket *sk;
	char l[24], r[24];
	uint32_t f;
	int e = sock_create(SOCK_STREAM, IP_PROTO_TCP, &sk), core_err = 0;

	*out = NULL;
	if (e != 0)
		return cmd_error(cmd, e, "cannot create a TCP socket");
	sk->rcvtimeo_ms = timeo;
	tcp_sock_set_connect_timeout(sk, connect_ms);
	e = sock_connect(sk, &to);
	if (e != 0) {
		f = tcp_lock_irqsave();
		core_err = tcp_get_error(tcp_sock_pcb(sk));
		spin_unlock_irqrestore(&tcp_lock, f);
	}
	if (e == -ETIMEDOUT && core_err == 0) /* our limit, not the SYNs' */
		cmd_error(cmd, e, "%s: no answer in %ld ms",
		          fmt_ep(r, sizeof(r), addr, port), connect_ms);
	else if (e != 0)
		cmd_error(cmd, e, "%s: connect failed",
		          fmt_ep(r, sizeof(r), addr, port));
	if (e != 0) {
		sock_close(sk);
		return e;
	}
	kprintf("%s: connected %s -> %s\n", cmd,
	        fmt_ep(l, sizeof(l), sk->local.addr, sk->local.port),
	        fmt_ep(r, sizeof(r), addr, port));
	*out = sk;
	return 0;
}

/* Reset instead of a graceful close; sock_close then gives the (now
 * CLOSED) pcb back to the core. */
static void
abort_close(struct socket *sk)
{
	uint32_t f = tcp_lock_irqsave();

	tcp_abort(tcp_sock_pcb(sk), now_ms());
	tcp_unlock_flush(f);
}

static int
cmd_tcpconnect(int argc, char **argv)
{
	bool wait_peer = false, reset = false;
	long connect_ms = CONNECT_TIMEOUT_MS;
	unsigned long v;
	const char *msg = "hello from modref";
	char buf[128];
	struct socket *sk;
	uint32_t addr = 0;
	uint16_t port = 0;
	size_t len, got = 0;
	struct args args;
	int i = 1, r;

	if (args_parse(&args, "tcpconnect", argc, argv, "wrt:", 2, 3) < 0)
		return -EINVAL;
	v = (unsigned long)connect_ms;
	if (args_flag_num(&args, 't', "MS", 1, CONNECT_TIMEOUT_MAX, &v) < 0)
		return -EINVAL;
	connect_ms = (long)v;
	argc = args.argc;
	argv = args.argv;
	wait_peer = args_has(&args, 'w');
	reset = args_has(&args, 'r');
	if (parse_addr("tcpconnect", argv[i], &addr) != 0 ||
	    parse_port("tcpconnect", argv[i + 1], &port) != 0)
		return -EINVAL;
	if (argc - i == 3)
		msg = argv[i + 2];
	len = strlen(msg);
	if (len == 0 || len >= sizeof(buf))
		return cmd_error("tcpconnect", -EINVAL, "message length %u",
		                 (unsigned)len);
	r = connect_to("tcpconnect", addr, port, connect_ms, 10000, &sk);
	if (r != 0)
		return r;
	r = sock_sendto(sk, msg, len, NULL);
	while (r >= 0 && got < len) {
		r = sock_recvfrom(sk, buf + got, len - got, NULL, 0);
		if (r == 0)
			r = -ECONNRESET; /* closed before echoing it all */
		if (r > 0)
			got += (size_t)r;
	}
	if (r >= 0) {
		buf[got] = '\0';
		kprintf("tcpconnect: echo: %s%s\n", buf,
		        memcmp(buf, msg, len) == 0 ? "" : " (MISMATCH)");
		/* A wrong echo is a failed exchange, not a success. */
		if (memcmp(buf, msg, len) != 0)
			r = -EIO;
	}
	while (r >= 0 && wait_peer) {
		r = sock_recvfrom(sk, buf, sizeof(buf), NULL, 0);
		if (r == 0) {
			kprintf("tcpconnect: peer closed\n");
			break;
		}
	}
	if (r < 0) {
		cmd_error("tcpconnect", r, "connection failed");
		sock_close(sk);
		return r;
	}
	if (reset)
		abort_close(sk);
	sock_close(sk);
	kprintf("tcpconnect: %s\n", reset ? "reset" : "closed");
	return 0;
}

/* 32-bit arithmetic: modules do not link libgcc's 64-bit division. */
static unsigned
kib_per_s(uint64_t bytes, uint64_t ms)
{
	uint32_t kib = (uint32_t)(bytes >> 10), t = ms != 0 ? (uint32_t)ms : 1;

	return kib < 4000000u ? kib * 1000u / t : kib / t * 1000u;
}

static int
parse_bytes(const char *s, uint64_t *out)
{
	char num[24];
	size_t n = strlen(s);
	unsigned long v, mul = 1;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	strlcpy(num, s, sizeof(num));
	if (num[n - 1] == 'K' || num[n - 1] == 'M') {
		mul = num[n - 1] == 'K' ? 1024 : 1024 * 1024;
		num[n - 1] = '\0';
	}
	if (parse_ulong(num, &v) != 0 || v == 0 || v > (1ul << 30) / mul)
		return -EINVAL;
	*out = (uint64_t)v * mul;
	return 0;
}

static int
cmd_tcpbulk(int argc, char **argv)
{
	uint64_t total, sent = 0, start;
	struct socket *sk;
	uint8_t *buf;
	uint32_t addr = 0, f;
	uint16_t port = 0;
	struct args args;
	int r = 0;

	if (args_parse(&args, "tcpbulk", argc, argv, "", 3, 3) < 0)
		return -EINVAL;
	argv = args.argv;
	if (parse_addr("tcpbulk", argv[1], &addr) != 0 ||
	    parse_port("tcpbulk", argv[2], &port) != 0)
		return -EINVAL;
	if (parse_bytes(argv[3], &total) != 0)
		return cmd_error("tcpbulk", -EINVAL, "bad size '%s'", argv[3]);
	buf = kmalloc(CHUNK, TCP_TAG);
	if (buf == NULL)
		return cmd_error("tcpbulk", -ENOMEM, "no buffer");
	r = connect_to("tcpbulk", addr, port, CONNECT_TIMEOUT_MS, 30000, &sk);
	if (r != 0) {
		kfree(buf);
		return r;
	}
	start = now_ms();
	while (sent < total && r >= 0) {
		size_t n =
		    total - sent < CHUNK ? (size_t)(total - sent) : CHUNK;
		tcp_pattern_fill(&pattern, buf, sent, n);
		r = sock_sendto(sk, buf, n, NULL);
		if (r > 0)
			sent += (uint64_t)r;
	}
	if (r >= 0) {
		f = tcp_lock_irqsave();
		r = tcp_shutdown(tcp_sock_pcb(sk), now_ms());
		tcp_unlock_flush(f);
	}
	while (r >= 0) { /* the peer closes once it has it all */
		r = sock_recvfrom(sk, buf, CHUNK, NULL, 0);
		if (r == 0)
			break;
	}
	if (r < 0) {
		cmd_error("tcpbulk", r, "after %llu of %llu bytes", sent,
		          total);
	} else {
		uint64_t ms = now_ms() - start;
		kprintf("tcpbulk: sent %llu bytes in %llu ms (%u KiB/s)\n",
		        sent, ms, kib_per_s(sent, ms));
	}
	sock_close(sk);
	kfree(buf);
	return r < 0 ? r : 0;
}

/* Accept one connection on sk (Ctrl-C-able); the child is ours. */
static int
accept_one(struct socket *sk, struct tcp_pcb **child)
{
	struct tcp_pcb *l = tcp_sock_pcb(sk);
	uint32_t f;
	int r;

	for (;;) {
		f = tcp_lock_irqsave();
		r = tcp_accept(l, child);
		spin_unlock_irqrestore(&tcp_lock, f);
		if (r != -EAGAIN)
			return r;
		r = tcp_wait_pcb(l, TCP_EV_ACCEPT | TCP_EV_ERROR, -1);
		if (r != 0)
			return r;
	}
}

/* Receive to the end, checking the pattern; bytes or -errno. */
static long
receive_all(struct tcp_pcb *c, uint8_t *buf, uint64_t *bad_at)
{
	uint64_t got = 0;
	uint32_t f;
	long n;

	*bad_at = UINT64_MAX;
	for (;;) {
		f = tcp_lock_irqsave();
		n = tcp_recv(c, buf, CHUNK, now_ms());
		tcp_unlock_flush(f);
		if (n == 0)
			return (long)got;
		if (n == -EAGAIN) {
			int r = tcp_wait_pcb(c, TCP_EV_READABLE | TCP_EV_ERROR,
			                     30000);
			if (r != 0)
				return r;
			continue;
		}
		if (n < 0)
			return n;
		if (*bad_at == UINT64_MAX) {
			size_t i =
			    tcp_pattern_check(&pattern, buf, got, (size_t)n);

			if (i != (size_t)n)
				*bad_at = got + i;
		}
		got += (uint64_t)n;
	}
}

struct rx_job {
	struct tcp_pcb *c;
	uint8_t *buf;
	uint64_t bad;
	long n;
};

static int
rx_job_run(void *arg)
{
	struct rx_job *j = arg;

	j->n = receive_all(j->c, j->buf, &j->bad);
	return 0; /* the result is j->n: nonzero is thread_run_on's own */
}

static int
cmd_tcplisten(int argc, char **argv)
{
	struct sockaddr_in4 a = {0, 0};
	struct tcp_pcb *child = NULL;
	struct tcp_info in;
	struct socket *sk;
	uint64_t start, bad;
	uint8_t *buf;
	char ep[24];
	uint32_t f;
	long n;
	struct args args;
	struct rx_job job;
	unsigned long cpu;
	int r, rx_cpu;

	if (args_parse(&args, "tcplisten", argc, argv, "c:", 1, 1) < 0)
		return -EINVAL;
	if (args_has(&args, 'c')) {
		if (args_flag_num(&args, 'c', "CPU", 0, MAX_CPUS - 1, &cpu) < 0)
			return -EINVAL;
		if (cpus[cpu].state != CPU_ONLINE)
			return cmd_error("tcplisten", -ENODEV,
			                 "cpu %lu is not online", cpu);
		rx_cpu = (int)cpu;
	} else {
		rx_cpu = net_rx_other_cpu(); /* overlap, not take turns */
	}
	argv = args.argv;
	if (parse_port("tcplisten", argv[1], &a.port) != 0)
		return -EINVAL;
	buf = kmalloc(CHUNK, TCP_TAG);
	if (buf == NULL)
		return cmd_error("tcplisten", -ENOMEM, "no buffer");
	r = sock_create(SOCK_STREAM, IP_PROTO_TCP, &sk);
	if (r != 0) {
		kfree(buf);
		return cmd_error("tcplisten", r, "cannot create a TCP socket");
	}
	r = sock_bind(sk, &a);
	if (r == 0) {
		f = tcp_lock_irqsave();
		r = tcp_listen(tcp_sock_pcb(sk), 1);
		spin_unlock_irqrestore(&tcp_lock, f);
	}
	if (r != 0) {
		cmd_error("tcplisten", r, "port %u", a.port);
		goto out;
	}
	kprintf("tcplisten: listening on port %u\n", a.port);
	r = accept_one(sk, &child);
	if (r != 0) {
		cmd_error("tcplisten", r, "no connection");
		goto out;
	}
	f = tcp_lock_irqsave();
	tcp_get_info(child, now_ms(), &in);
	spin_unlock_irqrestore(&tcp_lock, f);
	if (rx_cpu < 0)
		kprintf("tcplisten: connection from %s\n",
		        fmt_ep(ep, sizeof(ep), in.raddr, in.rport));
	else
		kprintf("tcplisten: connection from %s, receiving on cpu %d\n",
		        fmt_ep(ep, sizeof(ep), in.raddr, in.rport), rx_cpu);
	start = now_ms();
	job = (struct rx_job){child, buf, UINT64_MAX, 0};
	r = rx_cpu < 0 ? rx_job_run(&job)
	               : thread_run_on(rx_cpu, "tcplisten", rx_job_run, &job);
	if (r != 0) /* no thread on that CPU: it fails as a receive does */
		job.n = r;
	n = job.n;
	bad = job.bad;
	if (n < 0) {
		r = (int)n;
		cmd_error("tcplisten", r, "receive failed");
	} else {
		uint64_t ms = now_ms() - start;
		kprintf("tcplisten: received %ld bytes in %llu ms (%u KiB/s)",
		        n, ms, kib_per_s((uint64_t)n, ms));
		if (bad == UINT64_MAX)
			kprintf(", pattern ok\n");
		else
			kprintf(", pattern BAD at byte %llu\n", bad);
		r = bad == UINT64_MAX ? 0 : -EIO;
	}
	f = tcp_lock_irqsave();
	if (r != 0)
		tcp_abort(child, now_ms());
	tcp_close(&child, now_ms());
	tcp_unlock_flush(f);
out:
	sock_close(sk);
	kfree(buf);
	return r;
}

static int
cmd_tcpecho(int argc, char **argv)
{
	unsigned long served;
	uint16_t port = 7;
	struct args args;
	int r;

	if (args_parse(&args, "tcpecho", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	argc = args.argc;
	argv = args.argv;
	if (argc == 2 && strcmp(argv[1], "stop") == 0) {
		port = tcp_echo_port();
		if (tcp_echo_stop(&served) != 0)
			return cmd_error("tcpecho", -ENOENT, "not running");
		kprintf("tcpecho: port %u stopped after %lu connections\n",
		        port, served);
		return 0;
	}
	if (argc == 2 && parse_port("tcpecho", argv[1], &port) != 0)
		return -EINVAL;
	r = tcp_echo_start(port);
	if (r == -EALREADY)
		return cmd_error("tcpecho", r, "already running on port %u",
		                 tcp_echo_port());
	if (r != 0)
		return cmd_error("tcpecho", r, "port %u", port);
	kprintf("tcpecho: listening on port %u\n", port);
	return 0;
}

static struct command tcp_cmds[] = {
    {.name = "tcpconnect",
     .usage = "tcpconnect [-w|-r] [-t MS] ADDR PORT [MSG]",
     .help = "TCP: connect (-t: give up after MS, default 10000), echo "
             "MSG, close (-w peer first, -r reset)",
     .fn = cmd_tcpconnect},
    {.name = "tcplisten",
     .usage = "tcplisten [-c CPU] PORT",
     .help = "TCP: accept one connection, receive and check the pattern "
             "(on CPU; default: not net_rx's)",
     .fn = cmd_tcplisten},
    {.name = "tcpbulk",
     .usage = "tcpbulk ADDR PORT BYTES[K|M]",
     .help = "TCP: send the test pattern, report throughput",
     .fn = cmd_tcpbulk},
    {.name = "tcpecho",
     .usage = "tcpecho [PORT|stop]",
     .help = "TCP echo service (default port 7)",
     .fn = cmd_tcpecho},
};

void
tcp_cmds_register(void)
{
	tcp_pattern_init(&pattern);
	for (size_t i = 0; i < sizeof(tcp_cmds) / sizeof(tcp_cmds[0]); i++)
		command_register(&tcp_cmds[i]);
}

void
tcp_cmds_unregister(void)
{
	for (size_t i = 0; i < sizeof(tcp_cmds) / sizeof(tcp_cmds[0]); i++)
		command_unregister(&tcp_cmds[i]);
}
