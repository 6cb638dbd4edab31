/*
 * Private to net/tcp/ (and the tests, which look inside): the pcb, the
 * stack and the lists, and what tcp.c, tcp_in.c, tcp_out.c and
 * tcp_timer.c share.
 *
 * Every pcb is on exactly one state list, chosen by its state:
 *
 *   closed     CLOSED: created, bound, or dead and waiting for the user
 *   listen     LISTEN
 *   active     SYN_SENT .. LAST_ACK (everything with a peer but TIME_WAIT)
 *   time_wait  TIME_WAIT, ordered by expiry (head expires first)
 *
 * tcp_set_state() is the only function that moves a pcb between lists,
 * so a state and its list cannot disagree; tcp_pcbs_sane() checks it.
 */
#ifndef NET_TCP_TCP_PRIV_H
#define NET_TCP_TCP_PRIV_H

#include "net/tcp/tcp.h"

/* Sequence arithmetic modulo 2^32 (RFC 9293 3.4). */
#define SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)  SEQ_LT(b, a)
#define SEQ_GEQ(a, b) SEQ_LEQ(b, a)

#define TCP_MAX_WND        0xffffu /* no window scaling */
#define TCP_EPHEMERAL_LOW  49152
#define TCP_EPHEMERAL_HIGH 65535
#define TCP_PERSIST_MIN_MS 1000
#define TCP_TIMER_OFF      UINT64_MAX
#define TCP_OOO_MAX        4 /* out-of-order ranges kept per connection */

struct tcp_link {
	struct tcp_link *next, *prev;
};

enum tcp_list_id {
	TCP_LIST_CLOSED,
	TCP_LIST_LISTEN,
	TCP_LIST_ACTIVE,
	TCP_LIST_TIME_WAIT,
	TCP_NLISTS
};

/* A byte ring: the send buffer holds unacknowledged and unsent data,
 * the receive buffer data not yet read by the user. */
struct tcp_ring {
	uint8_t *buf;
	uint32_t cap, head, len;
};

struct tcp_pcb {
	struct tcp_link link; /* on s->lists[list] */
	enum tcp_list_id list;
	struct tcp_stack *stack;
	enum tcp_state state;
	void *user;

	uint32_t laddr, raddr;
	uint16_t lport, rport;

	bool user_held; /* the caller owns it (tcp_new / tcp_accept) */
	bool bound;
	int err; /* sticky -errno after reset/refusal/timeout */

	/* Listener side. */
	unsigned backlog, nchild; /* children: embryonic + queued */
	struct tcp_link acceptq;  /* established, not yet accepted */
	struct tcp_pcb *listener; /* a child's listener, or NULL */
	struct tcp_link aq_link;  /* on listener->acceptq */
	bool queued;              /* on the accept queue */
	bool passive;             /* opened from LISTEN */

	/* Send sequence space (RFC 9293 3.3.1) plus snd_max, the highest
	 * sequence number sent: after a retransmission snd_nxt goes back
	 * to snd_una, and ACKs up to snd_max stay acceptable. */
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wl1, snd_wl2;
	uint32_t snd_wnd, max_snd_wnd;
	struct tcp_ring sndq; /* first byte has sequence number snd_buf_seq */
	uint32_t snd_buf_seq;
	bool fin_queued;  /* shutdown/close asked for a FIN */
	uint32_t fin_seq; /* its sequence number, valid once fin_queued */
	uint16_t mss;     /* effective send MSS */

	/* Receive sequence space. */
	uint32_t irs, rcv_nxt, rcv_adv; /* rcv_adv: right edge announced */
	struct tcp_ring rcvq;
	bool fin_rcvd; /* the peer's FIN has been taken in */
	bool rcv_shut; /* closed: data arriving now gets a reset */
	/* Out-of-order data already sits in the receive ring at its place
	 * (offset rcvq.len + seq - rcv_nxt); these ranges say where.  Sorted,
	 * disjoint, not touching, all inside (rcv_nxt, rcv_adv]. */
	struct tcp_range {
		uint32_t start, end;
	} ooo[TCP_OOO_MAX];
	unsigned nooo;
	unsigned ack_owed;  /* segments received and not acknowledged */
	uint32_t rcv_acked; /* RCV.NXT in the last ACK sent */
	bool ack_now;

	/* Congestion control (RFC 5681). */
	uint32_t cwnd, ssthresh;
	unsigned dupacks;
	bool in_recovery; /* fast retransmit until snd_una reaches recover */
	uint32_t recover;

	/* Retransmission (RFC 6298), in milliseconds, srtt x8, rttvar x4. */
	uint32_t srtt8, rttvar4, rto;
	bool rtt_timing;
	uint32_t rtt_seq;
	uint64_t rtt_start;
	unsigned retries;

	/* Deadlines; TCP_TIMER_OFF when not running. */
	uint64_t rto_at, persist_at, delack_at, tw_at, fw2_at;
	uint32_t persist_backoff;
};

