/*
 * sockhold PROTO MS: open a SOCK_DGRAM socket of protocol PROTO, keep it
 * for MS ms in a thread, then try to open a second one (to show what
 * sock_create says while the protocol's module is being unloaded), and
 * close both.  A test tool for the socket registry's owner rule
 * (tests/scenarios/inet-sockproto.scn).
 */
#include "net/ipv4/inet.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

struct sockhold {
	struct socket *sk;
	int protocol;
	unsigned ms;
};

static void
sockhold_thread(void *arg)
{
	struct sockhold *h = arg;
	struct socket *sk2;
	int r;

	msleep(h->ms);
	r = sock_create(SOCK_DGRAM, h->protocol, &sk2);
	kprintf("sockhold: second protocol %d socket: %s\n", h->protocol,
	        r == 0 ? "created" : errno_name(r));
	if (r == 0)
		sock_close(sk2);
	sock_close(h->sk);
	kprintf("sockhold: protocol %d socket closed\n", h->protocol);
	kfree(h);
}

static int
cmd_sockhold(int argc, char **argv)
{
	unsigned long proto, ms;
	struct sockhold *h;
	struct args a;
	int r;

	if (args_parse(&a, "sockhold", argc, argv, "", 2, 2) < 0 ||
	    args_num(&a, "PROTO", a.pos[0], 0, 255, &proto) < 0 ||
	    args_num(&a, "MS", a.pos[1], 0, 600000, &ms) < 0)
		return -EINVAL;
	h = kzalloc(sizeof(*h), INET_TAG);
	if (h == NULL)
		return cmd_error("sockhold", -ENOMEM, "no memory");
	h->protocol = (int)proto;
	h->ms = (unsigned)ms;
	r = sock_create(SOCK_DGRAM, h->protocol, &h->sk);
	if (r != 0) {
		kfree(h);
		return cmd_error("sockhold", r, "protocol %lu: no socket",
		                 proto);
	}
	if (thread_create("sockhold", sockhold_thread, h, -1) == NULL) {
		sock_close(h->sk);
		kfree(h);
		return cmd_error("sockhold", -ENOMEM, "no thread");
	}
	kprintf("sockhold: protocol %lu socket open for %lu ms\n", proto, ms);
	return 0;
}
COMMAND(sockhold, "sockhold PROTO MS",
        "hold a SOCK_DGRAM socket of protocol PROTO for MS ms (tests)",
        cmd_sockhold);
