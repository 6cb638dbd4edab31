/* Who frees a pcb, whatever the order of close and abort: tcp_abort()
 * resets but leaves the pcb with its user, tcp_close() is the one call
 * that gives it back and clears the user's pointer.  Abort in every
 * state, close after abort, abort after close, double close, and an
 * abort after the peer already reset.  ASan catches a double free or a
 * use after free, tn_fini() a leak, and each case counts the pcbs. */
#include "tests/tcp/tests.h"

/* B holds a pcb in `st`; *cli is A's end when A has one (else NULL).
 * Both sides frozen, as tn_b_in_state leaves them. */
static struct tcp_pcb *
held_in_state(struct tnet *n, enum tcp_state st, struct tcp_pcb **cli)
{
	struct tcp_pcb *s = NULL, *l;
	struct tcp_seg syn;

	*cli = NULL;
	switch (st) {
	case TCP_CLOSED:
		if (tcp_new(n->st[TN_B], &s) != 0)
			kt_fail(n->t, __FILE__, __LINE__, "tcp_new");
		break;
	case TCP_LISTEN:
		/* With a connection established and not yet accepted. */
		s = tn_listen(n, TN_B, 80, 4);
		*cli = tn_connect(n, TN_A, 80);
		tn_run(n, 100);
		break;
	case TCP_SYN_RECEIVED:
		/* Simultaneous open: the user holds it (a listener's child
		 * it would not). */
		n->capture[TN_B] = true;
		s = tn_connect(n, TN_B, 4000);
		syn = tn_seg_for(s, 5000, 0, TCP_SYN, 8192);
		tn_inject(n, TN_B, &syn);
		break;
	case TCP_CLOSING:
		/* A real simultaneous close (tn_b_in_state fakes A's FIN,
		 * which leaves A and B out of step once they talk again):
		 * B's FIN is lost, A's arrives. */
		tn_pair(n, cli, &l, &s);
		n->capture[TN_B] = true;
		tcp_shutdown(s, n->now);
		tcp_shutdown(*cli, n->now);
		tn_run(n, 100);
		break;
	default:
		s = tn_b_in_state(n, st, cli);
		break;
	}
	n->capture[TN_A] = n->capture[TN_B] = true;
	tn_check(n, "setup");
	return s;
}

static const struct {
	enum tcp_state st;
	unsigned rsts;   /* resets B sends when it aborts */
	unsigned pcbs;   /* pcbs the abort and close free on B */
	bool peer_reset; /* A's end sees -ECONNRESET */
} rows[] = {
    {TCP_CLOSED, 0, 1, false},     {TCP_LISTEN, 1, 2, true},
    {TCP_SYN_SENT, 0, 1, false},   {TCP_SYN_RECEIVED, 1, 1, false},
    {TCP_ESTABLISHED, 1, 1, true}, {TCP_FIN_WAIT_1, 1, 1, true},
    {TCP_FIN_WAIT_2, 1, 1, true},  {TCP_CLOSE_WAIT, 1, 1, true},
    {TCP_CLOSING, 1, 1, true},     {TCP_LAST_ACK, 1, 1, true},
    {TCP_TIME_WAIT, 0, 1, false},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static bool
row_setup(struct kt *t, struct tnet *n, unsigned i, struct tcp_pcb **s,
          struct tcp_pcb **c)
{
	tn_init(n, t, NULL);
	*s = held_in_state(n, rows[i].st, c);
	if (tcp_get_state(*s) == rows[i].st)
		return true;
	kt_fail(t, __FILE__, __LINE__, "row %s: B is %s",
	        tcp_state_name(rows[i].st), tcp_state_name(tcp_get_state(*s)));
	tn_fini(n);
	return false;
}

/* Once every timer ran out, B holds no connection and no TIME_WAIT. */
static void
expect_b_done(struct kt *t, struct tnet *n, unsigned i)
{
	const struct tcp_stack *b = n->st[TN_B];

	if (b->list_len[TCP_LIST_ACTIVE] != 0 ||
	    b->list_len[TCP_LIST_TIME_WAIT] != 0) {
		kt_fail(t, __FILE__, __LINE__,
		        "row %s: B still has %u active, %u TIME_WAIT",
		        tcp_state_name(rows[i].st),
		        b->list_len[TCP_LIST_ACTIVE],
		        b->list_len[TCP_LIST_TIME_WAIT]);
		tn_dump(n);
	}
}

/* After B let go: A's end (if any) ends as the row says, and once every
 * timer ran out B holds nothing but what the setup left (a listener). */
static void
row_finish(struct kt *t, struct tnet *n, unsigned i, struct tcp_pcb *c)
{
	uint8_t buf[64];

	n->capture[TN_A] = n->capture[TN_B] = false;
	tn_run(n, 10000);
	if (c != NULL && rows[i].peer_reset) {
		tn_drain(n, c, buf, sizeof(buf));
		if (tcp_get_error(c) != -ECONNRESET)
			kt_fail(t, __FILE__, __LINE__,
			        "row %s: A is %s with error %d, not reset",
			        tcp_state_name(rows[i].st),
			        tcp_state_name(tcp_get_state(c)),
			        tcp_get_error(c));
	}
	tn_run(n, 300000);
	expect_b_done(t, n, i);
	tn_fini(n);
}

/* RFC 9293 3.10.5: a RST to a synchronized peer, the user's calls fail
 * with -ECONNABORTED, and the pcb is still the user's until close. */
static void
abort_in_each_state(struct kt *t)
{
	for (unsigned i = 0; i < NROWS; i++) {
		struct tcp_pcb *s, *c;
		struct tnet n;
		unsigned rst0, npcbs;
		int want = rows[i].st == TCP_CLOSED ? 0 : -ECONNABORTED;

		if (!row_setup(t, &n, i, &s, &c))
			continue;
		rst0 = tn_count(&n, TN_B, TCP_RST, TCP_RST);
		npcbs = n.st[TN_B]->npcbs;
		tcp_abort(s, n.now);
		tn_check(&n, "abort");
		KT_EXPECT_EQ(t, tn_count(&n, TN_B, TCP_RST, TCP_RST) - rst0,
		             rows[i].rsts);
		KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSED);
		KT_EXPECT_EQ(t, tcp_get_error(s), want);
		/* Only a listener's children go; the pcb stays. */
		KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, npcbs - (rows[i].pcbs - 1));
		if (want != 0) {
			KT_EXPECT_EQ(t, tcp_recv(s, (char[8]){0}, 8, n.now),
			             want);
			KT_EXPECT_EQ(t, tcp_send(s, "x", 1, n.now), want);
		}
		tn_fini(&n);
	}
}

