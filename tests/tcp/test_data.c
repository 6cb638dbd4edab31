/* Data transfer: both directions, windows, persist, loss and the RTO,
 * fast retransmit, ACK policy, Nagle, a lossy wire. */
#include <stdlib.h>
#include <string.h>

#include "tests/tcp/tests.h"

static void
fill(uint8_t *b, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* Moves tx[] from `from` to `to` (and back, when tx2 is set) through
 * the wire, reading as it arrives; returns when all is read or after
 * max_ms. */
struct xfer {
	struct tcp_pcb *snd, *rcv;
	const uint8_t *tx;
	uint8_t *rx;
	size_t len, sent, got;
};

static void
xfer_step(struct tnet *n, struct xfer *x)
{
	long r;

	if (x->sent < x->len) {
		r = tcp_send(x->snd, x->tx + x->sent, x->len - x->sent, n->now);
		if (r > 0)
			x->sent += (size_t)r;
	}
	x->got += tn_drain(n, x->rcv, x->rx + x->got, x->len - x->got);
}

static bool
xfer_run(struct tnet *n, struct xfer *x, unsigned nx, uint64_t max_ms)
{
	uint64_t end = n->now + max_ms;
	unsigned i;
	bool done;

	do {
		done = true;
		for (i = 0; i < nx; i++) {
			xfer_step(n, &x[i]);
			done &= x[i].got == x[i].len;
		}
		if (done)
			return true;
		tn_run(n, 20);
	} while (n->now < end);
	return false;
}

static void
both_directions(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	static uint8_t a2b[100000], b2a[60000], ra[60000], rb[100000];
	struct xfer x[2] = {
	    {.tx = a2b, .rx = rb, .len = sizeof(a2b)},
	    {.tx = b2a, .rx = ra, .len = sizeof(b2a)},
	};

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	fill(a2b, sizeof(a2b), 1);
	fill(b2a, sizeof(b2a), 2);
	x[0].snd = c, x[0].rcv = s;
	x[1].snd = s, x[1].rcv = c;
	KT_EXPECT(t, xfer_run(&n, x, 2, 60000));
	KT_EXPECT(t, memcmp(a2b, rb, sizeof(a2b)) == 0);
	KT_EXPECT(t, memcmp(b2a, ra, sizeof(b2a)) == 0);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->retransmits, 0);
	/* No segment above the MSS, no window above the buffer. */
	for (unsigned i = 0; i < n.nlog; i++) {
		KT_EXPECT(t, n.log[i].len <= TCP_DEFAULT_MSS);
		KT_EXPECT(t, n.log[i].wnd <= 16384);
	}
	tn_fini(&n);
}

static bool
zero_window_cond(struct tnet *n, void *arg)
{
	(void)arg;
	const struct tn_log *l = tn_last(n, TN_B, TCP_ACK, TCP_ACK);
	return l != NULL && l->wnd == 0;
}

