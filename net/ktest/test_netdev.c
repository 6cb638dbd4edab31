/*
 * Suite "netdev": the device layer (netdevice.h) with a fake driver built
 * into the kernel (owner NULL), so it needs no module and no hardware.
 *
 * Pins down: names from a "%d" template and ifindexes that only grow;
 * duplicate names and bad MTUs refused; lookups that return a counted,
 * tracked reference and fail once the device is unregistering; the
 * notifier sequence REGISTER, UP, DOWN, UNREGISTER (with replay on
 * registration); ndo_open/ndo_stop/ndo_start_xmit called as documented
 * (a failing open leaves the device down; no transmit while down; bad
 * frame sizes refused); both refcount implementations counting holds
 * made on several CPUs; unregister_netdev waiting for a holder and
 * re-sending NETDEV_UNREGISTER each second; Ctrl-C (thread_signal) during
 * that wait rolling back to the same name, index and up state; NAPI polls
 * in thread context and napi_disable waiting for a running poll; busy
 * polling only off net_rx's CPU, giving up at its deadline, seeing a
 * counter move, and off when net_busy_poll_us is 0.
 * Cases that depend on refmode=wait skip under the other modes.
 */
#include <kernel/lib/errno.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/clock.h>
#include <kernel/bootparam.h>
#include <kernel/debug/ksyms.h>
#include <kernel/debug/stackdepot.h>
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>
#include "net/core/netdev_internal.h"
#include "net/core/refmode.h"

struct fake {
	volatile int opens, stops, xmits;
	volatile int fail_open;
	volatile int polls, poll_in_irq;
	volatile int poll_sleep_ms;
	struct napi_struct napi;
};

static int
fake_open(struct net_device *dev)
{
	struct fake *f = netdev_priv(dev);

	if (f->fail_open)
		return -EIO;
	f->opens++;
	return 0;
}

static int
fake_stop(struct net_device *dev)
{
	((struct fake *)netdev_priv(dev))->stops++;
	return 0;
}

static int
fake_xmit(struct sk_buff *skb, struct net_device *dev)
{
	((struct fake *)netdev_priv(dev))->xmits++;
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fake_ops = {
    .owner = NULL,
    .ndo_open = fake_open,
    .ndo_stop = fake_stop,
    .ndo_start_xmit = fake_xmit,
};

static void
fake_destructor(struct net_device *dev)
{
	free_netdev(dev);
}

static struct net_device *
fake_new(const char *name, bool pcpu)
{
	struct net_device *dev = alloc_netdev(sizeof(struct fake), name);

	if (dev == NULL)
		return NULL;
	dev->netdev_ops = &fake_ops;
	dev->destructor = fake_destructor;
	/* the mode the test asks for, not devref='s (nothing counted yet) */
	if (pcpu && netdev_refmode != REFMODE_LEGACY)
		pcpu_counter_init(&dev->refs);
	else
		pcpu_counter_init_atomic(&dev->refs, 0);
	dev->dev_addr[0] = 0x02;
	if (register_netdev(dev) < 0) {
		free_netdev(dev);
		return NULL;
	}
	return dev;
}

static void
names_and_indexes(struct ktest *t)
{
	struct net_device *a = fake_new("ktst%d", false);
	struct net_device *b = fake_new("ktst%d", false);
	struct net_device *c = alloc_netdev(0, "ktst0");

	KASSERT_TRUE(t, a != NULL && b != NULL && c != NULL);
	KEXPECT_TRUE(t, strcmp(a->name, "ktst0") == 0);
	KEXPECT_TRUE(t, strcmp(b->name, "ktst1") == 0);
	KEXPECT_TRUE(t, b->ifindex > a->ifindex);
	c->netdev_ops = &fake_ops;
	KEXPECT_EQ(t, register_netdev(c), -EEXIST);
	strlcpy(c->name, "ktstmtu", sizeof(c->name));
	c->mtu = 20;
	KEXPECT_EQ(t, register_netdev(c), -EINVAL);
	free_netdev(c);
	KEXPECT_EQ(t, unregister_netdev(a), 0);
	/* The name is free again; the index is never reused. */
	a = fake_new("ktst%d", false);
	KEXPECT_TRUE(t, a != NULL && strcmp(a->name, "ktst0") == 0);
	KEXPECT_TRUE(t, a != NULL && a->ifindex > b->ifindex);
	if (a != NULL)
		unregister_netdev(a);
	unregister_netdev(b);
}

static void
lookups_hold(struct ktest *t)
{
	struct net_device *dev = fake_new("ktst%d", false), *d;
	struct ref_tracker tr, tr2;

	KASSERT_TRUE(t, dev != NULL);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	d = dev_get_by_name(dev->name, &tr, "ktest-lookup");
	KEXPECT_TRUE(t, d == dev);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 2);
	KEXPECT_TRUE(t, !list_empty(&dev->holders.list) &&
	                    list_entry(dev->holders.list.prev,
	                               struct ref_tracker, link) == &tr);
	KEXPECT_TRUE(t, strcmp(tr.tag, "ktest-lookup") == 0);
	d = dev_get_by_index(dev->ifindex, &tr2, "ktest-index");
	KEXPECT_TRUE(t, d == dev);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 3);
	dev_put_track(dev, &tr2);
	dev_put_track(dev, &tr);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	KEXPECT_TRUE(t, dev_get_by_name("ktst-none", NULL, NULL) == NULL);
	dev_hold(dev);
	KEXPECT_EQ(t, dev->holders.untracked, 1);
	dev_put(dev);
	KEXPECT_EQ(t, dev->holders.untracked, 0);
	unregister_netdev(dev);
}

