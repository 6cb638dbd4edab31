/* Resets and the acceptability rules: RST in every state, RFC 5961
 * challenge ACKs, old and future segments, zero windows, resets for
 * closed ports, TIME-WAIT (RFC 1337, reopening). */
#include <string.h>

#include "tests/tcp/tests.h"

static void
rst_in_each_state(struct kt *t)
{
	static const struct {
		enum tcp_state st;
		bool rfc1337;
		int err;       /* error B's user sees */
		bool survives; /* the RST is ignored */
	} rows[] = {
	    {TCP_SYN_RECEIVED, true, 0, false},
	    {TCP_ESTABLISHED, true, -ECONNRESET, false},
	    {TCP_FIN_WAIT_1, true, -ECONNRESET, false},
	    {TCP_FIN_WAIT_2, true, -ECONNRESET, false},
	    {TCP_CLOSE_WAIT, true, -ECONNRESET, false},
	    {TCP_CLOSING, true, 0, false},
	    {TCP_LAST_ACK, true, 0, false},
	    {TCP_TIME_WAIT, true, 0, true},
	    {TCP_TIME_WAIT, false, 0, false},
	};
	unsigned i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tnet n;
		struct tcp_config cfg;
		struct tcp_pcb *s, *c = NULL;
		struct tcp_seg rst;
		unsigned before;

		tcp_config_default(&cfg);
		cfg.delack_ms = 0;
		cfg.rfc1337 = rows[i].rfc1337;
		tn_init(&n, t, &cfg);
		s = tn_b_in_state(&n, rows[i].st, &c);
		if (tcp_get_state(s) != rows[i].st) {
			kt_fail(t, __FILE__, __LINE__, "row %u: B is %s", i,
			        tcp_state_name(tcp_get_state(s)));
			tn_fini(&n);
			continue;
		}
		rst = tn_seg_for(s, s->rcv_nxt, 0, TCP_RST, 0);
		before = n.st[TN_B]->npcbs;
		tn_inject(&n, TN_B, &rst);
		if (rows[i].survives) {
			KT_EXPECT_EQ(t, tcp_get_state(s), rows[i].st);
			KT_EXPECT_EQ(t,
			             tcp_get_stats(n.st[TN_B])
			                 ->drops[TCP_DROP_RST_TIME_WAIT],
			             1);
		} else if (rows[i].st == TCP_SYN_RECEIVED) {
			/* A passive child goes; its listener stays. */
			KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, before - 1);
			KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_LISTEN),
			             1);
		} else {
			KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSED);
			KT_EXPECT_EQ(t, tcp_get_error(s), rows[i].err);
			KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->resets_in,
			             1);
		}
		tn_fini(&n);
	}
}

static void
rst_in_syn_sent(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *s, *c;
	struct tcp_seg rst;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_SYN_SENT, &c);
	/* Without an ACK of our SYN the RST is not believed. */
	rst = tn_seg_for(s, 0, 0, TCP_RST, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_RST_OUT_OF_WINDOW);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_SYN_SENT);
	/* A wrong ACK gets a reset back and changes nothing. */
	rst = tn_seg_for(s, 0, s->iss + 5, TCP_ACK, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_SYN_SENT_BAD_ACK);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_RST);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->seq, s->iss + 5);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_SYN_SENT);
	/* RST+ACK of the SYN: refused. */
	rst = tn_seg_for(s, 0, s->iss + 1, TCP_RST | TCP_ACK, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, tcp_get_error(s), -ECONNREFUSED);
	tn_fini(&n);
}

static void
rst_challenge_ack(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *s, *c;
	struct tcp_seg rst;
	const struct tn_log *ack;
	unsigned i;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	/* A blind attacker's in-window guesses (RFC 5961 3.2): each gets a
	 * challenge ACK, none resets. */
	for (i = 1; i < 200; i++) {
		rst = tn_seg_for(s, s->rcv_nxt + i * 50, 0, TCP_RST, 0);
		KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst),
		             TCP_DROP_RST_CHALLENGED);
	}
	ack = tn_last(&n, TN_B, 0, 0);
	KT_EXPECT_EQ(t, ack->flags, TCP_ACK);
	KT_EXPECT_EQ(t, ack->seq, s->snd_nxt);
	KT_EXPECT_EQ(t, ack->ack, s->rcv_nxt);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->challenge_acks, 199);
	/* Outside the window: silence. */
	i = n.nlog;
	rst = tn_seg_for(s, s->rcv_nxt + 20000, 0, TCP_RST, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_RST_OUT_OF_WINDOW);
	rst = tn_seg_for(s, s->rcv_nxt - 1, 0, TCP_RST, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_RST_OUT_OF_WINDOW);
	KT_EXPECT_EQ(t, n.nlog, i);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	tn_fini(&n);
}

