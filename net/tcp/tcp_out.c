/*
 * Sending: SYN and SYN-ACK, data segmentation by MSS within the send and
 * congestion windows, FIN, ACKs, resets, window probes; the RTO
 * estimator.  Every segment leaves through env->emit.
 *
 * Sender policy (RFC 1122 4.2.3.4, RFC 5681):
 *  - a segment carries min(MSS, unsent, usable window) bytes; usable is
 *    min(SND.WND, cwnd) minus what is in flight;
 *  - a short segment goes out only if it ends the queued data and
 *    nothing is in flight (Nagle; config nodelay skips this), or it is
 *    at least half the largest window the peer offered, or nothing is in
 *    flight at all (so a small window cannot stall the connection);
 *  - the FIN rides on the last data segment when it fits, and like data
 *    needs one byte of window;
 *  - with a zero window and nothing in flight the persist timer sends
 *    probes (tcp_timer.c).
 */
#include "net/tcp/tcp_priv.h"

uint32_t
tcp_flight(const struct tcp_pcb *pcb)
{
	return pcb->snd_max - pcb->snd_una;
}

/* Data bytes from SND.NXT to the end of the send buffer. */
uint32_t
tcp_unsent(const struct tcp_pcb *pcb)
{
	uint32_t off;

	if (SEQ_LT(pcb->snd_nxt, pcb->snd_buf_seq))
		return pcb->sndq.len;
	off = pcb->snd_nxt - pcb->snd_buf_seq;
	return off < pcb->sndq.len ? pcb->sndq.len - off : 0;
}

/*
 * The window to announce, never moving the right edge back (RFC 9293
 * 3.8.6.2.2 discourages shrinking) and moving it forward only by at
 * least min(half the buffer, one MSS): the receiver side of silly window
 * avoidance (RFC 1122 4.2.3.3).
 */
uint16_t
tcp_rcv_window(struct tcp_pcb *pcb)
{
	uint32_t cur = pcb->rcv_adv - pcb->rcv_nxt, room, step;

	if (SEQ_LT(pcb->rcv_adv, pcb->rcv_nxt))
		cur = 0;
	if (pcb->rcvq.buf == NULL)
		return (uint16_t)tcp_min32(cur, TCP_MAX_WND);
	room = tcp_min32(pcb->rcvq.cap - pcb->rcvq.len, TCP_MAX_WND);
	step = tcp_min32(pcb->rcvq.cap / 2, pcb->mss);
	if (room >= cur + step || room == pcb->rcvq.cap)
		cur = room > cur ? room : cur;
	pcb->rcv_adv = pcb->rcv_nxt + cur;
	return (uint16_t)cur;
}

static void
emit(struct tcp_pcb *pcb, uint32_t seq, uint8_t flags, const uint8_t *data,
     uint32_t len, uint16_t mss_opt)
{
	struct tcp_stack *s = pcb->stack;
	struct tcp_seg seg;

	memset(&seg, 0, sizeof(seg));
	seg.src = pcb->laddr;
	seg.dst = pcb->raddr;
	seg.sport = pcb->lport;
	seg.dport = pcb->rport;
	seg.seq = seq;
	seg.flags = flags;
	if (flags & TCP_ACK)
		seg.ack = pcb->rcv_nxt;
	seg.wnd = (flags & TCP_RST) ? 0 : tcp_rcv_window(pcb);
	seg.mss = mss_opt;
	seg.data = data;
	seg.len = len;
	seg.una = pcb->snd_una;
	seg.rexmit =
	    SEQ_LT(seq, pcb->snd_max) && (len != 0 || (flags & TCP_FIN));
	s->stats.segs_out++;
	s->stats.bytes_out += len;
	if (flags & TCP_RST)
		s->stats.resets_out++;
	if (flags & TCP_ACK) {
		pcb->rcv_acked = pcb->rcv_nxt;
		pcb->ack_owed = 0;
		pcb->ack_now = false;
		pcb->delack_at = TCP_TIMER_OFF;
	}
	s->env.emit(s->env.ctx, &seg);
}

void
tcp_rto_arm(struct tcp_pcb *pcb, uint64_t now)
{
	pcb->rto_at = now + pcb->rto;
}

/* RFC 6298 2.2/2.3, in fixed point: srtt8 = 8*SRTT, rttvar4 = 4*RTTVAR. */
void
tcp_rtt_sample(struct tcp_pcb *pcb, uint32_t r)
{
	const struct tcp_config *c = &pcb->stack->cfg;
	uint32_t rto;

	if (r == 0)
		r = 1;
	if (pcb->srtt8 == 0) {
		pcb->srtt8 = r * 8;
		pcb->rttvar4 = r * 2;
	} else {
		int32_t delta = (int32_t)r - (int32_t)(pcb->srtt8 / 8);
		uint32_t adelta =
		    delta < 0 ? (uint32_t)-delta : (uint32_t)delta;

		pcb->srtt8 = (uint32_t)((int32_t)pcb->srtt8 + delta);
		pcb->rttvar4 = pcb->rttvar4 - pcb->rttvar4 / 4 + adelta;
	}
	/* RTO = SRTT + max(G, 4*RTTVAR), G = 1 ms. */
	rto = pcb->srtt8 / 8 + (pcb->rttvar4 > 1 ? pcb->rttvar4 : 1);
	if (rto < c->rto_min_ms)
		rto = c->rto_min_ms;
	if (rto > c->rto_max_ms)
		rto = c->rto_max_ms;
	pcb->rto = rto;
}

