/*
 * Segment arrival (RFC 9293 3.10.7), in the RFC's order of checks:
 *
 *   no connection      reset (3.10.7.1)
 *   LISTEN             SYN makes an embryonic child (3.10.7.2)
 *   SYN-SENT           SYN-ACK completes, bare SYN is a simultaneous open
 *   everything else    1 acceptability, 2 RST, 4 SYN, 5 ACK, 7 text,
 *                      8 FIN (3.10.7.4), with RFC 5961's challenge ACKs
 *                      for in-window RSTs and any SYN, and its ACK range
 *
 * Choices the RFC leaves open (docs/tcp.md has the reasoning):
 *  - out-of-order data inside the window is kept (up to TCP_OOO_MAX
 *    ranges, stored in the receive ring at its final place) and
 *    answered with an immediate duplicate ACK; an out-of-order FIN is
 *    not kept;
 *  - data and FIN carried by a SYN are dropped (the peer resends them);
 *  - RST in TIME-WAIT is ignored when cfg.rfc1337 (RFC 1337 TWA);
 *  - a SYN to a TIME-WAIT connection with a sequence number above
 *    RCV.NXT reopens it through the listener (RFC 1122 4.2.2.13);
 *  - new data for a socket the user closed is answered with a reset.
 *
 * ACK policy: immediate for out-of-window, out-of-order and beyond-
 * window data, a segment that fills a hole, a FIN, every second data
 * segment, challenge ACKs and window updates after a read; otherwise
 * delayed by cfg.delack_ms.
 */
#include "net/tcp/tcp_priv.h"

/* The pcb may have been freed: callers stop using it when this is set. */
struct in_ctx {
	struct tcp_stack *s;
	struct tcp_pcb *pcb;
	const struct tcp_seg *seg;
	uint64_t now;
	enum tcp_drop why;
	bool gone;
};

static void
finish(struct in_ctx *c, int err)
{
	tcp_pcb_terminate(c->pcb, err, c->now);
	c->gone = true;
}

static void
challenge_ack(struct in_ctx *c, enum tcp_drop why)
{
	c->s->stats.challenge_acks++;
	c->pcb->ack_now = true;
	c->why = why;
}

/* ---- LISTEN ----------------------------------------------------------- */
static void
listen_input(struct tcp_stack *s, struct tcp_pcb *l, const struct tcp_seg *seg,
             uint64_t now, bool have_min_iss, uint32_t min_iss,
             enum tcp_drop *why)
{
	struct tcp_pcb *c;

	if (seg->flags & TCP_RST) {
		*why = TCP_DROP_LISTEN_NOT_SYN;
		return;
	}
	if (seg->flags & TCP_ACK) {
		tcp_respond_rst(s, seg);
		*why = TCP_DROP_LISTEN_NOT_SYN;
		return;
	}
	if (!(seg->flags & TCP_SYN)) {
		*why = TCP_DROP_LISTEN_NOT_SYN;
		return;
	}
	if (s->going) {
		tcp_respond_rst(s, seg);
		*why = TCP_DROP_LISTEN_GOING;
		return;
	}
	if (l->nchild >= l->backlog) {
		/* Silently: the peer retries its SYN (as Linux does). */
		*why = TCP_DROP_LISTEN_OVERFLOW;
		return;
	}
	c = tcp_pcb_alloc(s);
	if (c == NULL || tcp_pcb_alloc_buffers(c) < 0) {
		if (c != NULL)
			tcp_pcb_terminate(c, 0, now);
		*why = TCP_DROP_NO_MEMORY;
		return;
	}
	c->laddr = seg->dst;
	c->lport = seg->dport;
	c->raddr = seg->src;
	c->rport = seg->sport;
	c->bound = c->passive = true;
	c->listener = l;
	l->nchild++;
	c->irs = seg->seq;
	c->rcv_nxt = c->rcv_adv = seg->seq + 1;
	c->iss =
	    s->env.isn(s->env.ctx, c->laddr, c->lport, c->raddr, c->rport, now);
	/* A reopened TIME-WAIT: the new ISS must lie above the old
	 * sequence space (RFC 1122 4.2.2.13, RFC 6191 2). */
	if (have_min_iss && SEQ_LEQ(c->iss, min_iss))
		c->iss = min_iss + 1;
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->snd_buf_seq = c->iss + 1;
	c->snd_wnd = c->max_snd_wnd = seg->wnd;
	c->snd_wl1 = seg->seq;
	c->snd_wl2 = c->iss;
	tcp_set_peer_mss(c, seg->mss);
	s->stats.passive_opens++;
	tcp_set_state(c, TCP_SYN_RECEIVED, now);
	tcp_send_syn(c, now);
}

