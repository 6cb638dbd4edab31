/*
 * tcp.ko: module entry points, the stack and its lock, IP input and
 * output, and the clock.  See tcp_mod.h for the file map and locking.
 *
 * The clock is a kernel timer that queues tcp_work; the work runs
 * tcp_tick(), the echo service and the unload bookkeeping, then re-arms
 * the timer for the core's next deadline (at most 100 ms away, so MSL
 * changes and services are noticed).  No thread runs module code, so
 * exit only has to cancel the timer and the work.
 */
#include "net/tcp/ko/tcp_mod.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/tcp/resident/tcp_persist.h"
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/debug/trace.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/work.h>
#include <kernel/arch/x86.h>

#define TXQ_MAX     256 /* emitted segments waiting to be sent */
#define TICK_MAX_MS 100

struct tcp_stack *tcp_stack;
DEFINE_SPINLOCK(tcp_lock);
DEFINE_WAITQ(tcp_wq);
volatile uint32_t tcp_events;

struct txq_ent {
	struct sk_buff *skb;
	uint32_t src, dst;
	uint32_t una; /* for report_seg */
	bool rexmit;
};
/* Under tcp_lock: the segments emitted and not yet sent, and whether a
 * thread is sending them (tcp_unlock_flush). */
static struct txq_ent txq[TXQ_MAX];
static unsigned txq_head, txq_len;
static bool flushing;
static unsigned long txq_dropped, rx_bcast_dropped;

/* Testing: spin this many pauses between taking a segment off the queue
 * and handing it to IP, to widen the window in which another CPU could
 * transmit a later segment first (tcp-order.scn). */
static unsigned int tx_delay_loops;
MODULE_PARAM(tx_delay_loops, UINT,
             "test: spin between dequeuing a segment and sending it");

static struct timer tcp_timer;
static struct work tcp_work;
static volatile bool stopping;
static uint32_t cur_msl;

uint32_t
tcp_lock_irqsave(void)
{
	return spin_lock_irqsave(&tcp_lock);
}

/*
 * What a capture audit cannot tell from the wire alone, said on the
 * console for each segment that occupies sequence space (data, SYN or
 * FIN; losing a pure ACK leaves no trace in the sequence space):
 *   - "not sent (ERR)": it never reached the wire, so the peer and a
 *     capture see a sequence gap until the retransmission;
 *   - "retransmitted (una U)": sent again because no ACK for it had
 *     reached this TCP (SND.UNA was U), even if the capture shows the
 *     peer's ACK: a NIC that was down lost it, or it came late.
 * The harness accepts a "sequence gap" or a "spurious retransmission"
 * on a stream only where the guest printed the line for that very
 * segment (docs/harness.md).  Warnings, so that a stress worker's
 * captured output does not swallow them.
 */
static void
report_seg(const struct tcp_seg *seg, int err, uint32_t una)
{
	char a[16], b[16], what[40];

	if (seg->len == 0 && !(seg->flags & (TCP_SYN | TCP_FIN)))
		return;
	if (err < 0)
		snprintf(what, sizeof(what), "not sent (%s)", errno_name(err));
	else
		snprintf(what, sizeof(what), "retransmitted (una %u)",
		         (unsigned)una);
	pr_warn("tcp: segment %s: %s:%u -> %s:%u seq %u len %u%s%s\n", what,
	        inet_ntoa_r(seg->src, a), seg->sport, inet_ntoa_r(seg->dst, b),
	        seg->dport, (unsigned)seg->seq, (unsigned)seg->len,
	        (seg->flags & TCP_SYN) ? " SYN" : "",
	        (seg->flags & TCP_FIN) ? " FIN" : "");
}

/* What report_seg needs of a built segment (ip_send consumes it). */
static void
seg_of_skb(const struct txq_ent *e, struct tcp_seg *seg)
{
	const uint8_t *h = e->skb->data;
	unsigned hlen = (unsigned)(h[12] >> 4) * 4u;

	seg->src = e->src;
	seg->dst = e->dst;
	seg->sport = get_be16(h);
	seg->dport = get_be16(h + 2);
	seg->seq = get_be32(h + 4);
	seg->flags = h[13];
	seg->len = e->skb->len > hlen ? e->skb->len - hlen : 0;
}

/* env->emit, lock held: build the segment into an skb and queue it. */
static void
tcp_emit(void *ctx, const struct tcp_seg *seg)
{
	size_t len = TCP_HDR_LEN + (seg->mss != 0 ? 4 : 0) + seg->len;
	struct sk_buff *skb;
	long n;

	(void)ctx;
	if (txq_len == TXQ_MAX || (skb = inet_alloc_skb(len)) == NULL) {
		txq_dropped++; /* the core retransmits */
		report_seg(seg, txq_len == TXQ_MAX ? -ENOSPC : -ENOMEM, 0);
		return;
	}
	n = tcp_build(seg, skb->data, len);
	if (n < 0) {
		kfree_skb(skb);
		txq_dropped++;
		report_seg(seg, (int)n, 0);
		return;
	}
	skb->len = (unsigned)n;
	txq[(txq_head + txq_len) % TXQ_MAX] =
	    (struct txq_ent){skb, seg->src, seg->dst, seg->una, seg->rexmit};
	txq_len++;
}