#define NEV 16
static struct {
	struct net_device *dev;
	int n;
	unsigned long ev[NEV];
} seen;

static void
record(struct notifier_block *nb, unsigned long event, struct net_device *d)
{
	(void)nb;
	if (d == seen.dev && seen.n < NEV)
		seen.ev[seen.n++] = event;
}

static void
notifier_sequence(struct ktest *t)
{
	struct notifier_block nb = {.notifier_call = record};
	struct net_device *dev = fake_new("ktst%d", false);

	KASSERT_TRUE(t, dev != NULL);
	seen.dev = dev;
	seen.n = 0;
	register_netdevice_notifier(&nb); /* replays REGISTER */
	KEXPECT_EQ(t, dev_open(dev), 0);
	KEXPECT_EQ(t, dev_close(dev), 0);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	unregister_netdevice_notifier(&nb);
	KEXPECT_EQ(t, seen.n, 4);
	KEXPECT_EQ(t, seen.ev[0], NETDEV_REGISTER);
	KEXPECT_EQ(t, seen.ev[1], NETDEV_UP);
	KEXPECT_EQ(t, seen.ev[2], NETDEV_DOWN);
	KEXPECT_EQ(t, seen.ev[3], NETDEV_UNREGISTER);
	seen.dev = NULL;
}

static int
try_xmit(struct net_device *dev, unsigned len)
{
	struct sk_buff *skb = netdev_alloc_skb(dev, len);

	if (skb == NULL)
		return -ENOMEM;
	memset(skb_put(skb, len), 0xab, len);
	return dev_queue_xmit(skb);
}

static void
ops_called_as_documented(struct ktest *t)
{
	struct net_device *dev = fake_new("ktst%d", false);
	struct fake *f;

	KASSERT_TRUE(t, dev != NULL);
	f = netdev_priv(dev);
	KEXPECT_EQ(t, try_xmit(dev, 60), -ENETDOWN);
	f->fail_open = 1;
	KEXPECT_EQ(t, dev_open(dev), -EIO);
	KEXPECT_TRUE(t, !netif_running(dev));
	f->fail_open = 0;
	KEXPECT_EQ(t, dev_open(dev), 0);
	KEXPECT_EQ(t, dev_open(dev), 0); /* already up: no second call */
	KEXPECT_EQ(t, f->opens, 1);
	KEXPECT_EQ(t, try_xmit(dev, 60), 0);
	KEXPECT_EQ(t, try_xmit(dev, 10), -EINVAL);
	KEXPECT_EQ(t, try_xmit(dev, dev->mtu + ETH_HLEN + 1), -EINVAL);
	KEXPECT_EQ(t, f->xmits, 1);
	KEXPECT_EQ(t, dev->stats.tx_packets, 1);
	KEXPECT_EQ(t, dev->stats.tx_bytes, 60);
	/* Frames in flight hold the device; none are left. */
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	KEXPECT_EQ(t, unregister_netdev(dev), 0); /* closes it */
}

