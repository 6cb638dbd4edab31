/*
 * netsim: software network devices (like Linux's netdevsim) for tests
 * that need no hardware.  Every frame sent on nsimN comes back in on
 * nsimN through NAPI, so both directions of the device layer run.
 *
 *   insmod netsim [count=N] [fail_open=1]
 *   netsim link DEV on|off       carrier changes
 *   netsim fail_open DEV 0|1     make ndo_open fail with EIO
 *   netsim hold DEV MS [N]       slow holders: N references that a
 *                                kernel timer drops after MS ms
 *   netsim add                   one more device (the first free slot)
 *   netsim del DEV               unregister_netdev from a command (the
 *                                wait is Ctrl-C-able and rolls back)
 *
 * devs[] is under devs_mutex: commands run concurrently (the lifetime
 * stress runs them from every CPU), so `del` claims its slot (deleting[])
 * before it unregisters: no other command finds the device, and no `add`
 * reuses the slot, which an interrupted unregister gives back.  A device
 * is only used by a command while the mutex keeps it in its slot.  Lock
 * order: devs_mutex, then rtnl.
 *
 * The device's destructor is netsim_destructor, in this module: in
 * refmode=legacy a reference dropped after rmmod calls it after the
 * module is gone, which the use-after-unload detector reports.
 */
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>

#define NSIM_MAX  8
#define NSIM_QLEN 256

struct nsim_priv {
	struct net_device *dev;
	struct napi_struct napi;
	spinlock_t lock; /* rxq */
	struct list_head rxq;
	unsigned qlen;
	volatile bool fail_open;
	bool deleted; /* unregistered by `netsim del` */
};

static unsigned int count = 1;
MODULE_PARAM(count, UINT, "devices to create (1-8)");
static bool fail_open;
MODULE_PARAM(fail_open, BOOL, "every ndo_open fails with EIO");

static DEFINE_MUTEX(devs_mutex);
static struct net_device *devs[NSIM_MAX]; /* under devs_mutex */
static bool deleting[NSIM_MAX]; /* a del owns the slot; under devs_mutex */

static void
purge(struct nsim_priv *p)
{
	uint32_t f = spin_lock_irqsave(&p->lock);
	struct list_head q;

	INIT_LIST_HEAD(&q);
	while (!list_empty(&p->rxq)) {
		struct sk_buff *skb =
		    list_first_entry(&p->rxq, struct sk_buff, list);
		list_del_init(&skb->list);
		list_add_tail(&skb->list, &q);
	}
	p->qlen = 0;
	spin_unlock_irqrestore(&p->lock, f);
	while (!list_empty(&q)) {
		struct sk_buff *skb =
		    list_first_entry(&q, struct sk_buff, list);
		list_del_init(&skb->list);
		kfree_skb(skb);
	}
}

static int
nsim_open(struct net_device *dev)
{
	struct nsim_priv *p = netdev_priv(dev);

	if (p->fail_open)
		return -EIO;
	napi_enable(&p->napi);
	netif_carrier_on(dev);
	return 0;
}

static int
nsim_stop(struct net_device *dev)
{
	struct nsim_priv *p = netdev_priv(dev);

	napi_disable(&p->napi);
	purge(p);
	netif_carrier_off(dev);
	return 0;
}

/* Loop the frame back: it is received on the same device. */
static int
nsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct nsim_priv *p = netdev_priv(dev);
	uint32_t f = spin_lock_irqsave(&p->lock);

	if (p->qlen >= NSIM_QLEN) {
		spin_unlock_irqrestore(&p->lock, f);
		return NETDEV_TX_BUSY;
	}
	list_add_tail(&skb->list, &p->rxq);
	p->qlen++;
	spin_unlock_irqrestore(&p->lock, f);
	napi_schedule(&p->napi);
	return NETDEV_TX_OK;
}

static int
nsim_poll(struct napi_struct *napi, int budget)
{
	struct nsim_priv *p = netdev_priv(napi->dev);
	int done = 0;

	while (done < budget) {
		struct sk_buff *skb = NULL;
		uint32_t f = spin_lock_irqsave(&p->lock);
		if (!list_empty(&p->rxq)) {
			skb = list_first_entry(&p->rxq, struct sk_buff, list);
			list_del_init(&skb->list);
			p->qlen--;
		}
		spin_unlock_irqrestore(&p->lock, f);
		if (skb == NULL)
			break;
		netif_receive_skb(skb);
		done++;
	}
	if (done < budget) {
		napi_complete(napi);
		/* A frame queued after our last look would wait forever. */
		if (__atomic_load_n(&p->qlen, __ATOMIC_ACQUIRE) != 0)
			napi_schedule(napi);
	}
	return done;
}

