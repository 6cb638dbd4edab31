/* Closing: both orders, TIME_WAIT for exactly 2*MSL, simultaneous close,
 * half close, lost FINs, resets on close. */
#include <string.h>

#include "tests/tcp/tests.h"

/* The client closes first: it goes FIN-WAIT-1, FIN-WAIT-2, TIME-WAIT
 * and stays there exactly 2*MSL; the server goes CLOSE-WAIT, LAST-ACK,
 * CLOSED. */
static void
active_close_time_wait(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	uint8_t buf[8];
	uint64_t tw_start;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	KT_EXPECT_EQ(t, tcp_shutdown(c, n.now), 0);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_FIN_WAIT_1);
	KT_EXPECT_EQ(t, tcp_send(c, "x", 1, n.now), -EPIPE);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_FIN_WAIT_2);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSE_WAIT);
	KT_EXPECT_EQ(t, tcp_recv(s, buf, sizeof(buf), n.now), 0); /* EOF */
	/* The passive side may still send. */
	KT_EXPECT_EQ(t, tcp_send(s, "bye", 3, n.now), 3);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_recv(c, buf, sizeof(buf), n.now), 3);
	tcp_close(&s, n.now);
	KT_EXPECT(t, s == NULL);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_LAST_ACK), 1);
	tw_start = n.now + n.latency_ms; /* B's FIN reaches A */
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_TIME_WAIT);
	KT_EXPECT_EQ(t, tcp_recv(c, buf, sizeof(buf), n.now), 0);
	/* B freed its pcb when our ACK came: only the listener is left. */
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 1);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 1);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now),
	             tw_start + 60000 - n.now);
	tcp_close(&c, n.now); /* the user lets go; TIME_WAIT carries on */
	tn_run_until(&n, tw_start + 59999);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 1);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now), 1);
	tn_run_until(&n, tw_start + 60000);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now), 0);
	tn_fini(&n);
}

/* The server closes first: now B holds the TIME_WAIT, A goes through
 * CLOSE-WAIT and LAST-ACK and its pcb stays CLOSED until released. */
static void
passive_close(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	uint8_t buf[8];

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_close(&s, n.now);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSE_WAIT);
	KT_EXPECT(t, tcp_poll(c) & TCP_EV_READABLE);
	KT_EXPECT_EQ(t, tcp_recv(c, buf, sizeof(buf), n.now), 0);
	KT_EXPECT_EQ(t, tcp_shutdown(c, n.now), 0);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_LAST_ACK);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), 0);
	KT_EXPECT_EQ(t, tcp_recv(c, buf, sizeof(buf), n.now), 0);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_TIME_WAIT), 1);
	tcp_close(&c, n.now);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	tn_run(&n, 60000);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 1);
	tn_fini(&n);
}

static void
simultaneous_close(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_shutdown(c, n.now);
	tcp_shutdown(s, n.now);
	/* The FINs cross: both see a FIN before the ACK of their own. */
	tn_run(&n, 10);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSING);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSING);
	tn_run(&n, 10);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_TIME_WAIT);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_TIME_WAIT);
	tcp_close(&c, n.now);
	tcp_close(&s, n.now);
	tn_run(&n, 60000);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 1);
	tn_fini(&n);
}

/* Drop B's first FIN, then A's first ACK of it: B resends its FIN; A,
 * already in TIME-WAIT, acknowledges again and restarts 2*MSL. */
static enum tn_verdict
drop_fin_then_ack(struct tnet *n, const struct tn_log *s, void *arg,
                  uint32_t *delay)
{
	int *state = arg;

	(void)n, (void)delay;
	if (*state == 0 && s->from == TN_B && (s->flags & TCP_FIN)) {
		*state = 1;
		return TN_DROP;
	}
	if (*state == 2 && s->from == TN_A && s->flags == TCP_ACK) {
		*state = 3;
		return TN_DROP;
	}
	return TN_PASS;
}