struct tcp_stack {
	struct tcp_config cfg;
	struct tcp_env env;
	struct tcp_stats stats;
	struct tcp_link lists[TCP_NLISTS];
	unsigned list_len[TCP_NLISTS];
	unsigned npcbs;
	uint16_t next_ephemeral;
	bool going;
	bool ack_deferred; /* see tcp_acks_deferred() */
	uint8_t *scratch;  /* one segment's payload when the ring wraps */
	uint32_t scratch_cap;
};

/* Lists. */
static inline void
tcp_link_init(struct tcp_link *h)
{
	h->next = h->prev = h;
}

static inline bool
tcp_link_empty(const struct tcp_link *h)
{
	return h->next == h;
}

static inline void
tcp_link_insert_after(struct tcp_link *pos, struct tcp_link *l)
{
	l->prev = pos;
	l->next = pos->next;
	pos->next->prev = l;
	pos->next = l;
}

static inline void
tcp_link_del(struct tcp_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->next = l->prev = l;
}

#define TCP_CONTAINER(ptr, type, member)                                       \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#define TCP_PCB_OF(l) TCP_CONTAINER(l, struct tcp_pcb, link)

/* Iterates a list where the body may remove the current pcb (and only
 * that one) from the list, or free it. */
#define TCP_FOREACH_SAFE(s, id, pcb)                                           \
	for (struct tcp_link *l_ = (s)->lists[id].next, *n_ = l_->next;        \
	     l_ != &(s)->lists[id] && ((pcb) = TCP_PCB_OF(l_), true);          \
	     l_ = n_, n_ = l_->next)

static inline bool
tcp_synchronized(enum tcp_state st)
{
	return st >= TCP_ESTABLISHED;
}

static inline uint64_t
tcp_min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint32_t
tcp_min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Ring buffers (tcp.c). */
uint32_t tcp_ring_put(struct tcp_ring *r, const uint8_t *p, uint32_t n);
uint32_t tcp_ring_get(struct tcp_ring *r, uint8_t *p, uint32_t n);
void tcp_ring_peek(const struct tcp_ring *r, uint32_t off, uint8_t *p,
                   uint32_t n);
void tcp_ring_drop(struct tcp_ring *r, uint32_t n);
/* Writes n bytes at offset off from the head without changing len. */
void tcp_ring_write_at(struct tcp_ring *r, uint32_t off, const uint8_t *p,
                       uint32_t n);

/* tcp.c */
void tcp_set_state(struct tcp_pcb *pcb, enum tcp_state st, uint64_t now);
void tcp_event(struct tcp_pcb *pcb, unsigned ev);
struct tcp_pcb *tcp_pcb_alloc(struct tcp_stack *s);
int tcp_pcb_alloc_buffers(struct tcp_pcb *pcb);
/* Ends a connection: CLOSED with err for a user pcb, freed otherwise. */
void tcp_pcb_terminate(struct tcp_pcb *pcb, int err, uint64_t now);
struct tcp_pcb *tcp_lookup(struct tcp_stack *s, const struct tcp_seg *seg);
struct tcp_pcb *tcp_lookup_listener(struct tcp_stack *s, uint32_t addr,
                                    uint16_t port);
void tcp_drop(struct tcp_stack *s, enum tcp_drop why);
void tcp_time_wait_arm(struct tcp_pcb *pcb, uint64_t now);

/* tcp_in.c */
void tcp_input_seg(struct tcp_stack *s, const struct tcp_seg *seg, uint64_t now,
                   enum tcp_drop *why);

/* tcp_out.c */
void tcp_output(struct tcp_pcb *pcb, uint64_t now);
void tcp_send_syn(struct tcp_pcb *pcb, uint64_t now);
void tcp_send_ack(struct tcp_pcb *pcb, uint64_t now);
void tcp_send_rst_for(struct tcp_pcb *pcb, uint64_t now);
void tcp_send_probe(struct tcp_pcb *pcb, uint64_t now);
void tcp_retransmit_first(struct tcp_pcb *pcb, uint64_t now);
void tcp_set_peer_mss(struct tcp_pcb *pcb, uint16_t mss_opt);
void tcp_respond_rst(struct tcp_stack *s, const struct tcp_seg *seg);
uint16_t tcp_rcv_window(struct tcp_pcb *pcb);
void tcp_window_update(struct tcp_pcb *pcb, uint64_t now);
void tcp_rtt_sample(struct tcp_pcb *pcb, uint32_t rtt_ms);
void tcp_rto_arm(struct tcp_pcb *pcb, uint64_t now);
uint32_t tcp_flight(const struct tcp_pcb *pcb);
uint32_t tcp_unsent(const struct tcp_pcb *pcb);

/* tcp_timer.c */
uint64_t tcp_next_deadline(const struct tcp_pcb *pcb);

#endif /* NET_TCP_TCP_PRIV_H */