/* 100 holds, then 50 puts: each thread leaves 50 behind. */
static int
hold_many(void *p)
{
	struct net_device *dev = p;

	for (int i = 0; i < 100; i++)
		dev_hold(dev);
	for (int i = 0; i < 50; i++)
		dev_put(dev);
	return 0;
}

static void
count_on_cpus(struct ktest *t, bool pcpu)
{
	struct net_device *dev = fake_new("ktst%d", pcpu);
	int n = kt_online_cpus() * 2, started = 0;
	struct kt_async *a[2 * MAX_CPUS];

	KASSERT_TRUE(t, dev != NULL);
	KEXPECT_EQ(t, !pcpu_counter_is_atomic(&dev->refs), pcpu);
	for (int i = 0; i < n; i++) {
		a[i] = kt_async_start("ktest-devref", hold_many, dev);
		if (a[i] == NULL)
			break;
		started++;
	}
	KEXPECT_EQ(t, started, n);
	/* Every thread done, not the sum: 1 + 50 * n is also the count
	 * while one thread holds 100 and another has not started (seen on
	 * a loaded host: 50 holds counted twice, then put one too many). */
	for (int i = 0; i < started; i++) {
		KEXPECT_TRUE(t, kt_poll(READ_ONCE(a[i]->done), KT_SOON_MS));
		kt_shared_put(a[i]);
	}
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1 + 50 * started);
	KEXPECT_EQ(t, netdev_refcnt_settled(dev), 1 + 50 * started);
	for (int i = 0; i < 50 * started; i++)
		dev_put(dev);
	KEXPECT_EQ(t, netdev_refcnt_settled(dev), 1);
	unregister_netdev(dev);
}

static void
refcount_percpu(struct ktest *t)
{
	/* legacy keeps one atomic count: its last dev_put must see zero to
	 * call the destructor, so devices never get per-CPU counts. */
	if (netdev_refmode == REFMODE_LEGACY) {
		ktest_skip(t, "refmode=legacy counts devices in one atomic");
		return;
	}
	count_on_cpus(t, true);
}

static void
refcount_atomic(struct ktest *t)
{
	count_on_cpus(t, false);
}

/* Each CPU's counter in a cache line of its own: no two slots
 * of a real device share a line, so CPUs counting on their own slots do
 * not bounce one line between them. */
static void
pcpu_slots_own_lines(struct ktest *t)
{
	struct net_device *dev = alloc_netdev(0, "ktst%d");

	KASSERT_TRUE(t, dev != NULL);
	kt_expect_slots_own_lines(t, dev->refs.cpu, "netdev");
	free_netdev(dev);
}

static int unreg_events;
static struct ref_tracker late_cache_tracker;
static bool late_cache_held;

/*
 * A cache that took its reference after the first NETDEV_UNREGISTER: it
 * lets go only when the notification is sent again.  That is what the
 * once-a-second re-send in the unregister wait is for, and it makes the
 * test independent of how long anything takes on a loaded machine.
 */
static void
count_unreg(struct notifier_block *nb, unsigned long event,
            struct net_device *d)
{
	(void)nb;
	if (event != NETDEV_UNREGISTER || d != seen.dev)
		return;
	if (++unreg_events == 2 && late_cache_held) {
		late_cache_held = false;
		dev_put_track(d, &late_cache_tracker);
	}
}

