/*
 * The DHCP client: one kernel thread per device ("dhcp-eth0") drives the
 * pure state machine in dhcp_fsm.c with a UDP socket bound to port 68
 * and to the device.  The socket holds the device ("socket"); when the
 * device is unregistered the socket fails with ENODEV, the thread removes
 * the lease it configured (already gone with the device) and exits, so a
 * DHCP client never keeps a driver module from unloading.
 *
 * Lease events: BOUND configures the address, its connected route and a
 * default route via the router (at the lowest free metric, so each NIC
 * can have one); LOST removes them.  A failed `dhcp DEV` leaves the
 * link as it was (down if it brought it up).  `dhcp DEV` starts the
 * client (bringing the device up first) and waits for the first lease;
 * `dhcp -x DEV` stops it: the lease's address and routes go (no RELEASE
 * is sent, as dhclient -x), the link stays as it is.
 */
#include "net/ipv4/inet.h"
#include "net/apps/dhcp_fsm.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/locking/refcount.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/locking/mutex.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>

#define DHCP_BUF        576 /* RFC 2131: the least a client must accept */
#define DHCP_MAX_METRIC 16  /* default routes tried: one per NIC */

struct dhcp_if {
	struct list_head link;
	char name[IFNAMSIZ];
	int ifindex;
	struct dhcp_client c;
	struct socket *sk;
	refcount_t refcnt; /* the thread and each waiting command */
	volatile bool bound, done;
	volatile bool stop;     /* `dhcp -x`: the thread gives up the lease */
	volatile int apply_err; /* the last lease could not be set */
	struct waitq wq;        /* commands wait for bound/done */
	uint32_t addr, plen, router, metric;
	uint8_t out[DHCP_BUILD_LEN];
	uint8_t in[DHCP_BUF];
};

static DEFINE_SPINLOCK(dhcp_lock);
static LIST_HEAD(dhcp_ifs);

static void
dhcp_put(struct dhcp_if *d)
{
	uint32_t f = spin_lock_irqsave(&dhcp_lock);
	bool last = refcount_dec_and_test(&d->refcnt, "dhcp client");

	if (last)
		list_del_init(&d->link);
	spin_unlock_irqrestore(&dhcp_lock, f);
	if (last)
		kfree(d);
}

static void
lease_remove(struct dhcp_if *d)
{
	if (d->addr == 0)
		return;
	if (d->router != 0)
		inet_route_del(0, 0, d->ifindex); /* ours: the lowest there */
	inet_addr_del(d->ifindex, d->addr);
	d->addr = 0;
}

/* A default route via the router, at the lowest metric no other
 * default route uses: the first lease keeps metric 0, each further
 * NIC's comes after it (IPv4 refuses two equal default routes). */
static void
add_default_route(struct dhcp_if *d)
{
	int r = -EEXIST;

	for (d->metric = 0; d->metric < DHCP_MAX_METRIC; d->metric++) {
		r = inet_route_add(0, 0, d->router, d->ifindex, d->metric);
		if (r != -EEXIST)
			break;
	}
	if (r != 0) {
		kprintf("dhcp: %s: no default route via the router: %s\n",
		        d->name, errno_name(r));
		d->router = 0; /* none of ours to remove */
	}
}

static int
lease_apply(struct dhcp_if *d)
{
	const struct dhcp_lease *l = &d->c.lease;
	struct net_device *dev;
	struct ref_tracker t;
	char a[16], g[16];
	int plen = l->mask != 0 ? ipv4_mask_len(l->mask) : 24;
	int r;

	lease_remove(d);
	dev = dev_get_by_index(d->ifindex, &t, "dhcp");
	if (dev == NULL)
		return -ENODEV;
	if (plen <= 0)
		plen = 24;
	r = inet_addr_add(dev, l->addr, (unsigned)plen);
	dev_put_track(dev, &t);
	if (r != 0) {
		kprintf("dhcp: %s: cannot use %s/%d: %s\n", d->name,
		        inet_ntoa_r(l->addr, a), plen, errno_name(r));
		return r;
	}
	d->addr = l->addr;
	d->plen = (uint32_t)plen;
	d->router = l->router;
	if (l->router != 0)
		add_default_route(d);
	kprintf("dhcp: %s: bound %s/%d router %s lease %us\n", d->name,
	        inet_ntoa_r(l->addr, a), plen, inet_ntoa_r(l->router, g),
	        l->lease_s);
	return 0;
}

