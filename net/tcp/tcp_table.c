/*
 * Whole-table operations: what rmmod and `ss` ask of the stack (counts by
 * state, the TIME_WAIT that ends last, purge, reset everything), and the
 * consistency check the tests run after every step.
 */
#include "net/tcp/tcp_priv.h"

static const char *const drop_names[] = {
#define TCP_DROP_NAME(n, text) #n,
    TCP_DROP_REASONS(TCP_DROP_NAME)
#undef TCP_DROP_NAME
};

static const char *const drop_texts[] = {
#define TCP_DROP_TEXT(n, text) text,
    TCP_DROP_REASONS(TCP_DROP_TEXT)
#undef TCP_DROP_TEXT
};

const char *
tcp_drop_name(enum tcp_drop why)
{
	return (unsigned)why < TCP_DROP_NREASONS ? drop_names[why] : "?";
}

const char *
tcp_drop_text(enum tcp_drop why)
{
	return (unsigned)why < TCP_DROP_NREASONS ? drop_texts[why] : "?";
}

void
tcp_foreach(const struct tcp_stack *s,
            void (*fn)(void *arg, const struct tcp_pcb *pcb), void *arg)
{
	int i;

	for (i = 0; i < TCP_NLISTS; i++) {
		const struct tcp_link *l;

		for (l = s->lists[i].next; l != &s->lists[i]; l = l->next)
			fn(arg, TCP_PCB_OF(l));
	}
}

unsigned
tcp_count_by_state(const struct tcp_stack *s, unsigned counts[TCP_NSTATES])
{
	unsigned total = 0;
	int i;

	memset(counts, 0, sizeof(unsigned) * TCP_NSTATES);
	for (i = 0; i < TCP_NLISTS; i++) {
		const struct tcp_link *l;

		for (l = s->lists[i].next; l != &s->lists[i]; l = l->next) {
			counts[TCP_PCB_OF(l)->state]++;
			total++;
		}
	}
	return total;
}

uint64_t
tcp_time_wait_longest(const struct tcp_stack *s, uint64_t now)
{
	const struct tcp_link *last = s->lists[TCP_LIST_TIME_WAIT].prev;

	if (last == &s->lists[TCP_LIST_TIME_WAIT])
		return 0;
	return TCP_PCB_OF(last)->tw_at > now ? TCP_PCB_OF(last)->tw_at - now
	                                     : 0;
}

unsigned
tcp_purge_time_wait(struct tcp_stack *s)
{
	struct tcp_pcb *pcb;
	unsigned n = 0;

	TCP_FOREACH_SAFE(s, TCP_LIST_TIME_WAIT, pcb)
	{
		/* The connection completed normally: no error to report. */
		tcp_pcb_terminate(pcb, 0, pcb->tw_at);
		n++;
	}
	s->stats.time_wait_purged += n;
	return n;
}

unsigned
tcp_reset_all(struct tcp_stack *s, uint64_t now)
{
	struct tcp_pcb *pcb;
	unsigned n = 0;

	/* Connections first: a listener's close would free its children
	 * under the iteration. */
	TCP_FOREACH_SAFE(s, TCP_LIST_ACTIVE, pcb)
	{
		tcp_send_rst_for(pcb, now);
		tcp_pcb_terminate(pcb, -ECONNRESET, now);
		n++;
	}
	TCP_FOREACH_SAFE(s, TCP_LIST_LISTEN, pcb)
	{
		tcp_pcb_terminate(pcb, -ECONNRESET, now);
		n++;
	}
	return n;
}

void
tcp_get_info(const struct tcp_pcb *pcb, uint64_t now, struct tcp_info *info)
{
	static const struct {
		size_t off;
		const char *name;
	} timers[] = {
	    {offsetof(struct tcp_pcb, rto_at), "rto"},
	    {offsetof(struct tcp_pcb, persist_at), "persist"},
	    {offsetof(struct tcp_pcb, delack_at), "delack"},
	    {offsetof(struct tcp_pcb, tw_at), "timewait"},
	    {offsetof(struct tcp_pcb, fw2_at), "finwait2"},
	};
	uint64_t best = TCP_TIMER_OFF;
	unsigned i;

	memset(info, 0, sizeof(*info));
	info->state = pcb->state;
	info->laddr = pcb->laddr;
	info->raddr = pcb->raddr;
	info->lport = pcb->lport;
	info->rport = pcb->rport;
	info->rx_queued = pcb->rcvq.len;
	info->tx_queued = pcb->sndq.len;
	info->timer = "";
	for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		uint64_t at;

		memcpy(&at, (const char *)pcb + timers[i].off, sizeof(at));
		if (at < best) {
			best = at;
			info->timer = timers[i].name;
		}
	}
	info->timer_ms = best == TCP_TIMER_OFF ? 0
	                 : best > now          ? best - now
	                                       : 0;
	info->rto_ms = pcb->rto;
	info->srtt_ms = pcb->srtt8 / 8;
	info->mss = pcb->mss;
	info->retries = pcb->retries;
	info->orphan = !pcb->user_held && pcb->listener == NULL;
	info->err = pcb->err;
}

