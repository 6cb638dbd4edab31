/*
 * sockprobe tcp|udp|PROTO PERIOD_MS DURATION_MS: in a background thread,
 * try to create a socket of that protocol every PERIOD_MS for DURATION_MS
 * and print a line each time the answer changes ("sockprobe: tcp: ok",
 * "sockprobe: tcp: EPROTONOSUPPORT").  Made for watching the owner rule
 * while the shell is busy with something else, e.g. that new TCP sockets
 * are refused while `rmmod tcp` waits and work again after Ctrl-C
 * (tests/scenarios/tcp-unload.scn).
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

struct sockprobe {
	char name[16];
	int type, protocol;
	unsigned period_ms, duration_ms;
	int last; /* the answer last printed */
};

/* One attempt: 0 if a socket could be created (and closed again). */
static int
probe_once(const struct sockprobe *p)
{
	struct socket *sk;
	int r = sock_create(p->type, p->protocol, &sk);

	if (r == 0)
		sock_close(sk);
	return r;
}

static void
sockprobe_thread(void *arg)
{
	struct sockprobe *p = arg;
	uint64_t end = now_ms() + p->duration_ms;

	while (now_ms() < end) {
		int r;

		msleep(p->period_ms);
		r = probe_once(p);
		if (r != p->last)
			kprintf("sockprobe: %s: %s\n", p->name,
			        r == 0 ? "ok" : errno_name(r));
		p->last = r;
	}
	kprintf("sockprobe: %s: done\n", p->name);
	kfree(p);
}

static int
cmd_sockprobe(int argc, char **argv)
{
	unsigned long proto, period, duration;
	struct sockprobe *p;
	struct args a;

	if (args_parse(&a, "sockprobe", argc, argv, "", 3, 3) < 0 ||
	    args_num(&a, "PERIOD_MS", a.pos[1], 1, 10000, &period) < 0 ||
	    args_num(&a, "DURATION_MS", a.pos[2], 0, 600000, &duration) < 0)
		return -EINVAL;
	argv = a.argv;
	p = kzalloc(sizeof(*p), INET_TAG);
	if (p == NULL)
		return cmd_error("sockprobe", -ENOMEM, "no memory");
	if (strcmp(argv[1], "tcp") == 0) {
		p->type = SOCK_STREAM;
		p->protocol = IP_PROTO_TCP;
	} else if (strcmp(argv[1], "udp") == 0) {
		p->type = SOCK_DGRAM;
		p->protocol = IP_PROTO_UDP;
	} else if (parse_ulong(argv[1], &proto) == 0 && proto <= 255) {
		p->type = SOCK_DGRAM;
		p->protocol = (int)proto;
	} else {
		kfree(p);
		return cmd_error("sockprobe", -EINVAL,
		                 "'%s' is not tcp, udp or a protocol number",
		                 argv[1]);
	}
	strlcpy(p->name, argv[1], sizeof(p->name));
	p->period_ms = (unsigned)period;
	p->duration_ms = (unsigned)duration;
	/* The first answer is printed here, before the prompt returns. */
	p->last = probe_once(p);
	kprintf("sockprobe: %s: %s\n", p->name,
	        p->last == 0 ? "ok" : errno_name(p->last));
	if (thread_create("sockprobe", sockprobe_thread, p, -1) == NULL) {
		kfree(p);
		return cmd_error("sockprobe", -ENOMEM, "no thread");
	}
	return 0;
}
COMMAND(sockprobe, "sockprobe tcp|udp|PROTO PERIOD_MS DURATION_MS",
        "watch whether sockets of a protocol can be created (tests)",
        cmd_sockprobe);
