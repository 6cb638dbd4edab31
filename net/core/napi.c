/*
 * NAPI-style receive: a driver's interrupt handler masks its receive
 * interrupt and calls napi_schedule(); the "net_rx" thread then calls the
 * driver's poll function, which hands frames up with netif_receive_skb()
 * in thread context, and calls napi_complete() (and unmasks) once it has
 * drained the ring in less than its budget.
 *
 * State, under napi_lock: SCHED means "on the poll list or being polled";
 * DISABLED means napi_schedule() refuses.  napi_disable() sets DISABLED,
 * takes the napi off the list, and waits until a poll in progress is
 * over, so after it returns the driver's poll will not run again until
 * napi_enable().  Each poll runs with a reference on the driver module.
 *
 * A poll whose module reference cannot be taken (the module is GOING:
 * rmmod is waiting for it) is parked, still SCHED, and retried every
 * PARK_MS: its device's interrupts stay masked until a poll completes,
 * so completing it unpolled would leave the NIC deaf for good if the
 * unload is then abandoned (Ctrl-C, the module LIVE again with its
 * devices up).  The unload's own napi_disable takes it off the parked
 * list like off the poll list.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/spinlock.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/waitq.h>
#include <kernel/bootparam.h>
#include <kernel/sched/clock.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/x86.h>

#define NAPI_SCHED    1
#define NAPI_DISABLED 2
#define NAPI_RUNNING  4

#define PARK_MS 10

static DEFINE_SPINLOCK(napi_lock);
static LIST_HEAD(poll_list);
static LIST_HEAD(parked); /* SCHED, their module GOING at their poll */
static struct timer park_timer;
static DEFINE_WAITQ(napi_wq);
static struct thread *net_rx_thread;

/* 50, not 200: measured side by side (docs/bench.md),
 * 200 let a spinning vCPU take a host core from QEMU's main loop often
 * enough to cost virtio-net host -> guest rounds 15-25%; 50 kept the
 * e1000 figure. */
static int net_busy_poll_us = 50;
BOOTPARAM_INT(net_busy_poll_us, net_busy_poll_us, 0, 10000,
              "us a wait for the receive path (tcp.ko's) spins off "
              "net_rx's CPU before it sleeps (0: never)",
              1);

void
netif_napi_add(struct net_device *dev, struct napi_struct *napi,
               int (*poll)(struct napi_struct *, int), int weight)
{
	napi->dev = dev;
	napi->poll = poll;
	napi->weight = weight > 0 && weight <= 256 ? weight : 64;
	napi->state = NAPI_DISABLED;
	INIT_LIST_HEAD(&napi->poll_link);
	list_add_tail(&napi->dev_link, &dev->napi_list);
}
EXPORT_SYMBOL(netif_napi_add);

void
netif_napi_del(struct napi_struct *napi)
{
	napi_disable(napi);
	list_del_init(&napi->dev_link);
}
EXPORT_SYMBOL(netif_napi_del);

void
napi_enable(struct napi_struct *napi)
{
	uint32_t f = spin_lock_irqsave(&napi_lock);
	napi->state &= ~NAPI_DISABLED;
	spin_unlock_irqrestore(&napi_lock, f);
}
EXPORT_SYMBOL(napi_enable);

void
napi_disable(struct napi_struct *napi)
{
	uint32_t f = spin_lock_irqsave(&napi_lock);

	napi->state |= NAPI_DISABLED;
	if (!list_empty(&napi->poll_link))
		list_del_init(&napi->poll_link);
	napi->state &= ~NAPI_SCHED;
	spin_unlock_irqrestore(&napi_lock, f);
	while (__atomic_load_n(&napi->state, __ATOMIC_ACQUIRE) & NAPI_RUNNING)
		msleep(1);
}
EXPORT_SYMBOL(napi_disable);

bool
napi_schedule(struct napi_struct *napi)
{
	uint32_t f = spin_lock_irqsave(&napi_lock);
	bool queued = false;

	if (!(napi->state & (NAPI_SCHED | NAPI_DISABLED))) {
		napi->state |= NAPI_SCHED;
		list_add_tail(&napi->poll_link, &poll_list);
		queued = true;
	}
	spin_unlock_irqrestore(&napi_lock, f);
	if (queued)
		wake_up(&napi_wq);
	return queued;
}
EXPORT_SYMBOL(napi_schedule);