static void
zero_window_and_persist(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	static uint8_t tx[40000], rx[40000];
	size_t sent = 0, got;
	unsigned probes;
	long r;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	fill(tx, sizeof(tx), 3);
	/* B never reads: its 16 KiB window closes, and A has 16 KiB more
	 * queued behind it. */
	KT_EXPECT(t, !zero_window_cond(&n, NULL));
	while (sent < 32768 && n.now < 10000) {
		r = tcp_send(c, tx + sent, sizeof(tx) - sent, n.now);
		if (r > 0)
			sent += (size_t)r;
		tn_run(&n, 10);
	}
	KT_EXPECT_EQ(t, sent, 32768);
	KT_EXPECT_EQ(t, tcp_send(c, tx, 1, n.now), -EAGAIN);
	KT_EXPECT(t, zero_window_cond(&n, NULL));
	KT_EXPECT_EQ(t, s->rcvq.len, 16384);
	KT_EXPECT_EQ(t, c->snd_wnd, 0);
	KT_EXPECT_EQ(t, c->snd_una, c->snd_max);
	KT_EXPECT(t, c->persist_at != TCP_TIMER_OFF);
	/* Ten minutes of probes answered with a zero window: the
	 * connection stays (RFC 1122 4.2.2.17), probes back off. */
	tn_run(&n, 600000);
	probes = (unsigned)tcp_get_stats(n.st[TN_A])->persist_probes;
	KT_EXPECT(t, probes >= 8 && probes <= 20);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->timeouts, 0);
	/* Reading opens the window with an immediate update. */
	got = tn_drain(&n, s, rx, sizeof(rx));
	KT_EXPECT_EQ(t, got, 16384);
	KT_EXPECT(t, tn_last(&n, TN_B, TCP_ACK, TCP_ACK)->wnd == 16384);
	while (sent < sizeof(tx) || got < sizeof(tx)) {
		r = tcp_send(c, tx + sent, sizeof(tx) - sent, n.now);
		if (r > 0)
			sent += (size_t)r;
		tn_run(&n, 50);
		got += tn_drain(&n, s, rx + got, sizeof(rx) - got);
		if (n.now > 700000)
			break;
	}
	KT_EXPECT_EQ(t, got, sizeof(tx));
	KT_EXPECT(t, memcmp(tx, rx, sizeof(tx)) == 0);
	tn_fini(&n);
}

struct drop_n {
	unsigned n;    /* data segments from A to drop */
	unsigned skip; /* let this many data segments through first */
	unsigned seen;
};

static enum tn_verdict
drop_data(struct tnet *n, const struct tn_log *s, void *arg, uint32_t *delay)
{
	struct drop_n *d = arg;

	(void)n, (void)delay;
	if (s->from != TN_A || s->len == 0)
		return TN_PASS;
	if (d->seen++ < d->skip)
		return TN_PASS;
	if (d->n == 0)
		return TN_PASS;
	d->n--;
	return TN_DROP;
}

static void
rto_backoff(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	struct drop_n d = {.n = 3};
	uint64_t t0;
	uint8_t rx[8];
	unsigned i, k = 0;
	uint64_t at[4];

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.filter = drop_data;
	n.filter_arg = &d;
	t0 = n.now;
	KT_EXPECT_EQ(t, tcp_send(c, "payload", 7, n.now), 7);
	tn_run(&n, 20000);
	for (i = 0; i < n.nlog && k < 4; i++)
		if (n.log[i].from == TN_A && n.log[i].len == 7)
			at[k++] = n.log[i].at - t0;
	KT_ASSERT(t, k == 4);
	/* RTO 1 s (the floor), then doubled each time (RFC 6298 5.5). */
	KT_EXPECT_EQ(t, at[0], 0);
	KT_EXPECT_EQ(t, at[1], 1000);
	KT_EXPECT_EQ(t, at[2], 3000);
	KT_EXPECT_EQ(t, at[3], 7000);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->rto_expired, 3);
	KT_EXPECT_EQ(t, tn_drain(&n, s, rx, sizeof(rx)), 7);
	/* Karn: no sample from the retransmission, the RTO stays backed
	 * off until new data is timed. */
	KT_EXPECT_EQ(t, c->rto, 8000);
	KT_EXPECT_EQ(t, c->retries, 0);
	KT_EXPECT_EQ(t, tcp_send(c, "x", 1, n.now), 1);
	tn_run(&n, 1000);
	KT_EXPECT_EQ(t, c->rto, 1000);
	tn_fini(&n);
}

static void
retries_exhausted(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	struct drop_n d = {.n = 1000};

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.filter = drop_data;
	n.filter_arg = &d;
	KT_EXPECT_EQ(t, tcp_send(c, "lost", 4, n.now), 4);
	/* 1+2+4+8+16+32 s, then the 60 s ceiling seven times: 483 s. */
	tn_run(&n, 482000);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	tn_run(&n, 2000);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ETIMEDOUT);
	KT_EXPECT_EQ(t, tcp_send(c, "x", 1, n.now), -ETIMEDOUT);
	KT_EXPECT_EQ(t, tcp_recv(c, (char[4]){0}, 4, n.now), -ETIMEDOUT);
	KT_EXPECT(t, n.events[TN_A] & TCP_EV_ERROR);
	KT_EXPECT_EQ(t, tn_count(&n, TN_A, TCP_RST, TCP_RST), 0);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	tn_fini(&n);
}