/* ---- data and FIN (steps 7 and 8), shared with SYN-SENT ------------------ */
static void
schedule_ack(struct in_ctx *c)
{
	struct tcp_pcb *pcb = c->pcb;
	uint32_t stretch = c->s->cfg.ack_stretch;

	pcb->ack_owed++;
	if (c->s->cfg.delack_ms == 0) {
		pcb->ack_now = true;
	} else if (stretch != 0) {
		/* Due now, sent by the tick at the end of the batch, unless
		 * enough is unacknowledged to send it at once. */
		if (pcb->rcv_nxt - pcb->rcv_acked >= stretch) {
			pcb->ack_now = true;
		} else {
			pcb->delack_at = tcp_min64(pcb->delack_at, c->now);
			c->s->ack_deferred = true;
		}
	} else if (pcb->ack_owed >= 2) {
		pcb->ack_now = true;
	} else if (pcb->delack_at == TCP_TIMER_OFF) {
		pcb->delack_at = c->now + c->s->cfg.delack_ms;
	}
}

/* Keeps out-of-window-order data (seq > RCV.NXT, inside the window) in
 * the ring at its place and records the range; false when there is no
 * range left for it. */
static bool
ooo_store(struct tcp_pcb *pcb, uint32_t seq, const uint8_t *data, uint32_t len)
{
	uint32_t end = seq + len;
	unsigned i, j;

	tcp_ring_write_at(&pcb->rcvq, pcb->rcvq.len + (seq - pcb->rcv_nxt),
	                  data, len);
	/* Merge with every range it touches or overlaps. */
	for (i = 0; i < pcb->nooo && SEQ_LT(pcb->ooo[i].end, seq); i++)
		;
	j = i;
	while (j < pcb->nooo && SEQ_LEQ(pcb->ooo[j].start, end)) {
		if (SEQ_LT(pcb->ooo[j].start, seq))
			seq = pcb->ooo[j].start;
		if (SEQ_GT(pcb->ooo[j].end, end))
			end = pcb->ooo[j].end;
		j++;
	}
	if (j == i && pcb->nooo == TCP_OOO_MAX)
		return false; /* (its bytes in the ring are simply unused) */
	/* Replace ranges i..j-1 by one. */
	memmove(&pcb->ooo[i + 1], &pcb->ooo[j],
	        (pcb->nooo - j) * sizeof(pcb->ooo[0]));
	pcb->nooo = pcb->nooo - (j - i) + 1;
	pcb->ooo[i].start = seq;
	pcb->ooo[i].end = end;
	return true;
}

/* After RCV.NXT advanced: data queued out of order that now follows on
 * is already in the ring, so it only needs counting.  Returns bytes. */
static uint32_t
ooo_advance(struct tcp_pcb *pcb)
{
	uint32_t got = 0;

	while (pcb->nooo != 0 && SEQ_LEQ(pcb->ooo[0].start, pcb->rcv_nxt)) {
		if (SEQ_GT(pcb->ooo[0].end, pcb->rcv_nxt)) {
			uint32_t n = pcb->ooo[0].end - pcb->rcv_nxt;

			pcb->rcvq.len += n;
			pcb->rcv_nxt += n;
			got += n;
		}
		pcb->nooo--;
		memmove(&pcb->ooo[0], &pcb->ooo[1],
		        pcb->nooo * sizeof(pcb->ooo[0]));
	}
	return got;
}

