/* Opening connections: both handshakes, SYN loss, refusal, timeouts,
 * MSS negotiation, the listen backlog. */
#include <string.h>

#include "tests/tcp/tests.h"

static void
three_way_handshake(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	const struct tn_log *syn, *synack, *ack;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	KT_ASSERT(t, s != NULL);
	syn = &n.log[0];
	synack = &n.log[1];
	ack = &n.log[2];
	KT_EXPECT_EQ(t, syn->from, TN_A);
	KT_EXPECT_EQ(t, syn->flags, TCP_SYN);
	KT_EXPECT_EQ(t, syn->mss, TCP_DEFAULT_MSS);
	KT_EXPECT_EQ(t, synack->from, TN_B);
	KT_EXPECT_EQ(t, synack->flags, TCP_SYN | TCP_ACK);
	KT_EXPECT_EQ(t, synack->ack, syn->seq + 1);
	KT_EXPECT_EQ(t, ack->flags, TCP_ACK);
	KT_EXPECT_EQ(t, ack->seq, syn->seq + 1);
	KT_EXPECT_EQ(t, ack->ack, synack->seq + 1);
	KT_EXPECT_EQ(t, n.nlog, 3);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	KT_EXPECT(t, n.events[TN_A] & TCP_EV_CONNECTED);
	KT_EXPECT(t, n.events[TN_B] & TCP_EV_ACCEPT);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->active_opens, 1);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->passive_opens, 1);
	/* The accept queue is empty again, the listener listens on. */
	KT_EXPECT_EQ(t, tcp_accept(l, &s), -EAGAIN);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_LISTEN), 1);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_ESTABLISHED), 1);
	tn_fini(&n);
}

static void
simultaneous_open(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *a, *b;

	tn_init(&n, t, NULL);
	KT_ASSERT(t, tcp_new(n.st[TN_A], &a) == 0);
	KT_ASSERT(t, tcp_new(n.st[TN_B], &b) == 0);
	KT_ASSERT(t, tcp_bind(a, 0, 1111) == 0);
	KT_ASSERT(t, tcp_bind(b, 0, 2222) == 0);
	KT_ASSERT(t, tcp_connect(a, TN_ADDR_A, TN_ADDR_B, 2222, 0) == 0);
	KT_ASSERT(t, tcp_connect(b, TN_ADDR_B, TN_ADDR_A, 1111, 0) == 0);
	/* The SYNs cross: each side goes SYN-SENT -> SYN-RECEIVED. */
	tn_run(&n, 10);
	KT_EXPECT_EQ(t, tcp_get_state(a), TCP_SYN_RECEIVED);
	KT_EXPECT_EQ(t, tcp_get_state(b), TCP_SYN_RECEIVED);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(a), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_state(b), TCP_ESTABLISHED);
	/* SYN, SYN-ACK and ACK from each side, nothing more. */
	KT_EXPECT_EQ(t, n.nlog, 6);
	KT_EXPECT_EQ(t, tcp_send(a, "x", 1, n.now), 1);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_recv(b, (char[4]){0}, 4, n.now), 1);
	KT_EXPECT(t, n.events[TN_A] & TCP_EV_CONNECTED);
	KT_EXPECT(t, n.events[TN_B] & TCP_EV_CONNECTED);
	tn_fini(&n);
}

static enum tn_verdict
drop_first_syn_and_synack(struct tnet *n, const struct tn_log *s, void *arg,
                          uint32_t *delay)
{
	int *dropped = arg;

	(void)n, (void)delay;
	if ((s->flags & TCP_SYN) && *dropped < 2 &&
	    ((*dropped == 0 && !(s->flags & TCP_ACK)) ||
	     (*dropped == 1 && (s->flags & TCP_ACK)))) {
		++*dropped;
		return TN_DROP;
	}
	return TN_PASS;
}