static void
unregister_waits_for_holder(struct ktest *t)
{
	struct notifier_block nb = {.notifier_call = count_unreg};
	struct net_device *dev;
	uint64_t start;

	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return;
	}
	dev = fake_new("ktst%d", true);
	KASSERT_TRUE(t, dev != NULL);
	seen.dev = dev;
	unreg_events = 0;
	register_netdevice_notifier(&nb);
	dev_hold_track(dev, &late_cache_tracker, "ktest-late-cache");
	late_cache_held = true;
	start = now_ms();
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
	/* Once at the start, again after a second of waiting: then the
	 * cache let go and the wait ended. */
	KEXPECT_MSG(t, unreg_events == 2, "NETDEV_UNREGISTER sent %d times",
	            unreg_events);
	KEXPECT_MSG(t, now_ms() - start >= 1000, "returned after %u ms",
	            (unsigned)(now_ms() - start));
	KEXPECT_TRUE(t, !late_cache_held);
	unregister_netdevice_notifier(&nb);
	seen.dev = NULL;
}

struct unreg_arg {
	struct net_device *dev;
	volatile int result;
	volatile int done;
};

static void
unreg_thread(void *p)
{
	struct unreg_arg *a = p;

	a->result = unregister_netdev(a->dev);
	a->done = 1;
	kt_shared_put(a);
	thread_exit();
}