/* Takes data at seq (the SYN already skipped) and a FIN right after it:
 * in order into the ring, out of order into its place in the ring. */
static void
take_text_fin(struct in_ctx *c, uint32_t seq, const uint8_t *data, uint32_t len,
              bool fin)
{
	struct tcp_pcb *pcb = c->pcb;
	uint32_t wnd, n, skip, fin_at = seq + len;

	if (SEQ_LT(seq, pcb->rcv_nxt)) {
		skip = pcb->rcv_nxt - seq;
		if (skip > len) { /* all old, FIN included */
			pcb->ack_now = true;
			return;
		}
		seq += skip;
		data += skip;
		len -= skip;
	}
	if (pcb->state == TCP_CLOSE_WAIT || pcb->state == TCP_CLOSING ||
	    pcb->state == TCP_LAST_ACK || pcb->state == TCP_TIME_WAIT) {
		/* After the peer's FIN nothing more can come. */
		if (len != 0 || fin) {
			pcb->ack_now = true;
			c->why = TCP_DROP_DATA_AFTER_FIN;
		}
		return;
	}
	wnd = pcb->rcv_adv - pcb->rcv_nxt;
	if (seq != pcb->rcv_nxt) {
		/* RFC 5681 4.2: a duplicate ACK at once, for fast retransmit.
		 * An out-of-order FIN is forgotten; the peer repeats it. */
		uint32_t off = seq - pcb->rcv_nxt;

		pcb->ack_now = true;
		n = off < wnd ? tcp_min32(len, wnd - off) : 0;
		if (n == 0 || pcb->rcv_shut || !ooo_store(pcb, seq, data, n))
			c->why = TCP_DROP_OUT_OF_ORDER;
		else
			c->s->stats.ooo_queued++;
		return;
	}
	n = tcp_min32(len, wnd);
	if (n < len) {
		fin = false; /* the FIN lies beyond the window too */
		pcb->ack_now = true;
	}
	if (n != 0 && pcb->rcv_shut) {
		/* Nobody will read it: reset, as RFC 2525 2.17 for close. */
		tcp_send_rst_for(pcb, c->now);
		c->why = TCP_DROP_DATA_AFTER_CLOSE;
		finish(c, 0);
		return;
	}
	if (n != 0) {
		tcp_ring_put(&pcb->rcvq, data, n);
		pcb->rcv_nxt += n;
		if (pcb->nooo != 0 && ooo_advance(pcb) != 0)
			pcb->ack_now = true; /* a hole filled: say so now */
		c->s->stats.bytes_in += n;
		schedule_ack(c);
		tcp_event(pcb, TCP_EV_READABLE);
	}
	if (!fin || pcb->rcv_nxt != fin_at || pcb->rcv_adv == pcb->rcv_nxt) {
		if (fin)
			pcb->ack_now = true;
		return;
	}
	pcb->rcv_nxt++;
	pcb->fin_rcvd = true;
	pcb->nooo = 0;
	pcb->ack_now = true;
	tcp_event(pcb, TCP_EV_READABLE);
	switch (pcb->state) {
	case TCP_SYN_RECEIVED:
	case TCP_ESTABLISHED:
		tcp_set_state(pcb, TCP_CLOSE_WAIT, c->now);
		break;
	case TCP_FIN_WAIT_1: /* our FIN not acked yet, or we'd be in FW2 */
		tcp_set_state(pcb, TCP_CLOSING, c->now);
		break;
	case TCP_FIN_WAIT_2:
		tcp_set_state(pcb, TCP_TIME_WAIT, c->now);
		break;
	default:
		break;
	}
}