static void
syn_and_synack_lost(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	int dropped = 0;

	tn_init(&n, t, NULL);
	n.filter = drop_first_syn_and_synack;
	n.filter_arg = &dropped;
	tn_pair(&n, &c, &l, &s);
	KT_EXPECT_EQ(t, dropped, 2);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	/* SYN at 0, again after the initial RTO of 1 s.  Its SYN-ACK is
	 * lost, so B resends after 1 s of its own. */
	KT_EXPECT_EQ(t, n.log[0].at, 0);
	KT_EXPECT_EQ(t, n.log[1].at, 1000);
	KT_EXPECT_EQ(t, n.log[1].flags, TCP_SYN);
	KT_EXPECT_EQ(t, n.log[2].flags, TCP_SYN | TCP_ACK);
	KT_EXPECT_EQ(t, n.log[3].at, 2010);
	KT_EXPECT_EQ(t, n.log[3].flags, TCP_SYN | TCP_ACK);
	KT_EXPECT_EQ(t, n.log[3].seq, n.log[2].seq);
	tn_fini(&n);
}

/* A resent SYN that arrives while B is in SYN-RECEIVED brings the
 * SYN-ACK again at once. */
static enum tn_verdict
dup_syn(struct tnet *n, const struct tn_log *s, void *arg, uint32_t *delay)
{
	(void)n, (void)arg, (void)delay;
	return s->flags == TCP_SYN ? TN_DUP : TN_PASS;
}

static void
duplicate_syn(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;

	tn_init(&n, t, NULL);
	n.filter = dup_syn;
	tn_pair(&n, &c, &l, &s);
	KT_EXPECT_EQ(
	    t, tn_count(&n, TN_B, TCP_SYN | TCP_ACK, TCP_SYN | TCP_ACK), 2);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_ESTABLISHED), 1);
	KT_EXPECT_EQ(t, n.st[TN_B]->list_len[TCP_LIST_ACTIVE], 1);
	tn_fini(&n);
}

static void
connection_refused(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c;
	const struct tn_log *rst;

	tn_init(&n, t, NULL);
	c = tn_connect(&n, TN_A, 9);
	tn_run(&n, 100);
	rst = tn_last(&n, TN_B, TCP_RST, TCP_RST);
	KT_ASSERT(t, rst != NULL);
	KT_EXPECT_EQ(t, rst->flags, TCP_RST | TCP_ACK);
	KT_EXPECT_EQ(t, rst->seq, 0);
	KT_EXPECT_EQ(t, rst->ack, n.log[0].seq + 1);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ECONNREFUSED);
	KT_EXPECT(t, n.events[TN_A] & TCP_EV_ERROR);
	KT_EXPECT_EQ(t, tcp_send(c, "x", 1, n.now), -ECONNREFUSED);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->drops[TCP_DROP_NO_SOCKET],
	             1);
	tcp_close(&c, n.now);
	tn_fini(&n);
}

static enum tn_verdict
drop_all(struct tnet *n, const struct tn_log *s, void *arg, uint32_t *delay)
{
	(void)n, (void)s, (void)arg, (void)delay;
	return TN_DROP;
}

static void
connect_timeout_backoff(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c;
	static const uint64_t at[] = {0, 1000, 3000, 7000, 15000, 31000};
	unsigned i;

	tn_init(&n, t, NULL);
	n.filter = drop_all;
	c = tn_connect(&n, TN_A, 80);
	tn_run(&n, 62999);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_SYN_SENT);
	tn_run(&n, 2);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ETIMEDOUT);
	KT_ASSERT(t, n.nlog == 6);
	for (i = 0; i < 6; i++) {
		KT_EXPECT_EQ(t, n.log[i].at, at[i]);
		KT_EXPECT_EQ(t, n.log[i].seq, n.log[0].seq);
	}
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->timeouts, 1);
	tcp_close(&c, n.now);
	tn_fini(&n);
}