static void
interrupted_unregister_rolls_back(struct ktest *t)
{
	struct unreg_arg *a;
	struct net_device *dev;
	struct thread *th;
	int ifindex;

	if (netdev_refmode != REFMODE_WAIT) {
		ktest_skip(t, "needs refmode=wait");
		return;
	}
	dev = fake_new("ktst%d", false);
	KASSERT_TRUE(t, dev != NULL);
	ifindex = dev->ifindex;
	KEXPECT_EQ(t, dev_open(dev), 0);
	dev_hold(dev);
	a = kt_shared_alloc(sizeof(*a), 2);
	KASSERT_TRUE(t, a != NULL);
	a->dev = dev;
	th = thread_create("ktest-unreg", unreg_thread, a, -1);
	KEXPECT_TRUE(t, th != NULL);
	/* It is waiting (our reference) and cannot finish until we act. */
	KEXPECT_TRUE(
	    t, kt_poll(dev->reg_state == NETREG_UNREGISTERING, KT_SOON_MS));
	KEXPECT_TRUE(t, dev_get_by_name(dev->name, NULL, NULL) == NULL);
	msleep(50);
	KEXPECT_TRUE(t, !a->done);
	thread_signal(th);
	KEXPECT_TRUE(t, kt_poll(a->done, KT_SOON_MS));
	KEXPECT_EQ(t, a->result, -EINTR);
	KEXPECT_EQ(t, dev->reg_state, NETREG_REGISTERED);
	KEXPECT_TRUE(t, dev_get_by_index_rcu(ifindex) == dev);
	KEXPECT_TRUE(t, netif_running(dev));
	KEXPECT_EQ(t, ((struct fake *)netdev_priv(dev))->opens, 2);
	kt_shared_put(a);
	dev_put(dev);
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

static void
try_hold_fails_when_unregistering(struct ktest *t)
{
	struct net_device *dev = fake_new("ktst%d", false);
	struct ref_tracker tr;

	KASSERT_TRUE(t, dev != NULL);
	KEXPECT_TRUE(t, try_dev_hold(dev, &tr, "ktest-try"));
	dev_put_track(dev, &tr);
	rtnl_lock();
	netdev_unregister_begin(dev, false);
	KEXPECT_TRUE(t, !try_dev_hold(dev, &tr, "ktest-try"));
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	rtnl_unlock();
	KEXPECT_EQ(t, unregister_netdev(dev), 0);
}

static int
fake_poll(struct napi_struct *napi, int budget)
{
	struct fake *f = netdev_priv(napi->dev);

	(void)budget;
	if (this_cpu()->irq_depth != 0)
		f->poll_in_irq++;
	if (f->poll_sleep_ms)
		msleep((unsigned)f->poll_sleep_ms);
	f->polls++;
	napi_complete(napi);
	return 0;
}

static void
schedule_from_timer(struct timer *tm)
{
	napi_schedule(tm->data);
}

static void
napi_polls_in_thread(struct ktest *t)
{
	struct net_device *dev = fake_new("ktst%d", false);
	struct timer tm;
	struct fake *f;
	uint64_t start;

	KASSERT_TRUE(t, dev != NULL);
	f = netdev_priv(dev);
	netif_napi_add(dev, &f->napi, fake_poll, 8);
	KEXPECT_TRUE(t, !napi_schedule(&f->napi)); /* disabled until enabled */
	napi_enable(&f->napi);
	timer_init(&tm, schedule_from_timer, &f->napi);
	timer_add(&tm, now_ms() + 5);
	KEXPECT_TRUE(t, kt_poll(f->polls == 1, KT_SOON_MS));
	KEXPECT_EQ(t, f->poll_in_irq, 0);
	timer_del(&tm);
	/* polls counts inside the poll: net_rx may not yet have marked it
	 * over (SCHED 1 and RUNNING 4 clear), and a RUNNING bit left from
	 * this poll would pass for the next one's below (under load the
	 * next one was then taken off the list unrun: polls stayed 1). */
	KEXPECT_TRUE(t, kt_poll((f->napi.state & 5) == 0, KT_SOON_MS));
	/* napi_disable waits for a poll that is running. */
	f->poll_sleep_ms = 200;
	KEXPECT_TRUE(t, napi_schedule(&f->napi));
	KEXPECT_TRUE(t, kt_poll(f->napi.state & 4, KT_SOON_MS));
	start = now_ms();
	napi_disable(&f->napi);
	KEXPECT_EQ(t, f->polls, 2);
	KEXPECT_MSG(t, now_ms() - start >= 100, "returned after %u ms",
	            (unsigned)(now_ms() - start));
	netif_napi_del(&f->napi);
	unregister_netdev(dev);
}

/* ---- busy polling ---- */

static volatile uint32_t bp_events;

static void
bump_from_timer(struct timer *tm)
{
	(void)tm;
	bp_events++;
}

struct bp_result {
	uint64_t until;
	int saw_bump, timed_out;
	uint64_t waited_us;
};

static int
busy_wait_here(void *arg)
{
	struct bp_result *r = arg;
	struct timer tm;
	uint64_t t0;

	r->until = net_busy_poll_until();
	if (r->until == 0)
		return 0;
	/* Nothing moves the counter: false, at the deadline. */
	t0 = now_us();
	r->timed_out = !net_busy_wait(&bp_events, bp_events, t0 + 2000);
	r->waited_us = now_us() - t0;
	/* A timer moves it: true, long before a 10 s deadline. */
	timer_init(&tm, bump_from_timer, NULL);
	timer_add(&tm, now_ms() + 2);
	r->saw_bump = net_busy_wait(&bp_events, bp_events, now_us() + 10000000);
	timer_del(&tm);
	return 0;
}

/* A reader polls only off net_rx's CPU, and sees the counter move. */
static void
busy_wait_off_net_rx_cpu(struct ktest *t)
{
	struct bp_result r = {0};
	int other = net_rx_other_cpu();

	KEXPECT_EQ(
	    t, thread_run_on(net_rx_cpu(), "ktest-bp", busy_wait_here, &r), 0);
	KEXPECT_MSG(t, r.until == 0, "polls on net_rx's cpu %d", net_rx_cpu());
	if (other < 0) {
		ktest_skip(t, "needs a CPU other than net_rx's");
		return;
	}
	KEXPECT_EQ(t, thread_run_on(other, "ktest-bp", busy_wait_here, &r), 0);
	KEXPECT_MSG(t, r.until != 0, "no polling on cpu %d", other);
	KEXPECT_TRUE(t, r.timed_out);
	KEXPECT_MSG(t, r.waited_us >= 2000, "gave up after %u us",
	            (unsigned)r.waited_us);
	KEXPECT_TRUE(t, r.saw_bump);
}

/* net_busy_poll_us=0 turns polling off on every CPU. */
static void
busy_poll_off_at_zero(struct ktest *t)
{
	const struct bootparam *p = bootparam_find("net_busy_poll_us");
	struct bp_result r = {1, 0, 0, 0};
	int other = net_rx_other_cpu();
	char was[16], err[64];

	KASSERT_TRUE(t, p != NULL);
	if (other < 0) {
		ktest_skip(t, "needs a CPU other than net_rx's");
		return;
	}
	bootparam_format(p, was, sizeof(was));
	KASSERT_TRUE(t, bootparam_set(p, "0", err, sizeof(err)) == 0);
	KEXPECT_EQ(t, thread_run_on(other, "ktest-bp", busy_wait_here, &r), 0);
	KEXPECT_MSG(t, r.until == 0, "polls on cpu %d with it 0", other);
	KEXPECT_EQ(t, bootparam_set(p, was, err, sizeof(err)), 0);
}

/* A holder's signature is its tag and its hold site, module relative:
 * the same site and tag hash the same, another tag or another site
 * differs, and the key is the symbol and offset, not the address. */
static void
holder_signature_stable(struct ktest *t)
{
	uintptr_t a = (uintptr_t)netdev_print_holders + 4,
	          b = (uintptr_t)netdev_wait_report + 4;
	struct sym_info si;
	char key[128];

	KEXPECT_EQ(t, ref_tracker_site_signature("devhold", a),
	           ref_tracker_site_signature("devhold", a));
	KEXPECT_NE(t, ref_tracker_site_signature("devhold", a),
	           ref_tracker_site_signature("dst", a));
	KEXPECT_NE(t, ref_tracker_site_signature("devhold", a),
	           ref_tracker_site_signature("devhold", b));
	KASSERT_TRUE(t, ksym_lookup(a, &si) == 0);
	snprintf(key, sizeof(key), "devhold|kernel|%s+0x%x", si.name,
	         (unsigned)(a - si.start));
	KEXPECT_EQ(t, ref_tracker_site_signature("devhold", a),
	           fnv1a32(key, strlen(key)));
}

/* Two holds from one call site share a hold stack (and its signature),
 * a hold from another site differs; the stack starts at the hold's own site and
 * goes on with its callers (this function's caller, the suite runner). */
static __attribute__((noinline)) void
hold_here(struct net_device *dev, struct ref_tracker *tr)
{
	dev_hold_track(dev, tr, "ktest");
}

static void
hold_stacks_grouped(struct ktest *t)
{
	struct net_device *dev = alloc_netdev(0, "ktst%d");
	struct ref_tracker ab[2], c;
	struct ref_tracker *a = &ab[0], *b = &ab[1];
	volatile int two = 2; /* a loop the compiler cannot unroll */
	const uintptr_t *f;
	struct sym_info si;
	int n;

	KASSERT_TRUE(t, dev != NULL);
	dev->holders.level = 2;
	for (int i = 0; i < two; i++) /* one call site, one stack */
		hold_here(dev, &ab[i]);
	dev_hold_track(dev, &c, "ktest");
	KEXPECT_NE(t, a->hold_stack, 0u);
	KEXPECT_EQ(t, a->hold_stack, b->hold_stack);
	KEXPECT_NE(t, a->hold_stack, c.hold_stack);
	KEXPECT_EQ(t, stack_signature(a->hold_stack, "ktest"),
	           stack_signature(b->hold_stack, "ktest"));
	KEXPECT_NE(t, stack_signature(a->hold_stack, "ktest"),
	           stack_signature(c.hold_stack, "ktest"));
	KEXPECT_NE(t, stack_signature(a->hold_stack, "ktest"),
	           stack_signature(a->hold_stack, "dst"));
	n = stack_frames(a->hold_stack, &f);
	KASSERT_TRUE(t, n >= 2);
	KEXPECT_TRUE(t, ksym_lookup(f[0], &si) == 0 &&
	                    strcmp(si.name, "hold_here") == 0);
	KEXPECT_TRUE(t, ksym_lookup(f[1], &si) == 0 &&
	                    strcmp(si.name, "hold_stacks_grouped") == 0);
	dev_put_track(dev, a);
	KEXPECT_NE(t, a->put_stack, 0u);
	KEXPECT_NE(t, a->put_stack, a->hold_stack);
	dev_put_track(dev, b);
	dev_put_track(dev, &c);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 0);
	free_netdev(dev);
}

