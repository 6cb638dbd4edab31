/* Whole-table operations the unload path relies on: counts by state,
 * the TIME_WAIT list (order, longest, purge), reset of everything with
 * the RST the peer sees, ss-style info, and the consistency checker. */
#include <string.h>

#include "tests/tcp/tests.h"

/* n connections A -> B:80, each handshake finished; srv[] accepted. */
static void
connect_many(struct tnet *n, struct tcp_pcb *l, struct tcp_pcb **cli,
             struct tcp_pcb **srv, int count)
{
	int i;

	for (i = 0; i < count; i++)
		cli[i] = tn_connect(n, TN_A, 80);
	tn_run(n, 100);
	for (i = 0; i < count; i++)
		if (tcp_accept(l, &srv[i]) != 0)
			kt_fail(n->t, __FILE__, __LINE__, "accept %d", i);
}

static void
counts_by_state(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c[5], *s[5], *x;
	unsigned counts[TCP_NSTATES], total;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 8);
	connect_many(&n, l, c, s, 5);
	tcp_close(&c[0], n.now); /* A: TIME_WAIT after B closes too */
	tcp_close(&c[1], n.now); /* A: FIN_WAIT_2, B: CLOSE_WAIT */
	tn_run(&n, 100);
	tcp_close(&s[0], n.now);
	tn_run(&n, 100);
	KT_ASSERT(t, tcp_new(n.st[TN_A], &x) == 0); /* CLOSED */
	total = tcp_count_by_state(n.st[TN_A], counts);
	KT_EXPECT_EQ(t, total, 6);
	KT_EXPECT_EQ(t, counts[TCP_CLOSED], 1);
	KT_EXPECT_EQ(t, counts[TCP_ESTABLISHED], 3);
	KT_EXPECT_EQ(t, counts[TCP_FIN_WAIT_2], 1);
	KT_EXPECT_EQ(t, counts[TCP_TIME_WAIT], 1);
	total = tcp_count_by_state(n.st[TN_B], counts);
	KT_EXPECT_EQ(t, total, 5);
	KT_EXPECT_EQ(t, counts[TCP_LISTEN], 1);
	KT_EXPECT_EQ(t, counts[TCP_ESTABLISHED], 3);
	KT_EXPECT_EQ(t, counts[TCP_CLOSE_WAIT], 1);
	/* The lists agree with the counts. */
	KT_EXPECT_EQ(t, n.st[TN_A]->list_len[TCP_LIST_TIME_WAIT], 1);
	KT_EXPECT_EQ(t, n.st[TN_A]->list_len[TCP_LIST_ACTIVE], 4);
	KT_EXPECT_EQ(t, n.st[TN_A]->list_len[TCP_LIST_CLOSED], 1);
	tn_fini(&n);
}

static void
time_wait_list_and_purge(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c[6], *s[6];
	const struct tcp_link *k;
	uint64_t prev = 0, first_close;
	int i;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 8);
	connect_many(&n, l, c, s, 6);
	first_close = n.now;
	/* Active closes a second apart; the last one keeps its handle. */
	for (i = 0; i < 6; i++) {
		if (i < 5)
			tcp_close(&c[i], n.now);
		else
			tcp_shutdown(c[i], n.now);
		tn_run(&n, 100);
		tcp_close(&s[i], n.now); /* its FIN puts A in TIME_WAIT */
		tn_run(&n, 900);
	}
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 6);
	/* Ordered by expiry; the longest is the last closed. */
	for (k = n.st[TN_A]->lists[TCP_LIST_TIME_WAIT].next;
	     k != &n.st[TN_A]->lists[TCP_LIST_TIME_WAIT]; k = k->next) {
		KT_EXPECT(t, TCP_PCB_OF(k)->tw_at > prev);
		prev = TCP_PCB_OF(k)->tw_at;
	}
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now),
	             first_close + 5000 + 110 + 60000 - n.now);
	/* Half a minute later the first ones expire on their own. */
	tn_run_until(&n, first_close + 110 + 60000 + 1500);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 4);
	/* rmmod -f: the rest goes at once.  Nothing is sent. */
	unsigned before = n.nlog;
	KT_EXPECT_EQ(t, tcp_purge_time_wait(n.st[TN_A]), 4);
	KT_EXPECT_EQ(t, n.nlog, before);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 0);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now), 0);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_A])->time_wait_purged, 4);
	/* The pcb the user still holds is CLOSED, without an error. */
	KT_EXPECT_EQ(t, tcp_get_state(c[5]), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c[5]), 0);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 1);
	tcp_close(&c[5], n.now);
	/* The port pair is free again: a new connection just works. */
	c[0] = tn_connect(&n, TN_A, 80);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c[0]), TCP_ESTABLISHED);
	tn_fini(&n);
}