static const struct net_device_ops nsim_ops = {
    .owner = THIS_MODULE,
    .ndo_open = nsim_open,
    .ndo_stop = nsim_stop,
    .ndo_start_xmit = nsim_xmit,
};

/* Runs when the last reference is gone: from unregister_netdev, or in
 * refmode=legacy from whoever calls the last dev_put. */
void
netsim_destructor(struct net_device *dev)
{
	free_netdev(dev);
}

static int
nsim_create(int i)
{
	struct net_device *dev =
	    alloc_netdev(sizeof(struct nsim_priv), "nsim%d");
	struct nsim_priv *p;
	int r;

	ASSERT(mutex_held(&devs_mutex));
	if (dev == NULL)
		return -ENOMEM;
	p = netdev_priv(dev);
	p->dev = dev;
	spin_init(&p->lock, "nsim->lock");
	INIT_LIST_HEAD(&p->rxq);
	p->fail_open = fail_open;
	netif_napi_add(dev, &p->napi, nsim_poll, 64);
	dev->netdev_ops = &nsim_ops;
	dev->destructor = netsim_destructor;
	/* Locally administered, unicast: 02:00:00:00:00:<i+1>. */
	dev->dev_addr[0] = 0x02;
	dev->dev_addr[5] = (uint8_t)(i + 1);
	r = register_netdev(dev);
	if (r < 0) {
		free_netdev(dev);
		return r;
	}
	devs[i] = dev;
	kprintf("netsim: registered %s\n", dev->name);
	return 0;
}

static struct net_device *
nsim_find(const char *name)
{
	for (int i = 0; i < NSIM_MAX; i++)
		if (devs[i] != NULL && !deleting[i] &&
		    strcmp(devs[i]->name, name) == 0)
			return devs[i];
	return NULL;
}

static int
nsim_add(void)
{
	int r = -ENOSPC;

	mutex_lock(&devs_mutex);
	for (int i = 0; i < NSIM_MAX; i++) {
		if (devs[i] == NULL) {
			r = nsim_create(i);
			break;
		}
	}
	mutex_unlock(&devs_mutex);
	if (r == -ENOSPC)
		return cmd_error("netsim", r, "all %d devices exist", NSIM_MAX);
	if (r < 0)
		return cmd_error("netsim", r, "could not create a device");
	return 0;
}

/* Claim the slot, so no other command finds the device or takes the
 * slot, then unregister outside the mutex (it may wait); an interrupted
 * wait gives the slot back. */
static int
nsim_del(const char *name)
{
	struct net_device *dev = NULL;
	int i, r;

	mutex_lock(&devs_mutex);
	for (i = 0; i < NSIM_MAX; i++) {
		if (devs[i] != NULL && !deleting[i] &&
		    strcmp(devs[i]->name, name) == 0) {
			dev = devs[i];
			deleting[i] = true;
			break;
		}
	}
	mutex_unlock(&devs_mutex);
	if (dev == NULL)
		return cmd_error("netsim", -ENODEV, "no netsim device %s",
		                 name);
	r = unregister_netdev(dev);
	mutex_lock(&devs_mutex);
	ASSERT(devs[i] == dev && deleting[i]);
	deleting[i] = false;
	if (r >= 0) /* gone, or unregistered and left to its holders */
		devs[i] = NULL;
	mutex_unlock(&devs_mutex);
	if (r == -EINTR)
		return cmd_error("netsim", r,
		                 "%s: unregister interrupted, device restored",
		                 name);
	if (r < 0)
		return cmd_error("netsim", r,
		                 "%s: already being unregistered (rmmod)",
		                 name);
	kprintf("netsim: deleted %s\n", name);
	return 0;
}