void
tcp_send_syn(struct tcp_pcb *pcb, uint64_t now)
{
	uint8_t flags = TCP_SYN;

	if (pcb->state == TCP_SYN_RECEIVED)
		flags |= TCP_ACK;
	if (pcb->retries == 0 && !pcb->rtt_timing) {
		pcb->rtt_timing = true;
		pcb->rtt_seq = pcb->iss;
		pcb->rtt_start = now;
	}
	emit(pcb, pcb->iss, flags, NULL, 0, pcb->stack->cfg.mss);
	pcb->snd_nxt = pcb->iss + 1;
	if (SEQ_GT(pcb->snd_nxt, pcb->snd_max))
		pcb->snd_max = pcb->snd_nxt;
	if (pcb->rto_at == TCP_TIMER_OFF)
		tcp_rto_arm(pcb, now);
}

void
tcp_send_ack(struct tcp_pcb *pcb, uint64_t now)
{
	(void)now;
	pcb->ack_now = false;
	if (pcb->state <= TCP_SYN_SENT)
		return;
	emit(pcb, pcb->snd_nxt, TCP_ACK, NULL, 0, 0);
}

/* A window probe: an old sequence number the peer cannot accept, so it
 * answers with an ACK carrying its current window. */
void
tcp_send_probe(struct tcp_pcb *pcb, uint64_t now)
{
	(void)now;
	pcb->stack->stats.persist_probes++;
	emit(pcb, pcb->snd_una - 1, TCP_ACK, NULL, 0, 0);
}

/* RFC 9293 3.10.5 ABORT: <SEQ=SND.NXT><CTL=RST>, sent only when the peer
 * has a synchronized or SYN-RECEIVED view of the connection.  SND.MAX,
 * not a rewound SND.NXT: the peer's RCV.NXT is at most that, and an
 * in-window RST that misses brings a challenge ACK whose reset (from
 * tcp_respond_rst, the pcb being gone) then matches exactly. */
void
tcp_send_rst_for(struct tcp_pcb *pcb, uint64_t now)
{
	(void)now;
	if (pcb->state < TCP_SYN_RECEIVED || pcb->state == TCP_TIME_WAIT)
		return;
	emit(pcb, pcb->snd_max, TCP_RST | TCP_ACK, NULL, 0, 0);
}

/* RFC 9293 3.10.7.1: the reply to a segment for no connection. */
void
tcp_respond_rst(struct tcp_stack *s, const struct tcp_seg *in)
{
	struct tcp_seg seg;

	if (in->flags & TCP_RST)
		return;
	memset(&seg, 0, sizeof(seg));
	seg.src = in->dst;
	seg.dst = in->src;
	seg.sport = in->dport;
	seg.dport = in->sport;
	if (in->flags & TCP_ACK) {
		seg.seq = in->ack;
		seg.flags = TCP_RST;
	} else {
		seg.seq = 0;
		seg.ack = in->seq + (uint32_t)in->len +
		          ((in->flags & TCP_SYN) ? 1 : 0) +
		          ((in->flags & TCP_FIN) ? 1 : 0);
		seg.flags = TCP_RST | TCP_ACK;
	}
	s->stats.segs_out++;
	s->stats.resets_out++;
	s->env.emit(s->env.ctx, &seg);
}

/*
 * Sends receive-window news after the user read, when the right edge
 * can move by enough to matter (see tcp_rcv_window), the window the
 * peer has left is down to half the largest we can offer and the new
 * one is at least twice it (as Linux's tcp_cleanup_rbuf).  Above half,
 * the peer still has plenty to send with, and the ACKs its data brings
 * carry the new edge anyway: an update after every read cost one
 * segment each way per read (docs/tcp.md, "Receive throughput").
 */
void
tcp_window_update(struct tcp_pcb *pcb, uint64_t now)
{
	uint32_t cur = pcb->rcv_adv - pcb->rcv_nxt;
	uint32_t full = tcp_min32(pcb->rcvq.cap, TCP_MAX_WND);
	uint32_t room = tcp_min32(pcb->rcvq.cap - pcb->rcvq.len, TCP_MAX_WND);
	uint32_t step = tcp_min32(pcb->rcvq.cap / 2, 2u * pcb->mss);

	if (pcb->state < TCP_ESTABLISHED || pcb->fin_rcvd)
		return;
	if (room >= cur + step && cur <= full / 2 && room >= 2 * cur) {
		pcb->ack_now = true;
		tcp_output(pcb, now);
	}
}

static bool
can_send_data(enum tcp_state st)
{
	return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT ||
	       st == TCP_FIN_WAIT_1 || st == TCP_CLOSING || st == TCP_LAST_ACK;
}