void
napi_complete(struct napi_struct *napi)
{
	uint32_t f = spin_lock_irqsave(&napi_lock);
	napi->state &= ~NAPI_SCHED;
	spin_unlock_irqrestore(&napi_lock, f);
}
EXPORT_SYMBOL(napi_complete);

static struct napi_struct *
next_napi(void)
{
	struct napi_struct *n = NULL;
	uint32_t f = spin_lock_irqsave(&napi_lock);

	if (!list_empty(&poll_list)) {
		n = list_first_entry(&poll_list, struct napi_struct, poll_link);
		list_del_init(&n->poll_link);
		n->state |= NAPI_RUNNING;
	}
	spin_unlock_irqrestore(&napi_lock, f);
	return n;
}

/* The parked napis go back on the poll list. */
static void
park_retry(struct timer *t)
{
	uint32_t f = spin_lock_irqsave(&napi_lock);
	bool any = !list_empty(&parked);

	(void)t;
	while (!list_empty(&parked)) {
		struct napi_struct *n =
		    list_first_entry(&parked, struct napi_struct, poll_link);
		list_del_init(&n->poll_link);
		list_add_tail(&n->poll_link, &poll_list);
	}
	spin_unlock_irqrestore(&napi_lock, f);
	if (any)
		wake_up(&napi_wq);
}

static void
poll_one(struct napi_struct *n)
{
	struct module *owner = n->dev->owner;
	uint32_t f;
	int done = 0;

	/* A GOING module is being taken down; its remove path disables
	 * this napi.  Without a reference its poll must not run: park it
	 * (see the top) rather than complete it unpolled. */
	if (!try_module_get(owner)) {
		f = spin_lock_irqsave(&napi_lock);
		if ((n->state & NAPI_SCHED) && !(n->state & NAPI_DISABLED) &&
		    list_empty(&n->poll_link))
			list_add_tail(&n->poll_link, &parked);
		__atomic_and_fetch(&n->state, ~NAPI_RUNNING, __ATOMIC_RELEASE);
		spin_unlock_irqrestore(&napi_lock, f);
		timer_add(&park_timer, now_ms() + PARK_MS);
		return;
	}
	done = n->poll(n, n->weight);
	module_put(owner);
	f = spin_lock_irqsave(&napi_lock);
	/* Used its whole budget and not completed: more work, poll again. */
	if (done >= n->weight && (n->state & NAPI_SCHED) &&
	    !(n->state & NAPI_DISABLED) && list_empty(&n->poll_link))
		list_add_tail(&n->poll_link, &poll_list);
	__atomic_and_fetch(&n->state, ~NAPI_RUNNING, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&napi_lock, f);
}

static void
net_rx(void *arg)
{
	(void)arg;
	for (;;) {
		struct napi_struct *n;

		wait_event(napi_wq, !list_empty(&poll_list));
		while ((n = next_napi()) != NULL)
			poll_one(n);
	}
}

int
net_rx_cpu(void)
{
	return net_rx_thread->cpu;
}
EXPORT_SYMBOL(net_rx_cpu);

int
net_rx_other_cpu(void)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (cpus[i].state == CPU_ONLINE && i != net_rx_cpu())
			return i;
	return -1;
}
EXPORT_SYMBOL(net_rx_other_cpu);

uint64_t
net_busy_poll_until(void)
{
	if (net_busy_poll_us == 0 || cpu_id() == net_rx_cpu())
		return 0;
	return now_us() + (unsigned)net_busy_poll_us;
}
EXPORT_SYMBOL(net_busy_poll_until);

bool
net_busy_wait(const volatile uint32_t *events, uint32_t seen, uint64_t until_us)
{
	while (*events == seen) {
		if (now_us() >= until_us)
			return false;
		cpu_relax();
	}
	return true;
}
EXPORT_SYMBOL(net_busy_wait);

void
napi_init(void)
{
	/* On the boot CPU, where every device interrupt is routed
	 * (kernel/arch/ioapic.c): the interrupt's wakeup of net_rx stays on one
	 * CPU, and readers elsewhere know where the receive path runs. */
	timer_init(&park_timer, park_retry, NULL);
	net_rx_thread = thread_create("net_rx", net_rx, NULL, 0);
	if (net_rx_thread == NULL)
		panic("cannot start the net_rx thread");
}