static void
lost_fin_and_last_ack(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	int st = 0;
	const struct tn_log *last;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	n.filter = drop_fin_then_ack;
	n.filter_arg = &st;
	tcp_close(&c, n.now);
	tn_run(&n, 100);
	tcp_close(&s, n.now); /* its FIN is lost */
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_FIN_WAIT_2), 1);
	st = 2;
	tn_run(&n, 1000); /* resent FIN arrives; A's ACK is lost */
	KT_EXPECT_EQ(t, st, 3);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 1);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_LAST_ACK), 1);
	tn_run(&n, 3000); /* B resends again after 2 s; A re-ACKs */
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_B, TCP_LAST_ACK), 0);
	last = tn_last(&n, TN_A, TCP_ACK, TCP_ACK);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now),
	             last->at + 60000 - n.now);
	KT_EXPECT_EQ(t, tcp_get_stats(n.st[TN_B])->retransmits, 2);
	tn_run_until(&n, last->at + 59999);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 1);
	tn_run(&n, 1);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	tn_fini(&n);
}

/* RFC 2525 2.17: closing with unread data resets the connection. */
static void
close_with_unread_data(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_send(c, "unread", 6, n.now);
	tn_run(&n, 100);
	tcp_close(&s, n.now);
	KT_EXPECT_EQ(t, n.st[TN_B]->npcbs, 1);
	KT_EXPECT_EQ(t, tn_last(&n, TN_B, 0, 0)->flags, TCP_RST | TCP_ACK);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_get_state(c), TCP_CLOSED);
	KT_EXPECT_EQ(t, tcp_get_error(c), -ECONNRESET);
	KT_EXPECT_EQ(t, tcp_recv(c, (char[4]){0}, 4, n.now), -ECONNRESET);
	tn_fini(&n);
}

static void
orphan_fin_wait2_timeout(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;
	uint64_t t0;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	t0 = n.now;
	tcp_close(&c, n.now);
	tn_run(&n, 59000);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_FIN_WAIT_2), 1);
	tn_run_until(&n, t0 + 20 + 60000);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	KT_EXPECT_EQ(t, tcp_get_state(s), TCP_CLOSE_WAIT);
	tn_fini(&n);
}

static void
data_after_close_resets(struct kt *t)
{
	struct tnet n;
	struct tcp_pcb *c, *l, *s;

	tn_init(&n, t, NULL);
	tn_pair(&n, &c, &l, &s);
	tcp_close(&c, n.now);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, tcp_send(s, "late", 4, n.now), 4);
	tn_run(&n, 100);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	KT_EXPECT_EQ(t, tcp_get_error(s), -ECONNRESET);
	KT_EXPECT_EQ(
	    t, tcp_get_stats(n.st[TN_A])->drops[TCP_DROP_DATA_AFTER_CLOSE], 1);
	tn_fini(&n);
}

static void
msl_is_a_parameter(struct kt *t)
{
	struct tnet n;
	struct tcp_config cfg;
	struct tcp_pcb *c, *l, *s;

	tcp_config_default(&cfg);
	cfg.delack_ms = 0;
	cfg.msl_ms = 1000;
	tn_init(&n, t, &cfg);
	tn_pair(&n, &c, &l, &s);
	tcp_close(&c, n.now);
	tcp_close(&s, n.now);
	tn_run(&n, 30);
	KT_EXPECT_EQ(t, tn_state_count(&n, TN_A, TCP_TIME_WAIT), 1);
	KT_EXPECT_EQ(t, tcp_time_wait_longest(n.st[TN_A], n.now), 2000 - 10);
	tn_run(&n, 2000);
	KT_EXPECT_EQ(t, n.st[TN_A]->npcbs, 0);
	tn_fini(&n);
}

static const struct kt_case cases[] = {
    KT_CASE(active_close_time_wait),
    KT_CASE(passive_close),
    KT_CASE(simultaneous_close),
    KT_CASE(lost_fin_and_last_ack),
    KT_CASE(close_with_unread_data),
    KT_CASE(orphan_fin_wait2_timeout),
    KT_CASE(data_after_close_resets),
    KT_CASE(msl_is_a_parameter),
    KT_END,
};

const struct kt_suite tcp_suite_close = {"tcp_close", cases};