/* ---- SYN-SENT (3.10.7.3) ------------------------------------------------ */
static void
became_established(struct in_ctx *c)
{
	struct tcp_pcb *pcb = c->pcb;

	tcp_set_state(pcb, TCP_ESTABLISHED, c->now);
	if (pcb->listener != NULL) {
		tcp_link_insert_after(pcb->listener->acceptq.prev,
		                      &pcb->aq_link);
		pcb->queued = true;
		tcp_event(pcb->listener, TCP_EV_ACCEPT);
	} else {
		tcp_event(pcb, TCP_EV_CONNECTED | TCP_EV_WRITABLE);
	}
	if (pcb->fin_queued)
		tcp_set_state(pcb, TCP_FIN_WAIT_1, c->now);
}

static void ack_new(struct in_ctx *c, uint32_t ack);

static void
syn_sent_input(struct in_ctx *c)
{
	const struct tcp_seg *seg = c->seg;
	struct tcp_pcb *pcb = c->pcb;
	bool ack_ok = false;

	if (seg->flags & TCP_ACK) {
		if (SEQ_LEQ(seg->ack, pcb->iss) ||
		    SEQ_GT(seg->ack, pcb->snd_max)) {
			tcp_respond_rst(c->s, seg);
			c->why = TCP_DROP_SYN_SENT_BAD_ACK;
			return;
		}
		ack_ok = true;
	}
	if (seg->flags & TCP_RST) {
		if (!ack_ok) {
			c->why = TCP_DROP_RST_OUT_OF_WINDOW;
			return;
		}
		c->s->stats.resets_in++;
		finish(c, -ECONNREFUSED);
		return;
	}
	if (!(seg->flags & TCP_SYN)) {
		c->why = TCP_DROP_SYN_SENT_NO_SYN;
		return;
	}
	pcb->irs = seg->seq;
	pcb->rcv_nxt = seg->seq + 1;
	pcb->rcv_adv = pcb->rcv_nxt +
	               tcp_min32(pcb->rcvq.cap - pcb->rcvq.len, TCP_MAX_WND);
	tcp_set_peer_mss(pcb, seg->mss);
	pcb->snd_wnd = pcb->max_snd_wnd = seg->wnd;
	pcb->snd_wl1 = seg->seq;
	pcb->snd_wl2 = seg->ack;
	if (!ack_ok) {
		/* Simultaneous open: SYN-ACK from SYN-RECEIVED. */
		tcp_set_state(pcb, TCP_SYN_RECEIVED, c->now);
		tcp_send_syn(pcb, c->now);
		return;
	}
	ack_new(c, seg->ack);
	pcb->ack_now = true;
	became_established(c);
	take_text_fin(c, seg->seq + 1, seg->data, (uint32_t)seg->len,
	              seg->flags & TCP_FIN);
}

/* ---- ACK processing (step 5) ------------------------------------------- */
static void
cwnd_grow(struct tcp_pcb *pcb, uint32_t acked)
{
	uint32_t inc;

	if (pcb->cwnd < pcb->ssthresh)
		inc = tcp_min32(acked, pcb->mss); /* slow start */
	else
		inc = (uint32_t)pcb->mss * pcb->mss / pcb->cwnd;
	if (inc == 0)
		inc = 1;
	if (pcb->cwnd < (1u << 30))
		pcb->cwnd += inc;
}

/* SND.UNA < ack <= SND.MAX: drop acknowledged data and update the
 * estimator, congestion window and retransmission timer. */