static void
mss_negotiation(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *c, *l, *s;
	static uint8_t big[3000], got[3000];
	unsigned i;

	tcp_config_default(&cfg);
	cfg.delack_ms = 0;
	cfg.mss = 1460;
	tn_init(&n, t, &cfg);
	cfg.mss = 1000;
	KT_ASSERT(t, tcp_set_config(n.st[TN_B], &cfg) == 0);
	cfg.mss = 2000; /* above what B was created with */
	KT_EXPECT_EQ(t, tcp_set_config(n.st[TN_B], &cfg), -EINVAL);
	tn_pair(&n, &c, &l, &s);
	KT_EXPECT_EQ(t, n.log[0].mss, 1460);
	KT_EXPECT_EQ(t, n.log[1].mss, 1000);
	KT_EXPECT_EQ(t, c->mss, 1000);
	KT_EXPECT_EQ(t, s->mss, 1000);
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	KT_EXPECT_EQ(t, tcp_send(c, big, sizeof(big), n.now), 3000);
	tn_run(&n, 500);
	for (i = 0; i < n.nlog; i++)
		KT_EXPECT(t, n.log[i].len <= 1000);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->bytes_out, 3000);
	KT_EXPECT_EQ(t, tn_drain(&n, s, got, sizeof(got)), 3000);
	KT_EXPECT(t, memcmp(big, got, sizeof(big)) == 0);
	tn_fini(&n);
}

/* A SYN without the option means 536 (RFC 9293 3.7.1); an absurdly
 * small option is raised to TCP_MIN_MSS. */
static void
mss_absent_and_tiny(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *l;
	struct tcp_seg syn = {.src = TN_ADDR_A,
	                      .dst = TN_ADDR_B,
	                      .sport = 5000,
	                      .dport = 80,
	                      .seq = 77,
	                      .flags = TCP_SYN,
	                      .wnd = 1000};
	struct tcp_pcb *child;

	tcp_config_default(&cfg);
	cfg.mss = 1460;
	tn_init(&n, t, &cfg);
	n.capture[TN_B] = true;
	l = tn_listen(&n, TN_B, 80, 4);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NONE);
	child = TCP_PCB_OF(n.st[TN_B]->lists[TCP_LIST_ACTIVE].next);
	KT_EXPECT_EQ(t, child->mss, 536);
	KT_EXPECT_EQ(t, n.log[0].mss, 1460);
	syn.sport = 5001;
	syn.mss = 1;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NONE);
	child = TCP_PCB_OF(n.st[TN_B]->lists[TCP_LIST_ACTIVE].prev);
	KT_EXPECT_EQ(t, child->rport, 5001);
	KT_EXPECT_EQ(t, child->mss, TCP_MIN_MSS);
	KT_EXPECT_EQ(t, l->nchild, 2);
	tn_fini(&n);
}

static void
backlog_overflow(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c[3], *s;
	int i;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 2);
	for (i = 0; i < 3; i++)
		c[i] = tn_connect(&n, TN_A, 80);
	tn_run(&n, 200);
	KT_EXPECT_EQ(t, tcp_get_state(c[0]), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_state(c[1]), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_state(c[2]), TCP_SYN_SENT);
	KT_EXPECT_EQ(t, l->nchild, 2);
	KT_EXPECT_EQ(
	    t, tcp_get_stats(n.st[TN_B])->drops[TCP_DROP_LISTEN_OVERFLOW], 1);
	/* Accepting makes room; the third SYN gets in when resent. */
	KT_ASSERT(t, tcp_accept(l, &s) == 0);
	tn_run(&n, 1500);
	KT_EXPECT_EQ(t, tcp_get_state(c[2]), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, l->nchild, 2);
	tn_fini(&n);
}

static bool
rst_seen_cond(struct tnet *n, void *arg)
{
	(void)arg;
	return tn_last(n, TN_B, TCP_RST, TCP_RST) != NULL;
}