static void
rtt_estimator(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *p;

	tcp_config_default(&cfg);
	cfg.rto_min_ms = 10;
	tn_init(&n, t, &cfg);
	KT_ASSERT(t, tcp_new(n.st[TN_A], &p) == 0);
	/* RFC 6298 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR. */
	tcp_rtt_sample(p, 100);
	KT_EXPECT_EQ(t, p->srtt8 / 8, 100);
	KT_EXPECT_EQ(t, p->rttvar4 / 4, 50);
	KT_EXPECT_EQ(t, p->rto, 300);
	/* 2.3: RTTVAR = 3/4 50 + 1/4 |100 - 200| = 62.5, SRTT = 112.5. */
	tcp_rtt_sample(p, 200);
	KT_EXPECT_EQ(t, p->srtt8, 900);
	KT_EXPECT_EQ(t, p->rttvar4, 250);
	KT_EXPECT_EQ(t, p->rto, 362);
	/* 2.4 and 2.5: clamped to [min, max]. */
	tcp_rtt_sample(p, 500000);
	KT_EXPECT_EQ(t, p->rto, 60000);
	tcp_close(&p, 0);
	tn_fini(&n);
}

static void
fast_retransmit(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	static uint8_t tx[40000], rx[40000];
	struct drop_n d = {.n = 1, .skip = 12};
	struct xfer x = {.tx = tx, .rx = rx, .len = sizeof(tx)};

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.filter = drop_data;
	n.filter_arg = &d;
	fill(tx, sizeof(tx), 4);
	x.snd = c;
	x.rcv = s;
	KT_EXPECT(t, xfer_run(&n, &x, 1, 30000));
	KT_EXPECT(t, memcmp(tx, rx, sizeof(tx)) == 0);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->fast_retransmits, 1);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->rto_expired, 0);
	/* B kept what followed the hole and acknowledged it all at once. */
	KT_EXPECT(t, tcp_get_stats(n.st[TN_B])->ooo_queued >= 3);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->drops[TCP_DROP_OUT_OF_ORDER],
	             0);
	tn_fini(&n);
}

/*
 * cfg.ack_stretch: in-order data is acknowledged by the tick that ends
 * its batch of arrivals (here, the segments delivered in the same
 * millisecond), or at once when ack_stretch bytes are unacknowledged;
 * never a delayed-ACK time later.  16 KiB go across with fewer ACKs
 * than one per two segments, all of it acknowledged and intact.
 */
static void
stretch_acks(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *c, *l, *s;
	static uint8_t data[16384], got[16384];
	const struct tn_log *ack;
	unsigned first, segs = 0, acks = 0;
	size_t have = 0;
	uint64_t t0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13);
	tcp_config_default(&cfg);
	cfg.delack_ms = 100;
	cfg.ack_stretch = 4 * TCP_DEFAULT_MSS;
	tn_init(&n, t, &cfg);
	tn_pair(&n, &c, &l, &s);
	t0 = n.now;
	KT_EXPECT_EQ(t, tcp_send(c, "a", 1, n.now), 1);
	tn_run(&n, 500);
	ack = tn_last(&n, TN_B, TCP_ACK, TCP_ACK);
	KT_EXPECT_EQ(t, ack->at - t0, 10); /* not 10 + 100 */
	KT_EXPECT_EQ(t, ack->ack, c->snd_max);
	KT_EXPECT(t, tcp_acks_deferred(n.st[TN_B]));
	KT_EXPECT(t, !tcp_acks_deferred(n.st[TN_B])); /* once */
	KT_EXPECT_EQ(t, tn_drain(&n, s, got, sizeof(got)), 1);

	first = n.nlog;
	for (size_t sent = 0; sent < sizeof(data) || have < sizeof(data);) {
		long w = tcp_send(c, data + sent, sizeof(data) - sent, n.now);

		if (w > 0)
			sent += (size_t)w;
		tn_run(&n, 20);
		have += tn_drain(&n, s, got + have, sizeof(got) - have);
	}
	tn_run(&n, 500);
	for (unsigned i = first; i < n.nlog; i++) {
		segs += n.log[i].from == TN_A && n.log[i].len > 0;
		acks += n.log[i].from == TN_B;
	}
	KT_EXPECT(t, segs >= 30); /* 16 KiB of 536-byte segments */
	KT_EXPECT(t, acks > 0 && 2 * acks < segs);
	KT_EXPECT_EQ(t, c->snd_una, c->snd_max);
	KT_EXPECT(t, memcmp(got, data, sizeof(data)) == 0);
	tn_fini(&n);
}