/* debug_invariants: the PCB lists are checked on every unlock, so a
 * broken list panics with the code that broke it on the stack. */
static void
tcp_debug_check_locked(void)
{
	const char *why;

	if (!debug_invariants || tcp_stack == NULL)
		return;
	why = tcp_pcbs_sane(tcp_stack);
	if (why != NULL)
		panic("tcp: tcp_pcbs_sane: %s", why);
}

static const char *
tcp_invariant(char *buf, size_t size)
{
	const char *why = NULL;
	uint32_t f = tcp_lock_irqsave();

	if (tcp_stack != NULL)
		why = tcp_pcbs_sane(tcp_stack);
	if (why != NULL) {
		strlcpy(buf, why, size);
		why = buf;
	}
	spin_unlock_irqrestore(&tcp_lock, f);
	return why;
}

static struct invariant tcp_pcbs_invariant = {
    .name = "tcp_pcbs",
    .check = tcp_invariant,
};

/*
 * Unlock and transmit what the core emitted, in the order it emitted it.
 * Segments are sent with tcp_lock dropped (IP, ARP and the driver take
 * their own locks, and a local delivery would come back into tcp_rcv), so
 * two CPUs that each took one off the queue could put them on the wire
 * swapped.  Hence one flusher at a time: whoever finds `flushing` set
 * leaves its segments in the queue, and the flusher that is running
 * sends them after its own, before it lets go (it rechecks the queue
 * under the lock it clears the flag with).  A flusher that re-entered
 * (through a local delivery) would only queue, like any other.  The
 * price: a flusher preempted between two segments holds back the
 * others' until it runs again.
 */
void
tcp_unlock_flush(uint32_t flags)
{
	struct txq_ent e;
	struct tcp_seg seg;
	int r;

	ASSERT(spin_held(&tcp_lock));
	tcp_debug_check_locked();
	if (flushing) {
		spin_unlock_irqrestore(&tcp_lock, flags);
		return; /* the running flusher sends ours too */
	}
	flushing = true;
	while (txq_len > 0) {
		e = txq[txq_head];
		txq_head = (txq_head + 1) % TXQ_MAX;
		txq_len--;
		spin_unlock_irqrestore(&tcp_lock, flags);
		for (unsigned i = 0; i < tx_delay_loops; i++)
			cpu_relax();
		seg_of_skb(&e, &seg);
		r = ip_send(e.skb, e.src, e.dst, IP_PROTO_TCP, 0);
		if (r < 0 || e.rexmit)
			report_seg(&seg, r < 0 ? r : 0, e.una);
		flags = spin_lock_irqsave(&tcp_lock);
	}
	flushing = false;
	spin_unlock_irqrestore(&tcp_lock, flags);
}

static uint32_t
tcp_isn(void *ctx, uint32_t laddr, uint16_t lport, uint32_t raddr,
        uint16_t rport, uint64_t now)
{
	(void)ctx;
	return tcp_persist_isn(laddr, lport, raddr, rport, now);
}

static void *
tcp_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return kmalloc(size, TCP_TAG);
}

static void
tcp_free(void *ctx, void *p)
{
	(void)ctx;
	kfree(p);
}

/* env->event, lock held: wake whoever waits on the pcb. */
static void
tcp_event(void *ctx, struct tcp_pcb *pcb, unsigned ev)
{
	struct tcp_user *u = tcp_get_user(pcb);

	(void)ctx;
	ASSERT(spin_held(&tcp_lock)); /* tcp_events counts under it */
	tcp_events++;
	if (u != NULL && u->kind == TCP_USER_SOCK)
		tcp_sock_event(pcb, u, ev);
	else if (u != NULL && u->kind == TCP_USER_ECHO)
		tcp_echo_event(u);
	wake_up(&tcp_wq);
}

/* env->time_wait: the timer on the timeline (kernel/debug/trace.h). */
static void
tcp_time_wait(void *ctx, const void *pcb, uint16_t lport, uint16_t rport,
              bool armed)
{
	char name[16];

	(void)ctx;
	if (!trace_on)
		return;
	snprintf(name, sizeof(name), "tcp:%u-%u", lport, rport);
	trace_record(TRACE_SOCK_PHASE, pcb, name, NULL,
	             armed ? "time-wait-armed" : "time-wait-expired",
	             (uintptr_t)__builtin_return_address(0), 0, 0);
}

void
tcp_sync_config(void)
{
	struct tcp_config cfg;

	if ((uint32_t)tcp_msl_ms == cur_msl)
		return;
	cfg = *tcp_get_config(tcp_stack);
	cfg.msl_ms = (uint32_t)tcp_msl_ms;
	if (tcp_set_config(tcp_stack, &cfg) == 0)
		cur_msl = cfg.msl_ms;
}

void
tcp_kick(void)
{
	if (!stopping)
		schedule_work(&tcp_work);
}