static void
handle_out(struct dhcp_if *d, const struct dhcp_out *o)
{
	struct sockaddr_in4 to = {o->dst, DHCP_SERVER_PORT};

	if (o->events & DHCP_EV_LOST) {
		if (!d->stop) /* else the stopping command says so */
			kprintf("dhcp: %s: lease lost\n", d->name);
		lease_remove(d);
	}
	if (o->events & DHCP_EV_NAK)
		kprintf("dhcp: %s: NAK from the server\n", d->name);
	if (o->events & DHCP_EV_BOUND) {
		d->apply_err = lease_apply(d);
		d->bound = true;
		wake_up(&d->wq);
	}
	if (o->len != 0)
		sock_sendto(d->sk, d->out, o->len, &to);
}

static void
dhcp_thread(void *arg)
{
	struct dhcp_if *d = arg;
	struct dhcp_out o;
	int n;

	dhcp_client_start(&d->c, &dhcp_default_params, now_ms(), d->out,
	                  sizeof(d->out), &o);
	handle_out(d, &o);
	for (;;) {
		struct sockaddr_in4 from;
		uint64_t now = now_ms();

		if (d->c.timer != 0 && now >= d->c.timer) {
			dhcp_client_timer(&d->c, &dhcp_default_params, now,
			                  d->out, sizeof(d->out), &o);
			handle_out(d, &o);
		}
		if (d->stop) {
			dhcp_client_stop(&d->c, &o);
			handle_out(d, &o); /* LOST: its address and routes */
			break;
		}
		n = sock_recvfrom(d->sk, d->in, sizeof(d->in), &from, 0);
		if (n == -ENODEV || d->done)
			break;
		if (n < 0)
			continue;
		if (from.port != DHCP_SERVER_PORT) {
			inet_drop(NET_DROP_DHCP_NOT_FOR_US);
			continue;
		}
		enum net_drop why = dhcp_client_input(
		    &d->c, &dhcp_default_params, now_ms(), d->in, (size_t)n,
		    d->out, sizeof(d->out), &o);
		if (why != NET_DROP_NONE)
			inet_drop(why);
		else
			handle_out(d, &o);
	}
	if (!d->stop) {
		kprintf("dhcp: %s: device gone, client stopped\n", d->name);
		d->addr = 0; /* went with the device */
	}
	sock_close(d->sk);
	d->done = true;
	wake_up(&d->wq);
	dhcp_put(d);
}

static struct dhcp_if *
dhcp_find_get(int ifindex)
{
	struct dhcp_if *d;
	uint32_t f = spin_lock_irqsave(&dhcp_lock);

	list_for_each_entry(d, &dhcp_ifs, link) {
		if (d->ifindex == ifindex && !d->done && !d->stop) {
			refcount_inc(&d->refcnt, "dhcp client");
			spin_unlock_irqrestore(&dhcp_lock, f);
			return d;
		}
	}
	spin_unlock_irqrestore(&dhcp_lock, f);
	return NULL;
}

static int
dhcp_create(struct net_device *dev, struct dhcp_if **out, char *msg,
            size_t size)
{
	struct sockaddr_in4 any = {0, DHCP_CLIENT_PORT};
	struct dhcp_if *d = kzalloc(sizeof(*d), INET_TAG);
	uint32_t f;
	int r;

	if (d == NULL) {
		snprintf(msg, size, "%s: no memory for a client", dev->name);
		return -ENOMEM;
	}
	strlcpy(d->name, dev->name, sizeof(d->name));
	d->ifindex = dev->ifindex;
	refcount_set(&d->refcnt, 2); /* the thread and our caller */
	waitq_init(&d->wq, "dhcp");
	dhcp_client_init(&d->c, dev->dev_addr, (uint32_t)rdtsc());
	r = sock_create(SOCK_DGRAM, IP_PROTO_UDP, &d->sk);
	if (r == 0)
		r = sock_bind_device(d->sk, dev->name);
	if (r == 0)
		r = sock_bind(d->sk, &any);
	if (r != 0) {
		snprintf(msg, size, "%s: cannot open port 68", dev->name);
		goto fail;
	}
	d->sk->rcvtimeo_ms = 100;
	f = spin_lock_irqsave(&dhcp_lock);
	list_add_tail(&d->link, &dhcp_ifs);
	spin_unlock_irqrestore(&dhcp_lock, f);
	if (thread_create("dhcp", dhcp_thread, d, -1) == NULL) {
		snprintf(msg, size, "cannot start the client thread");
		f = spin_lock_irqsave(&dhcp_lock);
		list_del_init(&d->link);
		spin_unlock_irqrestore(&dhcp_lock, f);
		r = -ENOMEM;
		goto fail;
	}
	*out = d;
	return 0;
fail:
	if (d->sk != NULL)
		sock_close(d->sk);
	kfree(d);
	return r;
}