static void
ack_new(struct in_ctx *c, uint32_t ack)
{
	struct tcp_pcb *pcb = c->pcb;
	uint32_t d = 0;

	if (SEQ_GT(ack, pcb->snd_buf_seq)) {
		d = tcp_min32(ack - pcb->snd_buf_seq, pcb->sndq.len);
		tcp_ring_drop(&pcb->sndq, d);
		pcb->snd_buf_seq += d;
	}
	pcb->snd_una = ack;
	if (SEQ_LT(pcb->snd_nxt, ack))
		pcb->snd_nxt = ack;
	if (pcb->rtt_timing && SEQ_GT(ack, pcb->rtt_seq)) {
		pcb->rtt_timing = false;
		tcp_rtt_sample(pcb, (uint32_t)(c->now - pcb->rtt_start));
	}
	pcb->retries = 0;
	pcb->dupacks = 0;
	if (pcb->in_recovery) {
		if (SEQ_GEQ(ack, pcb->recover)) {
			pcb->in_recovery = false;
			pcb->cwnd = pcb->ssthresh;
		} else {
			tcp_retransmit_first(pcb, c->now); /* partial ACK */
		}
	} else if (d != 0) {
		cwnd_grow(pcb, d);
	}
	if (pcb->snd_una == pcb->snd_max)
		pcb->rto_at = TCP_TIMER_OFF;
	else
		tcp_rto_arm(pcb, c->now);
	if (d != 0)
		tcp_event(pcb, TCP_EV_WRITABLE);
}

static bool
our_fin_acked(const struct tcp_pcb *pcb)
{
	return pcb->fin_queued && SEQ_GT(pcb->snd_una, pcb->fin_seq);
}

/* Three duplicate ACKs (RFC 5681 3.2): resend the first segment. */
static void
dupack(struct in_ctx *c)
{
	struct tcp_pcb *pcb = c->pcb;
	uint32_t half;

	if (++pcb->dupacks != 3 || pcb->in_recovery)
		return;
	half = tcp_flight(pcb) / 2;
	pcb->ssthresh = half > 2u * pcb->mss ? half : 2u * pcb->mss;
	pcb->cwnd = pcb->ssthresh;
	pcb->in_recovery = true;
	pcb->recover = pcb->snd_max;
	pcb->rtt_timing = false;
	c->s->stats.fast_retransmits++;
	tcp_retransmit_first(pcb, c->now);
}

/* Returns false when processing of the segment ends here. */
static bool
process_ack(struct in_ctx *c)
{
	const struct tcp_seg *seg = c->seg;
	struct tcp_pcb *pcb = c->pcb;
	uint32_t oldest = pcb->snd_una - pcb->max_snd_wnd;

	if (pcb->state == TCP_SYN_RECEIVED) {
		if (!SEQ_GT(seg->ack, pcb->snd_una) ||
		    SEQ_GT(seg->ack, pcb->snd_max)) {
			tcp_respond_rst(c->s, seg);
			c->why = TCP_DROP_SYN_RCVD_BAD_ACK;
			return false;
		}
		pcb->snd_wnd = seg->wnd;
		if (seg->wnd > pcb->max_snd_wnd)
			pcb->max_snd_wnd = seg->wnd;
		pcb->snd_wl1 = seg->seq;
		pcb->snd_wl2 = seg->ack;
		ack_new(c, seg->ack);
		became_established(c);
		return true;
	}
	if (SEQ_GT(seg->ack, pcb->snd_max)) {
		pcb->ack_now = true;
		c->why = TCP_DROP_ACK_UNSENT;
		return false;
	}
	if (SEQ_LT(seg->ack, oldest)) {
		challenge_ack(c, TCP_DROP_ACK_TOO_OLD); /* RFC 5961 5.2 */
		return false;
	}
	if (SEQ_GT(seg->ack, pcb->snd_una))
		ack_new(c, seg->ack);
	else if (seg->ack == pcb->snd_una && seg->len == 0 &&
	         !(seg->flags & TCP_FIN) && seg->wnd == pcb->snd_wnd &&
	         pcb->snd_una != pcb->snd_max)
		dupack(c);
	if (SEQ_GEQ(seg->ack, pcb->snd_una) &&
	    (SEQ_LT(pcb->snd_wl1, seg->seq) ||
	     (pcb->snd_wl1 == seg->seq && SEQ_LEQ(pcb->snd_wl2, seg->ack)))) {
		pcb->snd_wnd = seg->wnd;
		pcb->snd_wl1 = seg->seq;
		pcb->snd_wl2 = seg->ack;
		if (seg->wnd > pcb->max_snd_wnd)
			pcb->max_snd_wnd = seg->wnd;
		if (seg->wnd != 0)
			pcb->persist_at = TCP_TIMER_OFF;
		else
			pcb->retries = 0; /* the peer answers: not dead */
	}
	switch (pcb->state) {
	case TCP_FIN_WAIT_1:
		if (our_fin_acked(pcb)) {
			tcp_set_state(pcb, TCP_FIN_WAIT_2, c->now);
			if (!pcb->user_held)
				pcb->fw2_at = c->now + c->s->cfg.fin_wait2_ms;
		}
		break;
	case TCP_CLOSING:
		if (our_fin_acked(pcb))
			tcp_set_state(pcb, TCP_TIME_WAIT, c->now);
		break;
	case TCP_LAST_ACK:
		if (our_fin_acked(pcb)) {
			finish(c, 0);
			return false;
		}
		break;
	default:
		break;
	}
	return true;
}