/* ---- consistency ------------------------------------------------------ */
static bool
state_on_list(enum tcp_state st, enum tcp_list_id id)
{
	switch (id) {
	case TCP_LIST_CLOSED:
		return st == TCP_CLOSED;
	case TCP_LIST_LISTEN:
		return st == TCP_LISTEN;
	case TCP_LIST_TIME_WAIT:
		return st == TCP_TIME_WAIT;
	default:
		return st >= TCP_SYN_SENT && st <= TCP_LAST_ACK;
	}
}

static bool
ring_sane(const struct tcp_ring *r)
{
	if (r->buf == NULL)
		return r->cap == 0 && r->len == 0 && r->head == 0;
	return r->len <= r->cap && r->head < r->cap;
}

/* One pcb on its own; NULL when fine. */
static const char *
pcb_sane(const struct tcp_stack *s, const struct tcp_pcb *p)
{
	if (p->stack != s)
		return "pcb belongs to another stack";
	if (!ring_sane(&p->sndq) || !ring_sane(&p->rcvq))
		return "ring buffer out of bounds";
	if (p->state == TCP_CLOSED && !p->user_held && p->listener == NULL)
		return "orphan in CLOSED was not freed";
	if (p->user_held && p->listener != NULL)
		return "user holds a listener's child";
	if (p->state == TCP_LISTEN) {
		if (p->nchild > p->backlog)
			return "listener has more children than its backlog";
		return NULL;
	}
	if (p->state < TCP_SYN_SENT)
		return NULL;
	if (p->raddr == 0 || p->rport == 0 || p->lport == 0 || p->laddr == 0)
		return "connected pcb without both endpoints";
	if (p->state != TCP_TIME_WAIT && p->sndq.buf == NULL)
		return "connection without a send buffer";
	if (!SEQ_LEQ(p->snd_una, p->snd_nxt) ||
	    !SEQ_LEQ(p->snd_nxt, p->snd_max))
		return "not SND.UNA <= SND.NXT <= SND.MAX";
	if (p->state != TCP_TIME_WAIT) {
		/* Everything sent is SYN, buffered data or FIN. */
		uint32_t room = p->sndq.len + (p->fin_queued ? 1u : 0u);
		uint32_t syn = SEQ_LT(p->snd_una, p->snd_buf_seq)
		                   ? p->snd_buf_seq - p->snd_una
		                   : 0;
		if (syn > 1)
			return "SND.UNA more than the SYN behind the buffer";
		if (syn == 0 && p->snd_una != p->snd_buf_seq &&
		    !(p->fin_queued && p->snd_una == p->fin_seq + 1))
			return "SND.UNA is not the first buffered byte";
		if (p->snd_max - p->snd_una > room + syn)
			return "more in flight than SYN, buffer and FIN";
		if (p->fin_queued &&
		    p->fin_seq != p->snd_buf_seq + p->sndq.len &&
		    !(p->sndq.len == 0 && p->snd_una == p->fin_seq + 1))
			return "FIN sequence number is not after the data";
	}
	if (p->state >= TCP_SYN_RECEIVED && SEQ_LT(p->rcv_adv, p->rcv_nxt))
		return "announced window edge behind RCV.NXT";
	if (p->rcvq.buf != NULL && p->state >= TCP_SYN_RECEIVED &&
	    p->rcv_adv - p->rcv_nxt > p->rcvq.cap - p->rcvq.len)
		return "window promises more than the free receive buffer";
	if (p->nooo > TCP_OOO_MAX)
		return "too many out-of-order ranges";
	for (unsigned i = 0; i < p->nooo; i++) {
		const struct tcp_range *r = &p->ooo[i];

		if (!SEQ_LT(p->rcv_nxt, r->start) ||
		    !SEQ_LT(r->start, r->end) || SEQ_GT(r->end, p->rcv_adv))
			return "out-of-order range outside the window";
		if (i > 0 && !SEQ_LT(p->ooo[i - 1].end, r->start))
			return "out-of-order ranges overlap or touch";
	}
	if (p->state >= TCP_FIN_WAIT_1 && p->state != TCP_CLOSE_WAIT &&
	    !p->fin_queued)
		return "closing state without a FIN";
	if ((p->state == TCP_CLOSE_WAIT || p->state == TCP_CLOSING ||
	     p->state == TCP_LAST_ACK || p->state == TCP_TIME_WAIT) &&
	    !p->fin_rcvd)
		return "state after the peer's FIN without it";
	if (p->state == TCP_TIME_WAIT) {
		if (p->tw_at == TCP_TIMER_OFF)
			return "TIME_WAIT without its timer";
		if (p->rto_at != TCP_TIMER_OFF ||
		    p->persist_at != TCP_TIMER_OFF)
			return "TIME_WAIT with a retransmission timer";
	} else {
		if (p->tw_at != TCP_TIMER_OFF)
			return "TIME_WAIT timer outside TIME_WAIT";
		if (p->snd_una != p->snd_max && p->rto_at == TCP_TIMER_OFF)
			return "unacknowledged data without a retransmit timer";
	}
	if (p->mss < TCP_MIN_MSS || p->mss > s->scratch_cap)
		return "effective MSS out of range";
	return NULL;
}

