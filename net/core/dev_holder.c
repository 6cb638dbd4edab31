/*
 * Timed holders: references on a device that a kernel timer drops after
 * a delay, ignoring NETDEV_UNREGISTER - a stand-in for a slow or leaky
 * cache (the route or socket of the 2003 thread).  Tests and the netsim
 * module use them to make unregister wait, and, in refmode=legacy, to
 * drop the last reference after the driver module is gone: the timer and
 * dev_put are kernel code, so the first module code reached is the
 * device's destructor, which is exactly what the detector must name.
 *
 *   devhold DEV MS [N]     N references ("devhold"), dropped after MS
 *   devhold -r DEV MS      a renewing holder: every MS it takes a new
 *                          reference with try_dev_hold and drops the old
 *                          one, until try_dev_hold refuses (the device is
 *                          unregistering, or in refmode=owner its driver
 *                          module is GOING); then it says so and lets go
 *   devhold -l             the pending ones
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define HOLDER_TAG "devhold"

struct timed_holder {
	struct list_head link;
	struct timer timer;
	struct net_device *dev;
	struct ref_tracker tracker[2]; /* renewing: the new one, then old */
	int cur;
	unsigned renew_ms; /* 0: a plain timed holder */
	char name[IFNAMSIZ];
	uint64_t expires;
};

static DEFINE_SPINLOCK(holders_lock);
static LIST_HEAD(holders);

/* Timer context (interrupts off, boot CPU).  dev_put may free the device
 * (or, in legacy mode, call its destructor) right here. */
static void
holder_expire(struct timer *t)
{
	struct timed_holder *h = t->data;
	uint32_t f;

	if (h->renew_ms != 0) {
		int next = 1 - h->cur;
		if (try_dev_hold(h->dev, &h->tracker[next], "devhold-renew")) {
			dev_put_track(h->dev, &h->tracker[h->cur]);
			h->cur = next;
			h->expires = now_ms() + h->renew_ms;
			timer_add(&h->timer, h->expires);
			return;
		}
		const char *refused = netdev_refops->refused != NULL
		                          ? netdev_refops->refused(h->dev)
		                          : NULL;
		kprintf("devhold: %s: try_dev_hold refused (%s), letting go\n",
		        h->name,
		        refused != NULL ? refused
		                        : "the device is being unregistered");
	}
	f = spin_lock_irqsave(&holders_lock);
	list_del_init(&h->link);
	spin_unlock_irqrestore(&holders_lock, f);
	dev_put_track(h->dev, &h->tracker[h->cur]);
	kfree(h);
}

static int
hold_timed(struct net_device *dev, unsigned ms, const char *tag,
           unsigned renew_ms, uintptr_t caller)
{
	struct timed_holder *h = kzalloc(sizeof(*h), HOLDER_TAG);
	uint32_t f;

	if (h == NULL)
		return -ENOMEM;
	h->dev = dev;
	strlcpy(h->name, dev->name, sizeof(h->name));
	h->expires = now_ms() + ms;
	h->renew_ms = renew_ms;
	__dev_hold(dev, &h->tracker[0], tag != NULL ? tag : HOLDER_TAG, caller);
	timer_init(&h->timer, holder_expire, h);
	f = spin_lock_irqsave(&holders_lock);
	list_add_tail(&h->link, &holders);
	spin_unlock_irqrestore(&holders_lock, f);
	timer_add(&h->timer, h->expires);
	return 0;
}

/* Not inlined: the tracked call site is the caller of this function. */
__attribute__((noinline)) int
netdev_hold_timed(struct net_device *dev, unsigned ms, const char *tag)
{
	return hold_timed(dev, ms, tag, 0,
	                  (uintptr_t)__builtin_return_address(0));
}
EXPORT_SYMBOL(netdev_hold_timed);

static int
list_holders(void)
{
	struct timed_holder *h;
	uint64_t now = now_ms();
	uint32_t f = spin_lock_irqsave(&holders_lock);
	int n = 0;

	list_for_each_entry(h, &holders, link) {
		kprintf("devhold: %s released in %u ms\n", h->name,
		        (unsigned)(h->expires > now ? h->expires - now : 0));
		n++;
	}
	spin_unlock_irqrestore(&holders_lock, f);
	if (n == 0)
		kprintf("devhold: none pending\n");
	return 0;
}

__attribute__((noinline)) static int
renewing(const struct args *a, const char *name, const char *arg)
{
	unsigned long ms;
	struct ref_tracker t;
	struct net_device *dev;
	int r;

	if (args_num(a, "MS", arg, 10, 3600000, &ms) < 0)
		return -EINVAL;
	dev = dev_get_by_name(name, &t, "devhold-cmd");
	if (dev == NULL)
		return cmd_error("devhold", -ENODEV, "no device %s", name);
	r = hold_timed(dev, (unsigned)ms, "devhold-renew", (unsigned)ms,
	               (uintptr_t)__builtin_return_address(0));
	dev_put_track(dev, &t);
	if (r < 0)
		return cmd_error("devhold", r, "%s: could not hold it", name);
	kprintf("devhold: %s: renewing a reference every %lu ms\n", name, ms);
	return 0;
}

static int
cmd_devhold(int argc, char **argv)
{
	unsigned long ms, n = 1;
	struct ref_tracker t;
	struct net_device *dev;
	struct args a;
	int r = 0;

	if (args_parse(&a, "devhold", argc, argv, "lr", 0, 3) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	if (args_has(&a, 'l') && (args_has(&a, 'r') || argc != 1))
		return args_refuse(&a, "-l takes nothing else");
	if (args_has(&a, 'l'))
		return list_holders();
	if (args_has(&a, 'r') && argc != 3)
		return args_refuse(&a, "-r takes DEV MS");
	if (args_has(&a, 'r'))
		return renewing(&a, argv[1], argv[2]);
	if (argc < 3)
		return args_refuse(&a, "missing arguments");
	if (args_num(&a, "MS", argv[2], 0, 3600000, &ms) < 0 ||
	    (argc == 4 && args_num(&a, "N", argv[3], 1, 64, &n) < 0))
		return -EINVAL;
	dev = dev_get_by_name(argv[1], &t, "devhold-cmd");
	if (dev == NULL)
		return cmd_error("devhold", -ENODEV, "no device %s", argv[1]);
	for (unsigned long i = 0; i < n && r == 0; i++)
		r = netdev_hold_timed(dev, (unsigned)ms, HOLDER_TAG);
	dev_put_track(dev, &t);
	if (r < 0)
		return cmd_error("devhold", r, "%s: could not hold it",
		                 argv[1]);
	kprintf("devhold: %s: %lu reference(s) for %lu ms\n", argv[1], n, ms);
	return 0;
}
COMMAND(devhold, "devhold DEV MS [N] | devhold -r DEV MS | devhold -l",
        "hold N references on DEV, dropped by a timer after MS (tests)",
        cmd_devhold);