/* ---- synchronized states and SYN-RECEIVED (3.10.7.4) ----------------------
 */
static bool
acceptable(const struct tcp_pcb *pcb, uint32_t seq, uint32_t seg_len)
{
	uint32_t wnd = pcb->rcv_adv - pcb->rcv_nxt;

	if (SEQ_LT(pcb->rcv_adv, pcb->rcv_nxt))
		wnd = 0;
	if (seg_len == 0) {
		if (wnd == 0)
			return seq == pcb->rcv_nxt;
		return seq - pcb->rcv_nxt < wnd;
	}
	if (wnd == 0)
		return false;
	return seq - pcb->rcv_nxt < wnd ||
	       seq + seg_len - 1 - pcb->rcv_nxt < wnd;
}

static void
unacceptable(struct in_ctx *c)
{
	const struct tcp_seg *seg = c->seg;
	struct tcp_pcb *pcb = c->pcb;

	if (seg->flags & TCP_RST) {
		c->why = TCP_DROP_RST_OUT_OF_WINDOW;
		return;
	}
	if (pcb->state == TCP_SYN_RECEIVED && (seg->flags & TCP_SYN) &&
	    !(seg->flags & TCP_ACK) && seg->seq == pcb->irs) {
		/* The peer did not get our SYN-ACK and resent its SYN.  (A
		 * SYN-ACK here is the other half of a simultaneous open: the
		 * plain ACK below completes it, RFC 9293 figure 8.) */
		tcp_send_syn(pcb, c->now);
		return;
	}
	if (pcb->state == TCP_TIME_WAIT && (seg->flags & TCP_FIN) &&
	    seg->seq + (uint32_t)seg->len + 1 == pcb->rcv_nxt)
		tcp_time_wait_arm(pcb, c->now); /* retransmitted FIN */
	pcb->ack_now = true;
	c->why = TCP_DROP_NOT_ACCEPTABLE;
}

static void
rst_input(struct in_ctx *c)
{
	struct tcp_pcb *pcb = c->pcb;

	if (c->seg->seq != pcb->rcv_nxt) {
		challenge_ack(c, TCP_DROP_RST_CHALLENGED); /* RFC 5961 3.2 */
		return;
	}
	if (pcb->state == TCP_TIME_WAIT && c->s->cfg.rfc1337) {
		c->why = TCP_DROP_RST_TIME_WAIT;
		return;
	}
	c->s->stats.resets_in++;
	switch (pcb->state) {
	case TCP_SYN_RECEIVED:
		/* A passive child just goes away; the listener stays. */
		finish(c, pcb->passive ? 0 : -ECONNREFUSED);
		break;
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
	case TCP_CLOSE_WAIT:
		finish(c, -ECONNRESET);
		break;
	default:
		finish(c, 0);
		break;
	}
}