static const char *
listener_sane(const struct tcp_stack *s, const struct tcp_pcb *l)
{
	unsigned children = 0;
	int i;
	const struct tcp_link *q;

	for (i = 0; i < TCP_NLISTS; i++) {
		const struct tcp_link *k;

		for (k = s->lists[i].next; k != &s->lists[i]; k = k->next)
			if (TCP_PCB_OF(k)->listener == l)
				children++;
	}
	if (children != l->nchild)
		return "listener child count is wrong";
	for (q = l->acceptq.next; q != &l->acceptq; q = q->next) {
		const struct tcp_pcb *c =
		    TCP_CONTAINER(q, const struct tcp_pcb, aq_link);

		if (c->listener != l || !c->queued)
			return "accept queue holds a stranger";
		if (!tcp_synchronized(c->state))
			return "accept queue holds an unsynchronized pcb";
	}
	return NULL;
}

const char *
tcp_pcbs_sane(const struct tcp_stack *s)
{
	unsigned total = 0;
	int i;

	for (i = 0; i < TCP_NLISTS; i++) {
		const struct tcp_link *h = &s->lists[i], *l;
		unsigned n = 0;
		uint64_t last_tw = 0;

		for (l = h->next; l != h; l = l->next) {
			const struct tcp_pcb *p = TCP_PCB_OF(l);
			const char *why;

			if (l->next->prev != l || l->prev->next != l)
				return "list links broken";
			if (p->list != (enum tcp_list_id)i ||
			    !state_on_list(p->state, i))
				return "pcb on the wrong list for its state";
			if (i == TCP_LIST_TIME_WAIT) {
				if (p->tw_at < last_tw)
					return "TIME_WAIT list out of order";
				last_tw = p->tw_at;
			}
			why = pcb_sane(s, p);
			if (why == NULL && p->state == TCP_LISTEN)
				why = listener_sane(s, p);
			if (why != NULL)
				return why;
			if (p->state >= TCP_SYN_SENT &&
			    (p->listener != NULL &&
			     p->listener->state != TCP_LISTEN))
				return "child of something not listening";
			if (++n > s->npcbs)
				return "list loops";
		}
		if (n != s->list_len[i])
			return "list length counter is wrong";
		total += n;
	}
	if (total != s->npcbs)
		return "pcb count does not match the lists";
	/* No two connections share a 4-tuple. */
	for (i = TCP_LIST_ACTIVE; i <= TCP_LIST_TIME_WAIT; i++) {
		const struct tcp_link *a;

		for (a = s->lists[i].next; a != &s->lists[i]; a = a->next) {
			const struct tcp_pcb *p = TCP_PCB_OF(a);
			int j;

			for (j = i; j <= TCP_LIST_TIME_WAIT; j++) {
				const struct tcp_link *b =
				    j == i ? a->next : s->lists[j].next;

				for (; b != &s->lists[j]; b = b->next) {
					const struct tcp_pcb *q = TCP_PCB_OF(b);

					if (p->lport == q->lport &&
					    p->rport == q->rport &&
					    p->laddr == q->laddr &&
					    p->raddr == q->raddr)
						return "two connections share "
						       "a "
						       "4-tuple";
				}
			}
		}
	}
	return NULL;
}