/* The challenge ACK makes a peer that really lost the connection answer
 * with an exact reset (RFC 5961 3.2): the connection still ends. */
static void
rst_after_challenge_lands(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	struct tcp_seg rst;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.capture[TN_A] = true; /* A forgets silently */
	tcp_abort(c, n.now);
	tcp_close(&c, n.now);
	n.capture[TN_A] = false;
	rst = tn_seg_for(s, s->rcv_nxt + 100, 0, TCP_RST, 0);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &rst), TCP_DROP_RST_CHALLENGED);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	tn_run(&n, 100); /* challenge ACK to A, A's RST seq=ACK back */
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(s), -ECONNRESET);
	tn_fini(&n);
}

static void
syn_on_synchronized(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *s, *c;
	struct tcp_seg syn;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	syn = tn_seg_for(s, s->rcv_nxt + 10, 0, TCP_SYN, 8192);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_SYN_CHALLENGED);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_ACK);
	syn.seq = s->rcv_nxt - 1000; /* out of window: a plain ACK */
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NOT_ACCEPTABLE);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->challenge_acks, 1);
	tn_fini(&n);
}

static void
old_and_future_segments(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *s, *c;
	struct tcp_seg seg;
	uint8_t buf[32];
	uint32_t una;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	una = s->snd_una;
	/* In order. */
	seg = tn_seg_for(s, s->rcv_nxt, una, TCP_ACK, 8192);
	seg.data = (const uint8_t *)"abcdef";
	seg.len = 6;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	/* An old duplicate: acknowledged again, not delivered twice. */
	seg.seq = s->rcv_nxt - 6;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NOT_ACCEPTABLE);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->ack, s->rcv_nxt);
	/* Overlapping: only the new tail is taken. */
	seg.seq = s->rcv_nxt - 3;
	seg.data = (const uint8_t *)"defGHI";
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, tn_drain(&n, s, buf, sizeof(buf)), 9);
	KT_EXPECT(t, memcmp(buf, "abcdefGHI", 9) == 0);
	/* An ACK for data never sent (RFC 9293 3.10.7.4 fifth). */
	seg = tn_seg_for(s, s->rcv_nxt, s->snd_max + 1, TCP_ACK, 8192);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_ACK_UNSENT);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_ACK);
	/* An ACK older than SND.UNA - MAX.SND.WND (RFC 5961 5.2). */
	seg.ack = s->snd_una - s->max_snd_wnd - 1;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_ACK_TOO_OLD);
	/* No ACK bit at all. */
	seg.flags = 0;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NO_ACK);
	/* Beyond the window: trimmed to it. */
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	tn_fini(&n);
}

static void
zero_window_edges(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *s, *c;
	struct tcp_seg seg;
	static uint8_t fill[1024];
	uint32_t una;

	tcp_config_default(&cfg);
	cfg.delack_ms = 0;
	cfg.rcvbuf = 1024;
	tn_init(&n, t, &cfg);
	s = tn_b_in_state(&n, TCP_ESTABLISHED, &c);
	una = s->snd_una;
	seg = tn_seg_for(s, s->rcv_nxt, una, TCP_ACK, 8192);
	seg.data = fill;
	seg.len = 1000; /* more than the window: trimmed */
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	seg.seq = s->rcv_nxt;
	seg.len = 100;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s->rcvq.len, 1024);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->wnd, 0);
	/* RCV.WND = 0: data is refused, but the ACK and window in it
	 * count (RFC 9293 3.10.7.4). */
	tcp_send(s, "x", 1, n.now);
	seg = tn_seg_for(s, s->rcv_nxt, s->snd_max, TCP_ACK, 4000);
	seg.data = fill;
	seg.len = 10;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, s->snd_una, s->snd_max);
	KT_EXPECT_EQ(t, s->snd_wnd, 4000);
	KT_EXPECT_EQ(t, s->rcvq.len, 1024);
	/* A zero-length segment is acceptable only at RCV.NXT. */
	seg.len = 0;
	seg.seq = s->rcv_nxt + 1;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NOT_ACCEPTABLE);
	seg.seq = s->rcv_nxt;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	tn_fini(&n);
}