/* A SYN for a TIME-WAIT connection that starts above its sequence space
 * (RFC 1122 4.2.2.13) hands the port pair to the listener. */
static bool
time_wait_reopen(struct in_ctx *c)
{
	const struct tcp_seg *seg = c->seg;
	struct tcp_pcb *pcb = c->pcb, *l;
	uint32_t min_iss = pcb->snd_max;

	if (!(seg->flags & TCP_SYN) || (seg->flags & TCP_ACK) ||
	    !SEQ_GT(seg->seq, pcb->rcv_nxt))
		return false;
	l = tcp_lookup_listener(c->s, seg->dst, seg->dport);
	if (l == NULL)
		return false;
	finish(c, 0);
	listen_input(c->s, l, seg, c->now, true, min_iss, &c->why);
	return true;
}

static void
sync_input(struct in_ctx *c)
{
	const struct tcp_seg *seg = c->seg;
	struct tcp_pcb *pcb = c->pcb;
	uint32_t seg_len = (uint32_t)seg->len +
	                   ((seg->flags & TCP_SYN) ? 1 : 0) +
	                   ((seg->flags & TCP_FIN) ? 1 : 0);
	bool keep_text = true;

	if (pcb->state == TCP_TIME_WAIT && time_wait_reopen(c))
		return;
	if (!acceptable(pcb, seg->seq, seg_len)) {
		/* RCV.WND = 0: still take ACK and RST of the next segment
		 * (RFC 9293 3.10.7.4), drop its text. */
		if (pcb->rcv_adv == pcb->rcv_nxt && seg->seq == pcb->rcv_nxt &&
		    !(seg->flags & TCP_SYN)) {
			keep_text = false;
			pcb->ack_now = true;
		} else {
			unacceptable(c);
			return;
		}
	}
	if (seg->flags & TCP_RST) {
		rst_input(c);
		return;
	}
	if (seg->flags & TCP_SYN) {
		if (pcb->state == TCP_SYN_RECEIVED && pcb->passive) {
			finish(c, 0); /* back to LISTEN (3.10.7.4 fourth) */
			return;
		}
		challenge_ack(c, TCP_DROP_SYN_CHALLENGED); /* RFC 5961 4 */
		return;
	}
	if (!(seg->flags & TCP_ACK)) {
		c->why = TCP_DROP_NO_ACK;
		return;
	}
	if (!process_ack(c) || c->gone)
		return;
	if (keep_text)
		take_text_fin(c, seg->seq, seg->data, (uint32_t)seg->len,
		              seg->flags & TCP_FIN);
}

void
tcp_input_seg(struct tcp_stack *s, const struct tcp_seg *seg, uint64_t now,
              enum tcp_drop *why)
{
	struct in_ctx c = {
	    .s = s, .seg = seg, .now = now, .why = TCP_DROP_NONE};

	c.pcb = tcp_lookup(s, seg);
	if (c.pcb == NULL) {
		tcp_respond_rst(s, seg);
		*why = TCP_DROP_NO_SOCKET;
		return;
	}
	switch (c.pcb->state) {
	case TCP_LISTEN:
		listen_input(s, c.pcb, seg, now, false, 0, &c.why);
		*why = c.why;
		return;
	case TCP_SYN_SENT:
		syn_sent_input(&c);
		break;
	default:
		sync_input(&c);
		break;
	}
	if (!c.gone)
		tcp_output(c.pcb, now);
	*why = c.why;
}

enum tcp_drop
tcp_input(struct tcp_stack *s, uint32_t src, uint32_t dst, const uint8_t *pkt,
          size_t len, uint64_t now)
{
	struct tcp_seg seg;
	enum tcp_drop why;

	s->stats.segs_in++;
	why = tcp_parse(src, dst, pkt, len, &seg);
	if (why == TCP_DROP_NONE)
		tcp_input_seg(s, &seg, now, &why);
	tcp_drop(s, why);
	return why;
}