/* Abort then close: the close frees the pcb at once (it is CLOSED),
 * exactly once, and sends nothing more. */
static void
close_after_abort(struct kt *t)
{
	for (unsigned i = 0; i < NROWS; i++) {
		struct tcp_pcb *s, *c;
		struct tnet n;
		unsigned nlog, npcbs;

		if (!row_setup(t, &n, i, &s, &c))
			continue;
		npcbs = n.st[TN_B]->npcbs;
		n.capture[TN_A] = n.capture[TN_B] = false; /* the RST goes */
		tcp_abort(s, n.now);
		tcp_abort(s, n.now); /* twice: nothing more happens */
		nlog = n.nlog;
		tcp_close(&s, n.now);
		tn_check(&n, "close after abort");
		KT_EXPECT(t, s == NULL);
		KT_EXPECT_EQ(t, n.nlog, nlog);
		KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, npcbs - rows[i].pcbs);
		row_finish(t, &n, i, c);
	}
}

/* After the close the user's pointer is NULL: an abort, or a second
 * close, finds it and does nothing (nothing sent, nothing freed), and
 * the orphan finishes on its own. */
static void
after_close(struct kt *t, bool abort)
{
	for (unsigned i = 0; i < NROWS; i++) {
		struct tcp_pcb *s, *c;
		struct tnet n;
		unsigned nlog, npcbs;

		if (!row_setup(t, &n, i, &s, &c))
			continue;
		tcp_close(&s, n.now);
		KT_EXPECT(t, s == NULL);
		nlog = n.nlog;
		npcbs = n.st[TN_B]->npcbs;
		if (abort)
			tcp_abort(s, n.now);
		else
			tcp_close(&s, n.now);
		tn_check(&n, abort ? "abort after close" : "double close");
		KT_EXPECT_EQ(t, n.nlog, nlog);
		KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, npcbs);
		n.capture[TN_A] = n.capture[TN_B] = false;
		tn_run(&n, 300000);
		expect_b_done(t, &n, i);
		tn_fini(&n);
	}
}

static void
abort_after_close(struct kt *t)
{
	after_close(t, true);
}

static void
double_close(struct kt *t)
{
	after_close(t, false);
}

/* The core's own abort of an orphan (tcp_reset_all, as rmmod -f does)
 * after the user closed: one RST, the orphan freed once. */
static void
reset_all_after_close(struct kt *t)
{
	struct tcp_pcb *s, *c;
	struct tnet n;
	unsigned npcbs;
	uint8_t buf[8];

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	tcp_close(&s, n.now); /* FIN_WAIT_1, its FIN not delivered */
	npcbs = n.st[TN_B]->npcbs;
	n.capture[TN_A] = n.capture[TN_B] = false;
	KT_EXPECT_EQ(t, tcp_reset_all(n.st[TN_B], n.now), 2); /* + listener */
	tn_check(&n, "reset_all");
	KT_EXPECT_EQ(t, tn_count(&n, TN_B, TCP_RST, TCP_RST), 1);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, npcbs - 1);
	tn_run(&n, 5000);
	tn_drain(&n, c, buf, sizeof(buf));
	KT_EXPECT_EQ(t, tcp_get_error(c), -ECONNRESET);
	tn_fini(&n);
}

/* The peer reset first: the pcb is CLOSED with -ECONNRESET and still
 * the user's; an abort changes nothing (no RST for a dead connection,
 * the peer's error kept), the close frees it. */
static void
abort_after_peer_reset(struct kt *t)
{
	struct tcp_pcb *s, *c;
	struct tcp_seg rst;
	struct tnet n;
	unsigned nlog, npcbs;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	rst = tn_seg_for(s, s->rcv_nxt, 0, TCP_RST, 0);
	tn_inject(&n, TN_B, &rst);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSED);
	nlog = n.nlog;
	npcbs = n.st[TN_B]->npcbs;
	tcp_abort(s, n.now);
	KT_EXPECT_EQ(t, n.nlog, nlog);
	KT_EXPECT_EQ(t, tcp_get_error(s), -ECONNRESET);
	tcp_close(&s, n.now);
	tcp_close(&s, n.now);
	tcp_abort(s, n.now);
	tn_check(&n, "close");
	KT_EXPECT_EQ(t, n.nlog, nlog);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, npcbs - 1);
	tcp_close(&c, n.now);
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(abort_in_each_state),
    KT_CASE(close_after_abort),
    KT_CASE(abort_after_close),
    KT_CASE(reset_all_after_close),
    KT_CASE(double_close),
    KT_CASE(abort_after_peer_reset),
    {NULL, NULL},
};

const struct kt_suite tcp_suite_abort = {"tcp_abort", cases};