int
dhcp_start(const char *ifname, long timeout_ms, char *msg, size_t size)
{
	struct net_device *dev;
	struct ref_tracker t;
	struct dhcp_if *d;
	bool opened;
	char a[16];
	int r;

	dev = dev_get_by_name(ifname, &t, "dhcp");
	if (dev == NULL) {
		snprintf(msg, size, "no device %s", ifname);
		return -ENODEV;
	}
	opened = !netif_running(dev);
	r = opened ? dev_open(dev) : 0;
	if (r != 0) {
		snprintf(msg, size, "%s: cannot bring it up", ifname);
		goto out;
	}
	d = dhcp_find_get(dev->ifindex);
	if (d == NULL)
		r = dhcp_create(dev, &d, msg, size);
	if (r != 0) {
		/* Nothing half-done: the link as we found it. */
		if (opened)
			dev_close(dev);
		goto out;
	}
	r = wait_event_interruptible_timeout(d->wq, d->bound || d->done,
	                                     timeout_ms);
	if (r == 0 && !d->bound) {
		r = -ENODEV;
		snprintf(msg, size, "%s went away", ifname);
	} else if (r == 0 && d->apply_err != 0) {
		r = d->apply_err;
		snprintf(
		    msg, size,
		    "%s: cannot set leased address %s (retried at renewal)",
		    ifname, inet_ntoa_r(d->c.lease.addr, a));
	} else if (r == -ETIMEDOUT) {
		snprintf(msg, size, "%s: no lease yet (state %s); still trying",
		         ifname, dhcp_state_name(d->c.state));
	} else if (r == -EINTR) {
		snprintf(msg, size, "interrupted; the client keeps trying");
	} else if (r == 0) {
		snprintf(msg, size, "%s: address %s/%u", ifname,
		         inet_ntoa_r(d->addr, a), (unsigned)d->plen);
	}
	dhcp_put(d);
out:
	dev_put_track(dev, &t);
	return r;
}

int
dhcp_stop(const char *ifname, char *msg, size_t size)
{
	struct net_device *dev;
	struct ref_tracker t;
	struct dhcp_if *d;
	int r;

	dev = dev_get_by_name(ifname, &t, "dhcp");
	if (dev == NULL) {
		snprintf(msg, size, "no device %s", ifname);
		return -ENODEV;
	}
	d = dhcp_find_get(dev->ifindex);
	dev_put_track(dev, &t);
	if (d == NULL) {
		snprintf(msg, size, "%s: no DHCP client", ifname);
		return -ENOENT;
	}
	d->stop = true;
	/* The thread looks at stop at least every receive timeout. */
	r = wait_event_interruptible(d->wq, d->done);
	if (r != 0)
		snprintf(msg, size, "interrupted; the client stops by itself");
	else
		snprintf(msg, size, "%s: client stopped, lease given up",
		         ifname);
	dhcp_put(d);
	return r;
}

void
dhcp_show(void)
{
	struct dhcp_if *d;
	char a[16];
	unsigned n = 0;
	uint32_t f = spin_lock_irqsave(&dhcp_lock);

	list_for_each_entry(d, &dhcp_ifs, link) {
		kprintf("%s: %s", d->name, dhcp_state_name(d->c.state));
		if (d->addr != 0)
			kprintf(" %s/%u", inet_ntoa_r(d->addr, a), d->plen);
		kprintf("\n");
		n++;
	}
	spin_unlock_irqrestore(&dhcp_lock, f);
	if (n == 0)
		kprintf("(no DHCP clients)\n");
}