/* Is a segment of n bytes (of unsent, with usable window) worth sending
 * now?  See the policy at the top of the file. */
static bool
worth_sending(const struct tcp_pcb *pcb, uint32_t n, uint32_t unsent)
{
	bool idle = pcb->snd_nxt == pcb->snd_una;

	if (n == pcb->mss)
		return true;
	if (n == unsent)
		return idle || pcb->stack->cfg.nodelay ||
		       pcb->snd_nxt != pcb->snd_max; /* resending */
	return idle || n >= pcb->max_snd_wnd / 2;
}

/* One segment from SND.NXT; false when nothing (more) should go. */
static bool
output_one(struct tcp_pcb *pcb, uint64_t now)
{
	struct tcp_stack *s = pcb->stack;
	uint32_t wnd = tcp_min32(pcb->snd_wnd, pcb->cwnd);
	uint32_t inflight = pcb->snd_nxt - pcb->snd_una;
	uint32_t usable = wnd > inflight ? wnd - inflight : 0;
	uint32_t unsent = tcp_unsent(pcb);
	uint32_t n = tcp_min32(tcp_min32(unsent, usable), pcb->mss);
	uint32_t off = pcb->snd_nxt - pcb->snd_buf_seq;
	const uint8_t *data = NULL;
	uint8_t flags = TCP_ACK;
	bool fin;

	fin = pcb->fin_queued && n == unsent && usable > n &&
	      pcb->snd_nxt + n == pcb->fin_seq;
	if (n == 0 && !fin)
		return false;
	if (n != 0 && !fin && !worth_sending(pcb, n, unsent))
		return false;
	if (n != 0) {
		uint32_t start = (pcb->sndq.head + off) % pcb->sndq.cap;

		if (start + n <= pcb->sndq.cap) {
			data = pcb->sndq.buf + start;
		} else {
			tcp_ring_peek(&pcb->sndq, off, s->scratch, n);
			data = s->scratch;
		}
		if (n == unsent)
			flags |= TCP_PSH;
	}
	if (fin)
		flags |= TCP_FIN;
	if (SEQ_LT(pcb->snd_nxt, pcb->snd_max)) {
		s->stats.retransmits++;
	} else if (!pcb->rtt_timing) {
		pcb->rtt_timing = true;
		pcb->rtt_seq = pcb->snd_nxt;
		pcb->rtt_start = now;
	}
	emit(pcb, pcb->snd_nxt, flags, data, n, 0);
	pcb->snd_nxt += n + (fin ? 1 : 0);
	if (SEQ_GT(pcb->snd_nxt, pcb->snd_max))
		pcb->snd_max = pcb->snd_nxt;
	if (pcb->rto_at == TCP_TIMER_OFF)
		tcp_rto_arm(pcb, now);
	pcb->persist_at = TCP_TIMER_OFF;
	return true;
}

/* Resends the first unacknowledged segment and nothing else (fast
 * retransmit and NewReno partial ACKs, RFC 6582). */
void
tcp_retransmit_first(struct tcp_pcb *pcb, uint64_t now)
{
	uint32_t save = pcb->snd_nxt, cwnd = pcb->cwnd;

	pcb->snd_nxt = pcb->snd_una;
	pcb->cwnd = pcb->mss;
	output_one(pcb, now);
	pcb->cwnd = cwnd;
	if (SEQ_GT(save, pcb->snd_nxt))
		pcb->snd_nxt = save;
}

/* Effective send MSS: the peer's option (RFC 9293 3.7.1, 536 without
 * one) capped by ours and raised to TCP_MIN_MSS; the initial window
 * follows from it (RFC 5681 3.1). */
void
tcp_set_peer_mss(struct tcp_pcb *pcb, uint16_t mss_opt)
{
	uint32_t mss = mss_opt != 0 ? mss_opt : TCP_DEFAULT_MSS;

	mss = tcp_min32(mss, pcb->stack->cfg.mss);
	if (mss < TCP_MIN_MSS)
		mss = TCP_MIN_MSS;
	pcb->mss = (uint16_t)mss;
	pcb->cwnd = mss > 2190 ? 2 * mss : mss > 1095 ? 3 * mss : 4 * mss;
	pcb->ssthresh = UINT32_MAX / 2;
}

void
tcp_output(struct tcp_pcb *pcb, uint64_t now)
{
	bool fin_unsent;

	if (can_send_data(pcb->state)) {
		while (output_one(pcb, now))
			;
		fin_unsent =
		    pcb->fin_queued && SEQ_LEQ(pcb->snd_max, pcb->fin_seq);
		/* Zero window with something to say and nothing in flight. */
		if (pcb->snd_wnd == 0 && pcb->snd_una == pcb->snd_max &&
		    (tcp_unsent(pcb) != 0 || fin_unsent) &&
		    pcb->persist_at == TCP_TIMER_OFF) {
			pcb->persist_backoff = 0;
			pcb->persist_at = now + (pcb->rto > TCP_PERSIST_MIN_MS
			                             ? pcb->rto
			                             : TCP_PERSIST_MIN_MS);
		}
	}
	if (pcb->ack_now)
		tcp_send_ack(pcb, now);
}