static void
tcp_timer_fn(struct timer *t)
{
	(void)t;
	tcp_kick();
}

static void
tcp_work_fn(struct work *w)
{
	uint64_t now = now_ms(), next;
	uint32_t f;

	(void)w;
	f = tcp_lock_irqsave();
	tcp_sync_config();
	next = tcp_tick(tcp_stack, now);
	tcp_unlock_flush(f);
	tcp_echo_work();
	tcp_unload_tick();
	wake_up(&tcp_wq);
	if (next > now + TICK_MAX_MS)
		next = now + TICK_MAX_MS;
	if (!stopping)
		timer_add(&tcp_timer, next);
}

/* IP protocol 6.  Runs under rcu_read_lock (rcu_rx), also while rmmod
 * waits, so established connections and TIME_WAIT keep answering. */
static void
tcp_rcv(struct sk_buff *skb, const struct inet_rx_info *ri)
{
	uint32_t f;
	bool kick;

	/* RFC 1122 4.2.3.10: no TCP to broadcast or multicast. */
	if (ri->link_bcast || ri->dst == IPV4_BROADCAST ||
	    inet_addr_is_bcast(ri->ifindex, ri->dst)) {
		rx_bcast_dropped++;
		kfree_skb(skb);
		return;
	}
	f = tcp_lock_irqsave();
	tcp_input(tcp_stack, ri->src, ri->dst, skb->data, skb->len, now_ms());
	kick = tcp_acks_deferred(tcp_stack);
	tcp_unlock_flush(f);
	/* The ACK the core left for the tick goes when this batch of
	 * frames is done: the work runs after net_rx lets go of the CPU. */
	if (kick)
		tcp_kick();
	kfree_skb(skb);
}

static const struct inet_protocol tcp_protocol = {
    .proto = IP_PROTO_TCP,
    .handler = tcp_rcv,
    .owner = THIS_MODULE,
    .rcu_rx = true,
};

static const struct tcp_env tcp_env = {
    .emit = tcp_emit,
    .isn = tcp_isn,
    .alloc = tcp_alloc,
    .free = tcp_free,
    .event = tcp_event,
    .time_wait = tcp_time_wait,
};

static int
tcp_mod_init(void)
{
	struct tcp_config cfg;
	int r;

	tcp_config_default(&cfg);
	cfg.mss = 1460; /* Ethernet MTU 1500 - IP and TCP headers */
	cfg.sndbuf = 32768;
	/* A buffer twice the largest window (no window scaling: QEMU's user
	 * network never offers it) keeps the full 64 KiB open while the
	 * reader is up to 64 KiB behind; an ACK for every 48 KiB (three
	 * quarters of the window: 10% more host -> guest than 32 KiB, and
	 * 56 KiB no better), else one per receive batch.  docs/tcp.md,
	 * "Receive throughput". */
	cfg.rcvbuf = 131072;
	cfg.ack_stretch = 49152;
	cfg.msl_ms = (uint32_t)tcp_msl_ms;
	cur_msl = cfg.msl_ms;
	r = tcp_stack_create(&cfg, &tcp_env, &tcp_stack);
	if (r != 0)
		return r;
	stopping = false;
	txq_head = txq_len = 0;
	flushing = false;
	timer_init(&tcp_timer, tcp_timer_fn, NULL);
	work_init(&tcp_work, tcp_work_fn);
	r = sock_register(&tcp_proto_ops);
	if (r != 0)
		goto out_stack;
	r = inet_add_protocol(&tcp_protocol);
	if (r != 0)
		goto out_sock;
	tcp_cmds_register();
	invariant_register(&tcp_pcbs_invariant);
	timer_add(&tcp_timer, now_ms() + TICK_MAX_MS);
	return 0;

out_sock:
	sock_unregister(&tcp_proto_ops);
out_stack:
	tcp_stack_destroy(tcp_stack);
	tcp_stack = NULL;
	return r;
}

static void
tcp_mod_exit(void)
{
	uint32_t f;

	invariant_unregister(&tcp_pcbs_invariant);
	tcp_cmds_unregister();
	stopping = true;
	cancel_work_sync(&tcp_work);
	timer_del(&tcp_timer);
	cancel_work_sync(&tcp_work);
	inet_del_protocol(&tcp_protocol); /* waits for running tcp_rcv */
	sock_unregister(&tcp_proto_ops);
	tcp_echo_exit();
	f = tcp_lock_irqsave();
	ASSERT(!flushing); /* every caller of the module has returned */
	tcp_stack_destroy(tcp_stack);
	tcp_stack = NULL;
	while (txq_len > 0) {
		kfree_skb(txq[txq_head].skb);
		txq_head = (txq_head + 1) % TXQ_MAX;
		txq_len--;
	}
	spin_unlock_irqrestore(&tcp_lock, f);
}

module_init(tcp_mod_init);
module_exit(tcp_mod_exit);
MODULE_DESCRIPTION("TCP (RFC 9293) as a loadable protocol: sockets, "
                   "tcpecho, TIME_WAIT-aware unload");
