/*
 * Timers, run by tcp_tick(now): retransmission (RFC 6298 with
 * exponential backoff, RFC 5681 loss response), persist probes for a
 * zero window, delayed ACK, the orphaned FIN-WAIT-2 limit, and TIME_WAIT
 * expiry (the head of the sorted TIME_WAIT list expires first, so the
 * scan stops at the first entry still waiting).
 */
#include "net/tcp/tcp_priv.h"

uint64_t
tcp_next_deadline(const struct tcp_pcb *pcb)
{
	uint64_t t = pcb->rto_at;

	t = tcp_min64(t, pcb->persist_at);
	t = tcp_min64(t, pcb->delack_at);
	t = tcp_min64(t, pcb->tw_at);
	return tcp_min64(t, pcb->fw2_at);
}

static uint32_t
backoff(const struct tcp_pcb *pcb, uint32_t v)
{
	uint32_t max = pcb->stack->cfg.rto_max_ms;

	return v >= max / 2 ? max : v * 2;
}

/* Returns false when the pcb is gone. */
static bool
rto_expired(struct tcp_pcb *pcb, uint64_t now)
{
	struct tcp_stack *s = pcb->stack;
	uint32_t half;

	pcb->rto_at = TCP_TIMER_OFF;
	if (pcb->state == TCP_SYN_SENT || pcb->state == TCP_SYN_RECEIVED) {
		if (pcb->retries >= s->cfg.syn_retries) {
			s->stats.timeouts++;
			tcp_pcb_terminate(pcb, pcb->passive ? 0 : -ETIMEDOUT,
			                  now);
			return false;
		}
		pcb->retries++;
		pcb->rto = backoff(pcb, pcb->rto);
		pcb->rtt_timing = false;
		s->stats.retransmits++;
		tcp_send_syn(pcb, now);
		return true;
	}
	if (pcb->snd_una == pcb->snd_max)
		return true;
	if (pcb->retries >= s->cfg.max_retries) {
		s->stats.timeouts++;
		tcp_pcb_terminate(pcb, -ETIMEDOUT, now);
		return false;
	}
	pcb->retries++;
	s->stats.rto_expired++;
	/* RFC 5681 (4): one segment, half the flight as threshold. */
	half = tcp_flight(pcb) / 2;
	pcb->ssthresh = half > 2u * pcb->mss ? half : 2u * pcb->mss;
	pcb->cwnd = pcb->mss;
	pcb->dupacks = 0;
	pcb->in_recovery = false;
	pcb->rto = backoff(pcb, pcb->rto); /* RFC 6298 5.5 */
	pcb->rtt_timing = false;           /* Karn */
	pcb->snd_nxt = pcb->snd_una;       /* go back N */
	tcp_rto_arm(pcb, now);
	tcp_output(pcb, now);
	if (pcb->snd_nxt == pcb->snd_una)
		tcp_send_probe(pcb, now); /* window closed: ask for it */
	return true;
}

static bool
persist_expired(struct tcp_pcb *pcb, uint64_t now)
{
	struct tcp_stack *s = pcb->stack;
	uint32_t ivl;

	pcb->persist_at = TCP_TIMER_OFF;
	if (pcb->snd_wnd != 0 || pcb->snd_una != pcb->snd_max) {
		tcp_output(pcb, now);
		return true;
	}
	if (pcb->retries >= s->cfg.max_retries) {
		s->stats.timeouts++;
		tcp_pcb_terminate(pcb, -ETIMEDOUT, now);
		return false;
	}
	pcb->retries++;
	tcp_send_probe(pcb, now);
	ivl = pcb->rto > TCP_PERSIST_MIN_MS ? pcb->rto : TCP_PERSIST_MIN_MS;
	for (uint32_t i = 0;
	     i < pcb->persist_backoff && ivl < s->cfg.rto_max_ms; i++)
		ivl = backoff(pcb, ivl);
	pcb->persist_backoff++;
	pcb->persist_at = now + ivl;
	return true;
}

static void
tick_active(struct tcp_pcb *pcb, uint64_t now)
{
	if (pcb->rto_at <= now && !rto_expired(pcb, now))
		return;
	if (pcb->persist_at <= now && !persist_expired(pcb, now))
		return;
	if (pcb->delack_at <= now) {
		pcb->delack_at = TCP_TIMER_OFF;
		tcp_send_ack(pcb, now);
	}
	if (pcb->fw2_at <= now) {
		pcb->fw2_at = TCP_TIMER_OFF;
		if (pcb->state == TCP_FIN_WAIT_2 && !pcb->user_held)
			tcp_pcb_terminate(pcb, 0, now);
	}
}

uint64_t
tcp_tick(struct tcp_stack *s, uint64_t now)
{
	struct tcp_pcb *pcb;
	uint64_t next = TCP_TIMER_OFF;

	TCP_FOREACH_SAFE(s, TCP_LIST_ACTIVE, pcb)
	{
		if (tcp_next_deadline(pcb) <= now)
			tick_active(pcb, now);
	}
	TCP_FOREACH_SAFE(s, TCP_LIST_TIME_WAIT, pcb)
	{
		if (pcb->tw_at > now)
			break;
		if (s->env.time_wait != NULL)
			s->env.time_wait(s->env.ctx, pcb, pcb->lport,
			                 pcb->rport, false);
		tcp_pcb_terminate(pcb, 0, now);
	}
	TCP_FOREACH_SAFE(s, TCP_LIST_ACTIVE, pcb)
	{
		next = tcp_min64(next, tcp_next_deadline(pcb));
	}
	if (!tcp_link_empty(&s->lists[TCP_LIST_TIME_WAIT]))
		next = tcp_min64(
		    next, TCP_PCB_OF(s->lists[TCP_LIST_TIME_WAIT].next)->tw_at);
	return next;
}

bool
tcp_acks_deferred(struct tcp_stack *s)
{
	bool was = s->ack_deferred;

	s->ack_deferred = false;
	return was;
}