/*
 * A read sends a window update only when the window the peer has left
 * is at most half the buffer and the new one at least twice it (as
 * Linux): with more than half left, the peer is not held back and the
 * ACKs of its next data carry the new edge.
 */
static void
window_update_after_read(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *c, *l, *s;
	static uint8_t data[16384], got[16384];
	unsigned before;
	const struct tn_log *upd;

	tcp_config_default(&cfg); /* rcvbuf 16 KiB */
	tn_init(&n, t, &cfg);
	tn_pair(&n, &c, &l, &s);
	/* 4 KiB unread: 12 KiB of window left, more than half. */
	KT_EXPECT_EQ(t, tcp_send(c, data, 4096, n.now), 4096);
	tn_run(&n, 500);
	KT_EXPECT_EQ(t, s->rcv_adv - s->rcv_nxt, 12288);
	before = tn_count(&n, TN_B, 0, 0);
	KT_EXPECT_EQ(t, tn_drain(&n, s, got, sizeof(got)), 4096);
	tn_run(&n, 500);
	KT_EXPECT_EQ(t, tn_count(&n, TN_B, 0, 0), before); /* no update */
	/* Fill the buffer: the window left drops below half; reading it
	 * all opens 16 KiB, more than twice: one update says so. */
	KT_EXPECT_EQ(t, tcp_send(c, data, sizeof(data), n.now),
	             (long)sizeof(data));
	tn_run(&n, 500);
	KT_EXPECT(t, s->rcv_adv - s->rcv_nxt <= 8192);
	before = tn_count(&n, TN_B, 0, 0);
	KT_EXPECT_EQ(t, tn_drain(&n, s, got, sizeof(got)), 16384);
	tn_run(&n, 500);
	KT_EXPECT_EQ(t, tn_count(&n, TN_B, 0, 0), before + 1);
	upd = tn_last(&n, TN_B, TCP_ACK, TCP_ACK);
	KT_EXPECT_EQ(t, upd->wnd, 16384);
	tn_fini(&n);
}

static void
delayed_ack(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *c, *l, *s;
	static uint8_t two[2 * TCP_DEFAULT_MSS];
	const struct tn_log *ack;
	uint64_t t0;

	tcp_config_default(&cfg);
	cfg.delack_ms = 100;
	tn_init(&n, t, &cfg);
	tn_pair(&n, &c, &l, &s);
	t0 = n.now;
	KT_EXPECT_EQ(t, tcp_send(c, "a", 1, n.now), 1);
	tn_run(&n, 500);
	ack = tn_last(&n, TN_B, TCP_ACK, TCP_ACK);
	/* Arrives after 10 ms, acknowledged 100 ms later. */
	KT_EXPECT_EQ(t, ack->at - t0, 110);
	KT_EXPECT_EQ(t, ack->ack, c->snd_max);
	/* Two full segments: the second is acknowledged at once. */
	t0 = n.now;
	KT_EXPECT_EQ(t, tcp_send(c, two, sizeof(two), n.now), sizeof(two));
	tn_run(&n, 500);
	ack = tn_last(&n, TN_B, TCP_ACK, TCP_ACK);
	KT_EXPECT_EQ(t, ack->at - t0, 10);
	tn_fini(&n);
}