static void
reset_for_closed_port(struct kt *t)
{
	struct tnet n;
	struct tcp_seg seg = {.src = TN_ADDR_A,
	                      .dst = TN_ADDR_B,
	                      .sport = 999,
	                      .dport = 4444,
	                      .seq = 100,
	                      .ack = 777,
	                      .flags = TCP_ACK,
	                      .wnd = 1,
	                      .data = (const uint8_t *)"abc",
	                      .len = 3};
	const struct tn_log *r;

	tn_init(&n, t, NULL);
	n.capture[TN_B] = true;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NO_SOCKET);
	r = tn_last(&n, TN_B, 0, 0);
	KT_EXPECT_EQ(t, r->flags, TCP_RST);
	KT_EXPECT_EQ(t, r->seq, 777);
	seg.flags = TCP_FIN; /* no ACK: <SEQ=0><ACK=SEQ+LEN><RST,ACK> */
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NO_SOCKET);
	r = tn_last(&n, TN_B, 0, 0);
	KT_EXPECT_EQ(t, r->flags, TCP_RST | TCP_ACK);
	KT_EXPECT_EQ(t, r->seq, 0);
	KT_EXPECT_EQ(t, r->ack, 100 + 3 + 1);
	seg.flags = TCP_RST; /* never answer a reset */
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NO_SOCKET);
	KT_EXPECT_EQ(t, n.nlog, 2);
	tn_fini(&n);
}

static void
syn_received_bad_ack(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *s, *c;
	struct tcp_seg seg;

	tn_init(&n, t, NULL);
	s = tn_b_in_state(&n, TCP_SYN_RECEIVED, &c);
	seg = tn_seg_for(s, s->rcv_nxt, s->iss + 9, TCP_ACK, 8192);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_SYN_RCVD_BAD_ACK);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_RST);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->seq, s->iss + 9);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_SYN_RECEIVED);
	seg.ack = s->iss + 1;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &seg), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_ESTABLISHED);
	tn_fini(&n);
}

/* RFC 1122 4.2.2.13: a new SYN above the old sequence space reopens a
 * TIME-WAIT connection, with an ISS above the old one. */
static void
time_wait_reopen(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s, *s2;
	struct tcp_seg syn;
	uint32_t old_max;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_close(&s, n.now); /* B closes first: B holds TIME_WAIT */
	tn_run(&n, 100);
	tcp_close(&c, n.now);
	tn_run(&n, 100);
	KT_ASSERT(t, tn_state_count(&n, TN_B, TCP_TIME_WAIT) == 1);
	s = TCP_PCB_OF(n.st[TN_B]->lists[TCP_LIST_TIME_WAIT].next);
	old_max = s->snd_max;
	n.isn[TN_B] = 0; /* B's clock would now pick an older ISS */
	n.capture[TN_B] = true;
	syn = tn_seg_for(s, s->rcv_nxt - 5, 0, TCP_SYN, 8192);
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NOT_ACCEPTABLE);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_TIME_WAIT), 1);
	syn.seq = s->rcv_nxt + 100000;
	KT_EXPECT_EQ(t, tn_inject(&n, TN_B, &syn), TCP_DROP_NONE);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_TIME_WAIT), 0);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_SYN_RECEIVED), 1);
	s2 = TCP_PCB_OF(n.st[TN_B]->lists[TCP_LIST_ACTIVE].next);
	KT_EXPECT(t, SEQ_GT(s2->iss, old_max));
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_SYN | TCP_ACK);
	tn_fini(&n);
}

static void
sequence_wraparound(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	static uint8_t tx[50000], rx[50000];
	size_t sent = 0, got = 0;
	long r;

	tn_init(&n, t, NULL);
	/* tn_isn() adds port * 0x10000; A uses the first ephemeral port. */
	n.isn[TN_A] = 0xffffe000u - TCP_EPHEMERAL_LOW * 0x10000u;
	n.isn[TN_B] = 0xfffff000u - 80 * 0x10000u;
	for (size_t i = 0; i < sizeof(tx); i++)
		tx[i] = (uint8_t)(i * 13);
	tn_pair(&n, &c, &l, &s);
	while (got < sizeof(tx) && n.now < 60000) {
		r = tcp_send(c, tx + sent, sizeof(tx) - sent, n.now);
		if (r > 0)
			sent += (size_t)r;
		r = tcp_send(s, tx, 100, n.now);
		tn_run(&n, 20);
		got += tn_drain(&n, s, rx + got, sizeof(rx) - got);
		tn_drain(&n, c, rx, 0);
	}
	KT_EXPECT_EQ(t, got, sizeof(tx));
	KT_EXPECT(t, memcmp(tx, rx, sizeof(tx)) == 0);
	KT_EXPECT(t, c->snd_una < 0x10000000u); /* it did wrap */
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(rst_in_each_state),    KT_CASE(rst_in_syn_sent),
    KT_CASE(rst_challenge_ack),    KT_CASE(rst_after_challenge_lands),
    KT_CASE(syn_on_synchronized),  KT_CASE(old_and_future_segments),
    KT_CASE(zero_window_edges),    KT_CASE(reset_for_closed_port),
    KT_CASE(syn_received_bad_ack), KT_CASE(time_wait_reopen),
    KT_CASE(sequence_wraparound),  KT_END,
};

const struct kt_suite tcp_suite_rst = {"tcp_rst", cases};