static enum tn_verdict
drop_a_data(struct tnet *n, const struct tn_log *s, void *arg, uint32_t *delay)
{
	bool *on = arg;

	(void)n, (void)delay;
	return *on && s->from == TN_A && s->len != 0 ? TN_DROP : TN_PASS;
}

static void
reset_all_peer_sees_rst(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *la, *c[3], *s[3], *pending, *child_cli;
	bool drop = false;
	unsigned counts[TCP_NSTATES];
	int i;

	tn_init(&n, t, NULL);
	n.filter = drop_a_data;
	n.filter_arg = &drop;
	l = tn_listen(&n, TN_B, 80, 8);
	connect_many(&n, l, c, s, 3);
	/* A also listens, with a child B opened and A never accepted. */
	la = tn_listen(&n, TN_A, 21, 4);
	child_cli = tn_connect(&n, TN_B, 21);
	tn_run(&n, 100);
	/* And one connection still in SYN-SENT, its SYN lost. */
	pending = tn_connect(&n, TN_A, 9);
	n.capture[TN_A] = true;
	tcp_abort(pending, n.now);
	tcp_close(&pending, n.now);
	tn_run(&n, 100);
	n.capture[TN_A] = false;
	/* Connection 2 has data in flight that B never got: its RST
	 * carries SND.MAX, misses B's RCV.NXT and is challenged. */
	drop = true;
	tcp_send(c[2], "lost", 4, n.now);
	drop = false;
	KT_EXPECT_EQ(t, tcp_reset_all(n.st[TN_A], n.now), 5);
	tn_check(&n, "reset_all");
	KT_EXPECT_EQ(t, tn_count(&n, TN_A, TCP_RST, TCP_RST), 4);
	for (i = 0; i < 3; i++) {
		KT_EXPECT_EQ(t, tcp_get_state(c[i]), TCP_CLOSED);
		KT_EXPECT_EQ(t, tcp_get_error(c[i]), -ECONNRESET);
	}
	KT_EXPECT_EQ(t, tcp_get_state(la), TCP_CLOSED);
	tcp_count_by_state(n.st[TN_A], counts);
	KT_EXPECT_EQ(t, counts[TCP_CLOSED], 4);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 4);
	tn_run(&n, 100);
	/* Every peer saw a reset it believed. */
	for (i = 0; i < 3; i++) {
		KT_EXPECT_EQ(t, tcp_get_state(s[i]), TCP_CLOSED);
		KT_EXPECT_EQ(t, tcp_get_error(s[i]), -ECONNRESET);
	}
	KT_EXPECT_EQ(t, tcp_get_error(child_cli), -ECONNRESET);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->challenge_acks, 1);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->resets_in, 4);
	for (i = 0; i < 3; i++)
		tcp_close(&c[i], n.now);
	tcp_close(&la, n.now);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	tn_fini(&n);
}

/* What rmmod -f does to a busy stack, in order; after it only pcbs the
 * socket layer still holds remain, all CLOSED, and releasing them
 * leaves nothing. */