/* A hold in interrupt context (a timer callback): its stack ends at the
 * interrupt's entry, not in whatever code the interrupt hit, so the same
 * hold site gives the same stack however often it runs. */
static struct net_device *irq_dev;
static struct ref_tracker irq_tr;
static volatile bool irq_held;

static void
hold_in_irq(struct timer *tm)
{
	(void)tm;
	dev_hold_track(irq_dev, &irq_tr, "ktest-irq");
	irq_held = true;
}

static void
irq_stack_ends_at_entry(struct ktest *t)
{
	extern char trap_returned[];
	struct timer tm;
	const uintptr_t *f;
	int n;

	irq_dev = alloc_netdev(0, "ktst%d");
	KASSERT_TRUE(t, irq_dev != NULL);
	irq_dev->holders.level = 2;
	irq_held = false;
	timer_init(&tm, hold_in_irq, NULL);
	timer_add(&tm, now_ms() + 1);
	while (!irq_held) /* a timer always fires: no bound needed */
		msleep(1);
	n = stack_frames(irq_tr.hold_stack, &f);
	KASSERT_TRUE(t, n >= 2);
	KEXPECT_EQ(t, f[n - 1], (uintptr_t)trap_returned - 1);
	dev_put_track(irq_dev, &irq_tr);
	free_netdev(irq_dev);
}