static unsigned
data_segments(const struct tnet *n, int from)
{
	unsigned i, c = 0;

	for (i = 0; i < n->nlog; i++)
		c += n->log[i].from == from && n->log[i].len != 0;
	return c;
}

static void
nagle(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	unsigned before;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	before = n.nlog;
	KT_EXPECT_EQ(t, tcp_send(c, "a", 1, n.now), 1);
	KT_EXPECT_EQ(t, tcp_send(c, "b", 1, n.now), 1);
	KT_EXPECT_EQ(t, tcp_send(c, "c", 1, n.now), 1);
	/* One small segment in flight; the rest waits for its ACK. */
	KT_EXPECT_EQ(t, n.nlog, before + 1);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, data_segments(&n, TN_A), 2); /* "a", then "bc" */
	KT_EXPECT_EQ(t, tn_last(&n, TN_A, TCP_PSH, TCP_PSH)->len, 2);
	tn_fini(&n);
}

/* A wire that drops, duplicates and reorders, with a seeded PRNG. */
struct chaos {
	unsigned seed;
};

static enum tn_verdict
chaos(struct tnet *n, const struct tn_log *s, void *arg, uint32_t *delay)
{
	struct chaos *c = arg;
	unsigned r;

	(void)n, (void)s;
	c->seed = c->seed * 1103515245u + 12345u;
	r = (c->seed >> 16) % 100;
	if (r < 8)
		return TN_DROP;
	if (r < 13)
		return TN_DUP;
	if (r < 30) {
		*delay = (c->seed >> 8) % 40;
		return TN_DELAY;
	}
	return TN_PASS;
}

static bool
all_gone(struct tnet *n, void *arg)
{
	(void)arg;
	return n->st[0]->npcbs == 0 && n->st[1]->npcbs <= 1;
}

static void
lossy_wire(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	static uint8_t a2b[200000], b2a[100000], ra[100000], rb[200000];
	struct chaos ch = {.seed = 42};
	struct xfer x[2] = {
	    {.tx = a2b, .rx = rb, .len = sizeof(a2b)},
	    {.tx = b2a, .rx = ra, .len = sizeof(b2a)},
	};

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.filter = chaos;
	n.filter_arg = &ch;
	fill(a2b, sizeof(a2b), 5);
	fill(b2a, sizeof(b2a), 6);
	x[0].snd = c, x[0].rcv = s;
	x[1].snd = s, x[1].rcv = c;
	KT_EXPECT(t, xfer_run(&n, x, 2, 600000));
	KT_EXPECT(t, memcmp(a2b, rb, sizeof(a2b)) == 0);
	KT_EXPECT(t, memcmp(b2a, ra, sizeof(b2a)) == 0);
	KT_EXPECT(t, tcp_get_stats(n.st[TN_A])->retransmits > 0);
	kt_diag("lossy: %llu ms, A retransmits %llu (fast %llu, rto %llu)",
	        (unsigned long long)n.now,
	        (unsigned long long)tcp_get_stats(n.st[TN_A])->retransmits,
	        (unsigned long long)tcp_get_stats(n.st[TN_A])->fast_retransmits,
	        (unsigned long long)tcp_get_stats(n.st[TN_A])->rto_expired);
	/* Both close; everything but the listener goes away in the end. */
	tcp_close(&c, n.now);
	tcp_close(&s, n.now);
	KT_EXPECT(t, tn_run_cond(&n, all_gone, NULL, 700000));
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(both_directions),
    KT_CASE(zero_window_and_persist),
    KT_CASE(rto_backoff),
    KT_CASE(retries_exhausted),
    KT_CASE(rtt_estimator),
    KT_CASE(fast_retransmit),
    KT_CASE(delayed_ack),
    KT_CASE(stretch_acks),
    KT_CASE(window_update_after_read),
    KT_CASE(nagle),
    KT_CASE(lossy_wire),
    KT_END,
};

const struct kt_suite tcp_suite_data = {"tcp_data", cases};