/* link, fail_open, hold: with devs_mutex held, so dev stays. */
static int
nsim_knob(struct args *a, struct net_device *dev)
{
	int argc = a->argc;
	char **argv = a->argv;
	struct nsim_priv *p = netdev_priv(dev);
	unsigned long ms, n = 1;
	int r;

	if (strcmp(argv[1], "link") == 0 && argc == 4) {
		if (strcmp(argv[3], "on") == 0)
			netif_carrier_on(dev);
		else if (strcmp(argv[3], "off") == 0)
			netif_carrier_off(dev);
		else
			return cmd_error("netsim", -EINVAL,
			                 "'%s': expected on or off", argv[3]);
		return 0;
	}
	if (strcmp(argv[1], "fail_open") == 0 && argc == 4) {
		if (strcmp(argv[3], "0") != 0 && strcmp(argv[3], "1") != 0)
			return cmd_error("netsim", -EINVAL,
			                 "'%s': expected 0 or 1", argv[3]);
		p->fail_open = argv[3][0] == '1';
		return 0;
	}
	if (strcmp(argv[1], "hold") == 0 && (argc == 4 || argc == 5)) {
		if (parse_ulong(argv[3], &ms) != 0 || ms > 3600000)
			return cmd_error("netsim", -EINVAL,
			                 "'%s': expected 0 to 3600000 ms",
			                 argv[3]);
		if (argc == 5 &&
		    (parse_ulong(argv[4], &n) != 0 || n < 1 || n > 64))
			return cmd_error("netsim", -EINVAL,
			                 "'%s': expected 1 to 64", argv[4]);
		for (unsigned long i = 0; i < n; i++) {
			r = netdev_hold_timed(dev, (unsigned)ms, "netsim-slow");
			if (r < 0)
				return cmd_error("netsim", r, "hold failed");
		}
		kprintf("netsim: %s: %lu slow holder(s) for %lu ms\n",
		        dev->name, n, ms);
		return 0;
	}
	return args_refuse(a, "unknown action '%s' or wrong arguments",
	                   argv[1]);
}

static int
cmd_netsim(int argc, char **argv)
{
	struct net_device *dev;
	struct args a;
	int r;

	if (args_parse(&a, "netsim", argc, argv, "", 1, 4) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	if (strcmp(argv[1], "add") == 0 && argc == 2)
		return nsim_add();
	if (strcmp(argv[1], "del") == 0 && argc == 3)
		return nsim_del(argv[2]);
	if (argc < 3)
		return args_refuse(&a, "unknown action '%s' or wrong arguments",
		                   argv[1]);
	mutex_lock(&devs_mutex);
	dev = nsim_find(argv[2]);
	if (dev == NULL)
		r = cmd_error("netsim", -ENODEV, "no netsim device %s",
		              argv[2]);
	else
		r = nsim_knob(&a, dev);
	mutex_unlock(&devs_mutex);
	return r;
}

static struct command netsim_cmd = {
    .name = "netsim",
    .usage = "netsim add | link DEV on|off | fail_open DEV 0|1 | hold DEV "
             "MS [N] | del DEV",
    .help = "knobs of the software network devices",
    .fn = cmd_netsim,
};

/* From exit (no command can be running: each holds the module) or a
 * failed init. */
static void
destroy_all(void)
{
	struct net_device *gone[NSIM_MAX];

	mutex_lock(&devs_mutex);
	for (int i = 0; i < NSIM_MAX; i++) {
		ASSERT(!deleting[i]);
		gone[i] = devs[i];
		devs[i] = NULL;
	}
	mutex_unlock(&devs_mutex);
	for (int i = 0; i < NSIM_MAX; i++)
		if (gone[i] != NULL)
			unregister_netdev(gone[i]);
}

static void
netsim_exit(void)
{
	command_unregister(&netsim_cmd);
	destroy_all();
}

static int
netsim_init(void)
{
	int r = 0;

	if (count < 1 || count > NSIM_MAX) {
		kprintf("netsim: count=%u: expected 1 to %d\n", count,
		        NSIM_MAX);
		return -EINVAL;
	}
	mutex_lock(&devs_mutex);
	for (unsigned i = 0; i < count && r == 0; i++)
		r = nsim_create((int)i);
	mutex_unlock(&devs_mutex);
	if (r < 0) {
		destroy_all();
		return r;
	}
	command_register(&netsim_cmd);
	return 0;
}

module_init(netsim_init);
module_exit(netsim_exit);
NETDEV_MODULE_HOOKS();
MODULE_DESCRIPTION("software network devices for tests (like netdevsim)");
MODULE_LICENSE("GPL");
