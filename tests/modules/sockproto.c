/*
 * sockproto: a socket protocol in a module, for the owner rule of the
 * socket registry (docs/inet.md): SOCK_DGRAM protocol 253, whose ops
 * carry .owner = THIS_MODULE.  Each socket holds a reference on the
 * module, so rmmod waits for it, and while the module is GOING
 * sock_create fails with EPROTONOSUPPORT.  The sockets do nothing.
 */
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include "net/ipv4/inet.h"

#define SOCKPROTO_PROTOCOL 253

static int
sp_sendto(struct socket *sk, const void *buf, size_t len,
          const struct sockaddr_in4 *to)
{
	(void)sk;
	(void)buf;
	(void)to;
	return (int)len; /* a sink */
}

static int
sp_recvfrom(struct socket *sk, void *buf, size_t len, struct sockaddr_in4 *from)
{
	(void)sk;
	(void)buf;
	(void)len;
	(void)from;
	return -EAGAIN;
}

static struct proto_ops sockproto_ops = {
    .name = "sockproto",
    .type = SOCK_DGRAM,
    .protocol = SOCKPROTO_PROTOCOL,
    .owner = THIS_MODULE,
    .sendto = sp_sendto,
    .recvfrom = sp_recvfrom,
};

static int
sockproto_init(void)
{
	int r = sock_register(&sockproto_ops);

	if (r == 0)
		kprintf("sockproto: protocol %d registered\n",
		        SOCKPROTO_PROTOCOL);
	return r;
}
module_init(sockproto_init);

static void
sockproto_exit(void)
{
	sock_unregister(&sockproto_ops);
	kprintf("sockproto: protocol %d unregistered\n", SOCKPROTO_PROTOCOL);
}
module_exit(sockproto_exit);

MODULE_DESCRIPTION("a do-nothing socket protocol (owner rule tests)");
MODULE_LICENSE("GPL");