static void
force_unload_sequence(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *l, *c[4], *s[4], *x;
	unsigned counts[TCP_NSTATES];
	int i;

	tn_init(&n, t, NULL);
	l = tn_listen(&n, TN_B, 80, 8);
	connect_many(&n, l, c, s, 4);
	tcp_close(&s[0], n.now); /* B: TIME_WAIT */
	tcp_close(&c[0], n.now);
	tcp_close(&s[1], n.now); /* B: FIN_WAIT_2, orphaned */
	tn_run(&n, 100);
	tcp_send(s[2], "busy", 4, n.now);
	tcp_set_going(n.st[TN_B], true);
	KT_EXPECT_EQ(t, tcp_new(n.st[TN_B], &x), -EPROTONOSUPPORT);
	KT_EXPECT_EQ(t, tcp_purge_time_wait(n.st[TN_B]), 1);
	KT_EXPECT_EQ(t, tcp_reset_all(n.st[TN_B], n.now), 4);
	tcp_count_by_state(n.st[TN_B], counts);
	KT_EXPECT_EQ(t, counts[TCP_CLOSED], 3); /* l, s[2], s[3] */
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 3);
	tcp_close(&l, n.now);
	tcp_close(&s[2], n.now);
	tcp_close(&s[3], n.now);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 0);
	tn_run(&n, 100);
	for (i = 1; i < 4; i++)
		KT_EXPECT_EQ(t, tcp_get_error(c[i]), -ECONNRESET);
	tn_fini(&n);
}

static void
ss_info(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	struct tcp_info info;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_get_info(c, n.now, &info);
	KT_EXPECT_EQ(t, info.state, TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, info.raddr, TN_ADDR_B);
	KT_EXPECT_EQ(t, info.rport, 80);
	KT_EXPECT_STREQ(t, info.timer, "");
	n.capture[TN_A] = true;
	tcp_send(c, "abc", 3, n.now);
	tcp_get_info(c, n.now, &info);
	KT_EXPECT_STREQ(t, info.timer, "rto");
	KT_EXPECT_EQ(t, info.timer_ms, 1000);
	KT_EXPECT_EQ(t, info.tx_queued, 3);
	n.capture[TN_A] = false;
	tn_run(&n, 1500);
	KT_EXPECT_EQ(t, tn_drain(&n, s, (uint8_t[8]){0}, 8), 3);
	tcp_shutdown(c, n.now);
	tn_run(&n, 100);
	tcp_close(&s, n.now);
	tn_run(&n, 100);
	tcp_get_info(c, n.now, &info);
	KT_EXPECT_EQ(t, info.state, TCP_TIME_WAIT);
	KT_EXPECT_STREQ(t, info.timer, "timewait");
	KT_EXPECT(t, info.timer_ms > 59000 && info.timer_ms <= 60000);
	KT_EXPECT(t, !info.orphan);
	tn_fini(&n);
}

/* The checker is only worth running if it notices breakage. */
static void
sanity_catches_corruption(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	uint32_t save;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	KT_EXPECT(t, tcp_pcbs_sane(n.st[TN_A]) == NULL);
	c->state = TCP_TIME_WAIT; /* without moving lists */
	KT_EXPECT_STREQ(t, tcp_pcbs_sane(n.st[TN_A]),
	                "pcb on the wrong list for its state");
	c->state = TCP_ESTABLISHED;
	save = c->snd_nxt;
	c->snd_nxt = c->snd_una - 1;
	KT_EXPECT_STREQ(t, tcp_pcbs_sane(n.st[TN_A]),
	                "not SND.UNA <= SND.NXT <= SND.MAX");
	c->snd_nxt = save;
	n.st[TN_A]->list_len[TCP_LIST_ACTIVE]++;
	KT_EXPECT_STREQ(t, tcp_pcbs_sane(n.st[TN_A]),
	                "list length counter is wrong");
	n.st[TN_A]->list_len[TCP_LIST_ACTIVE]--;
	l->nchild = 3;
	KT_EXPECT_STREQ(t, tcp_pcbs_sane(n.st[TN_B]),
	                "listener child count is wrong");
	l->nchild = 0;
	KT_EXPECT(t, tcp_pcbs_sane(n.st[TN_A]) == NULL);
	KT_EXPECT(t, tcp_pcbs_sane(n.st[TN_B]) == NULL);
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(counts_by_state),
    KT_CASE(time_wait_list_and_purge),
    KT_CASE(reset_all_peer_sees_rst),
    KT_CASE(force_unload_sequence),
    KT_CASE(ss_info),
    KT_CASE(sanity_catches_corruption),
    KT_END,
};

const struct kt_suite tcp_suite_table = {"tcp_table", cases};