/* A second put of one tracker is reported (with the stacks where it was
 * taken, released and released again) and leaves the count alone: the
 * reference it would drop is someone else's. */
static void
double_release_reported(struct ktest *t)
{
	struct net_device *dev = alloc_netdev(0, "ktst%d");
	struct ref_tracker a, other;
	unsigned before = ref_tracker_double_releases;

	KASSERT_TRUE(t, dev != NULL);
	dev->holders.level = 2;
	dev_hold_track(dev, &a, "ktest");
	dev_hold_track(dev, &other, "ktest-other");
	dev_put_track(dev, &a);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1);
	dev_put_track(dev, &a);
	KEXPECT_EQ(t, ref_tracker_double_releases, before + 1);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 1); /* other's, still */
	dev_put_track(dev, &other);
	KEXPECT_EQ(t, netdev_refcnt_read(dev), 0);
	KEXPECT_EQ(t, ref_tracker_double_releases, before + 1);
	free_netdev(dev);
}

KTEST_SUITE(
    netdev, KTEST_CASE(names_and_indexes), KTEST_CASE(lookups_hold),
    KTEST_CASE(notifier_sequence), KTEST_CASE(ops_called_as_documented),
    KTEST_CASE(refcount_percpu), KTEST_CASE(refcount_atomic),
    KTEST_CASE(pcpu_slots_own_lines), KTEST_CASE(unregister_waits_for_holder),
    KTEST_CASE(interrupted_unregister_rolls_back),
    KTEST_CASE(try_hold_fails_when_unregistering),
    KTEST_CASE(napi_polls_in_thread), KTEST_CASE(busy_wait_off_net_rx_cpu),
    KTEST_CASE(busy_poll_off_at_zero), KTEST_CASE(holder_signature_stable),
    KTEST_CASE(hold_stacks_grouped), KTEST_CASE(irq_stack_ends_at_entry),
    KTEST_CASE(double_release_reported));