static void
embryonic_timeout(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c;
	struct tcp_seg syn = {.src = TN_ADDR_A,
	                      .dst = TN_ADDR_B,
	                      .sport = 5000,
	                      .dport = 80,
	                      .seq = 77,
	                      .flags = TCP_SYN,
	                      .wnd = 1000};

	tn_init(&n, t, NULL);
	n.capture[TN_B] = true;
	l = tn_listen(&n, TN_B, 80, 1);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, l->nchild, 1);
	tn_run(&n, 64000);
	KT_EXPECT_EQ(t, l->nchild, 0);
	KT_EXPECT_EQ(t, tn_count(&n, TN_B, TCP_SYN, TCP_SYN), 6);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 1);
	/* Room again for a real client. */
	n.capture[TN_B] = false;
	c = tn_connect(&n, TN_A, 80);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	(void)rst_seen_cond;
	tn_fini(&n);
}

static void
listener_close_resets_children(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 4);
	c = tn_connect(&n, TN_A, 80);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	tcp_close(&l, n.now);
	tn_check(&n, "close listener");
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 0);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ECONNRESET);
	tn_fini(&n);
}

static void
going_refuses_new(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c, *x;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 4);
	tcp_set_going(n.st[TN_B], true);
	KT_EXPECT_EQ(t, tcp_new(n.st[TN_B], &x), -EPROTONOSUPPORT);
	KT_EXPECT(t, x == NULL);
	c = tn_connect(&n, TN_A, 80);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ECONNREFUSED);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->drops[TCP_DROP_LISTEN_GOING],
	             1);
	tcp_close(&c, n.now);
	/* Back to LIVE: everything works again. */
	tcp_set_going(n.st[TN_B], false);
	c = tn_connect(&n, TN_A, 80);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_accept(l, &x), 0);
	tn_fini(&n);
}

static void
bind_rules(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *a, *b, *e;

	tn_init(&n, t, NULL);
	KT_ASSERT(t, tcp_new(n.st[TN_B], &a) == 0);
	KT_ASSERT(t, tcp_new(n.st[TN_B], &b) == 0);
	KT_ASSERT(t, tcp_new(n.st[TN_B], &e) == 0);
	KT_EXPECT_EQ(t, tcp_bind(a, 0, 80), 0);
	KT_EXPECT_EQ(t, tcp_bind(b, TN_ADDR_B, 80), -EADDRINUSE);
	KT_EXPECT_EQ(t, tcp_bind(b, TN_ADDR_B, 81), 0);
	KT_EXPECT_EQ(t, tcp_bind(b, TN_ADDR_B, 82), -EINVAL);
	KT_EXPECT_EQ(t, tcp_bind(e, 0, 0), 0);
	KT_EXPECT(t, e->lport >= TCP_EPHEMERAL_LOW);
	KT_EXPECT_EQ(t, tcp_listen(a, 0), 0);
	KT_EXPECT_EQ(t, a->backlog, 1);
	KT_EXPECT_EQ(t, tcp_connect(a, TN_ADDR_B, TN_ADDR_A, 1, 0), -EINVAL);
	KT_EXPECT_EQ(t, tcp_send(e, "x", 1, 0), -ENOTCONN);
	KT_EXPECT_EQ(t, tcp_recv(e, (char[1]){0}, 1, 0), -ENOTCONN);
	tcp_close(&a, 0);
	tcp_close(&b, 0);
	tcp_close(&e, 0);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 0);
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(three_way_handshake),
    KT_CASE(simultaneous_open),
    KT_CASE(syn_and_synack_lost),
    KT_CASE(duplicate_syn),
    KT_CASE(connection_refused),
    KT_CASE(connect_timeout_backoff),
    KT_CASE(mss_negotiation),
    KT_CASE(mss_absent_and_tiny),
    KT_CASE(backlog_overflow),
    KT_CASE(embryonic_timeout),
    KT_CASE(listener_close_resets_children),
    KT_CASE(going_refuses_new),
    KT_CASE(bind_rules),
    KT_END,
};

const struct kt_suite tcp_suite_open = {"tcp_open", cases};
