/*
 * The TCP stack object, pcb lifetime and lists, and the socket-facing
 * calls.  Segment processing is in tcp_in.c, sending in tcp_out.c,
 * timers in tcp_timer.c, whole-table operations in tcp_table.c.
 *
 * Who frees a pcb: the caller's tcp_close() gives it up (tcp_abort()
 * only resets the connection; the caller still holds the pcb); from
 * then on (an "orphan") or before it was ever accepted (a
 * listener's child) the core frees it when the connection ends.  A pcb
 * the caller still holds is never freed: when its connection ends it
 * moves to CLOSED and keeps the error for the next call.
 */
#include "net/tcp/tcp_priv.h"

static const char *const state_names[] = {
#define TCP_STATE_NAME(n) #n,
    TCP_STATES(TCP_STATE_NAME)
#undef TCP_STATE_NAME
};

const char *
tcp_state_name(enum tcp_state st)
{
	return (unsigned)st < TCP_NSTATES ? state_names[st] : "?";
}

void
tcp_config_default(struct tcp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->msl_ms = 30000;
	cfg->mss = TCP_DEFAULT_MSS;
	cfg->sndbuf = 16384;
	cfg->rcvbuf = 16384;
	cfg->rto_init_ms = 1000;
	cfg->rto_min_ms = 1000;
	cfg->rto_max_ms = 60000;
	cfg->max_retries = 12;
	cfg->syn_retries = 5;
	cfg->delack_ms = 100;
	cfg->fin_wait2_ms = 60000;
	cfg->rfc1337 = true;
	cfg->nodelay = false;
}

static bool
config_ok(const struct tcp_config *c)
{
	return c->mss >= TCP_MIN_MSS && c->sndbuf >= c->mss &&
	       c->rcvbuf >= c->mss && c->rcvbuf <= (1u << 30) &&
	       c->sndbuf <= (1u << 30) && c->rto_min_ms > 0 &&
	       c->rto_init_ms >= c->rto_min_ms &&
	       c->rto_max_ms >= c->rto_init_ms;
}

int
tcp_stack_create(const struct tcp_config *cfg, const struct tcp_env *env,
                 struct tcp_stack **out)
{
	struct tcp_stack *s;
	int i;

	*out = NULL;
	if (!config_ok(cfg) || env->emit == NULL || env->isn == NULL ||
	    env->alloc == NULL || env->free == NULL)
		return -EINVAL;
	s = env->alloc(env->ctx, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->scratch = env->alloc(env->ctx, cfg->mss);
	if (s->scratch == NULL) {
		env->free(env->ctx, s);
		return -ENOMEM;
	}
	s->scratch_cap = cfg->mss;
	s->cfg = *cfg;
	s->env = *env;
	for (i = 0; i < TCP_NLISTS; i++)
		tcp_link_init(&s->lists[i]);
	s->next_ephemeral = TCP_EPHEMERAL_LOW;
	*out = s;
	return 0;
}

static void pcb_free(struct tcp_pcb *pcb);

void
tcp_stack_destroy(struct tcp_stack *s)
{
	struct tcp_pcb *pcb;
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < TCP_NLISTS; i++) {
		TCP_FOREACH_SAFE(s, i, pcb)
		{
			pcb->listener = NULL; /* its listener may be gone */
			pcb_free(pcb);
		}
	}
	s->env.free(s->env.ctx, s->scratch);
	s->env.free(s->env.ctx, s);
}

/* The MSS cannot grow past the scratch buffer sized at creation, nor
 * the buffers of connections that exist already. */
int
tcp_set_config(struct tcp_stack *s, const struct tcp_config *cfg)
{
	if (!config_ok(cfg) || cfg->mss > s->scratch_cap)
		return -EINVAL;
	s->cfg = *cfg;
	return 0;
}

const struct tcp_config *
tcp_get_config(const struct tcp_stack *s)
{
	return &s->cfg;
}

const struct tcp_stats *
tcp_get_stats(const struct tcp_stack *s)
{
	return &s->stats;
}

void
tcp_set_going(struct tcp_stack *s, bool going)
{
	s->going = going;
}

void
tcp_drop(struct tcp_stack *s, enum tcp_drop why)
{
	if ((unsigned)why < TCP_DROP_NREASONS)
		s->stats.drops[why]++;
}

/* ---- rings ------------------------------------------------------------ */
uint32_t
tcp_ring_put(struct tcp_ring *r, const uint8_t *p, uint32_t n)
{
	uint32_t tail, first;

	n = tcp_min32(n, r->cap - r->len);
	tail = (r->head + r->len) % r->cap;
	first = tcp_min32(n, r->cap - tail);
	memcpy(r->buf + tail, p, first);
	memcpy(r->buf, p + first, n - first);
	r->len += n;
	return n;
}

void
tcp_ring_peek(const struct tcp_ring *r, uint32_t off, uint8_t *p, uint32_t n)
{
	uint32_t start = (r->head + off) % r->cap;
	uint32_t first = tcp_min32(n, r->cap - start);

	memcpy(p, r->buf + start, first);
	memcpy(p + first, r->buf, n - first);
}

void
tcp_ring_drop(struct tcp_ring *r, uint32_t n)
{
	n = tcp_min32(n, r->len);
	r->head = r->cap != 0 ? (r->head + n) % r->cap : 0;
	r->len -= n;
}

void
tcp_ring_write_at(struct tcp_ring *r, uint32_t off, const uint8_t *p,
                  uint32_t n)
{
	uint32_t start = (r->head + off) % r->cap;
	uint32_t first = tcp_min32(n, r->cap - start);

	memcpy(r->buf + start, p, first);
	memcpy(r->buf, p + first, n - first);
}

uint32_t
tcp_ring_get(struct tcp_ring *r, uint8_t *p, uint32_t n)
{
	n = tcp_min32(n, r->len);
	tcp_ring_peek(r, 0, p, n);
	tcp_ring_drop(r, n);
	return n;
}

static void
ring_free(struct tcp_stack *s, struct tcp_ring *r)
{
	if (r->buf != NULL)
		s->env.free(s->env.ctx, r->buf);
	memset(r, 0, sizeof(*r));
}

/* ---- pcbs and lists ---------------------------------------------------- */
static enum tcp_list_id
list_for(enum tcp_state st)
{
	switch (st) {
	case TCP_CLOSED:
		return TCP_LIST_CLOSED;
	case TCP_LISTEN:
		return TCP_LIST_LISTEN;
	case TCP_TIME_WAIT:
		return TCP_LIST_TIME_WAIT;
	default:
		return TCP_LIST_ACTIVE;
	}
}

static void
list_put(struct tcp_pcb *pcb, enum tcp_list_id id)
{
	struct tcp_stack *s = pcb->stack;

	pcb->list = id;
	s->list_len[id]++;
	if (id != TCP_LIST_TIME_WAIT) {
		tcp_link_insert_after(s->lists[id].prev, &pcb->link);
		return;
	}
	/* Sorted by expiry; a new entry nearly always goes last. */
	struct tcp_link *pos = s->lists[id].prev;
	while (pos != &s->lists[id] && TCP_PCB_OF(pos)->tw_at > pcb->tw_at)
		pos = pos->prev;
	tcp_link_insert_after(pos, &pcb->link);
}

static void
list_take(struct tcp_pcb *pcb)
{
	pcb->stack->list_len[pcb->list]--;
	tcp_link_del(&pcb->link);
}

static void
timers_off(struct tcp_pcb *pcb)
{
	pcb->rto_at = pcb->persist_at = pcb->delack_at = TCP_TIMER_OFF;
	pcb->tw_at = pcb->fw2_at = TCP_TIMER_OFF;
}

struct tcp_pcb *
tcp_pcb_alloc(struct tcp_stack *s)
{
	struct tcp_pcb *pcb = s->env.alloc(s->env.ctx, sizeof(*pcb));

	if (pcb == NULL)
		return NULL;
	memset(pcb, 0, sizeof(*pcb));
	pcb->stack = s;
	pcb->state = TCP_CLOSED;
	tcp_link_init(&pcb->acceptq);
	tcp_link_init(&pcb->aq_link);
	timers_off(pcb);
	pcb->mss = (uint16_t)tcp_min32(TCP_DEFAULT_MSS, s->cfg.mss);
	pcb->rto = s->cfg.rto_init_ms;
	s->npcbs++;
	list_put(pcb, TCP_LIST_CLOSED);
	return pcb;
}

int
tcp_pcb_alloc_buffers(struct tcp_pcb *pcb)
{
	struct tcp_stack *s = pcb->stack;

	if (pcb->sndq.buf == NULL) {
		pcb->sndq.buf = s->env.alloc(s->env.ctx, s->cfg.sndbuf);
		if (pcb->sndq.buf == NULL)
			return -ENOMEM;
		pcb->sndq.cap = s->cfg.sndbuf;
	}
	if (pcb->rcvq.buf == NULL) {
		pcb->rcvq.buf = s->env.alloc(s->env.ctx, s->cfg.rcvbuf);
		if (pcb->rcvq.buf == NULL)
			return -ENOMEM;
		pcb->rcvq.cap = s->cfg.rcvbuf;
	}
	return 0;
}

static void
child_detach(struct tcp_pcb *pcb)
{
	struct tcp_pcb *l = pcb->listener;

	if (l == NULL)
		return;
	if (pcb->queued)
		tcp_link_del(&pcb->aq_link);
	pcb->queued = false;
	l->nchild--;
	pcb->listener = NULL;
}

static void
pcb_free(struct tcp_pcb *pcb)
{
	struct tcp_stack *s = pcb->stack;

	child_detach(pcb);
	list_take(pcb);
	ring_free(s, &pcb->sndq);
	ring_free(s, &pcb->rcvq);
	s->npcbs--;
	s->env.free(s->env.ctx, pcb);
}

void
tcp_event(struct tcp_pcb *pcb, unsigned ev)
{
	struct tcp_stack *s = pcb->stack;

	if (s->env.event != NULL && pcb->user_held)
		s->env.event(s->env.ctx, pcb, ev);
}

void
tcp_set_state(struct tcp_pcb *pcb, enum tcp_state st, uint64_t now)
{
	enum tcp_list_id to = list_for(st);

	pcb->state = st;
	if (st == TCP_TIME_WAIT) {
		/* Only a FIN is expected from now on: no data timers, and
		 * nobody will send or (if orphaned) read any more. */
		timers_off(pcb);
		ring_free(pcb->stack, &pcb->sndq);
		pcb->nooo = 0;
		if (!pcb->user_held)
			ring_free(pcb->stack, &pcb->rcvq);
		tcp_time_wait_arm(pcb, now);
		return;
	}
	if (st == TCP_CLOSED || st == TCP_LISTEN)
		timers_off(pcb);
	if (to != pcb->list) {
		list_take(pcb);
		list_put(pcb, to);
	}
}

/* (Re)starts the 2*MSL timer (RFC 9293 3.10.7.4 "restart the 2 MSL
 * timeout") and keeps the TIME_WAIT list sorted. */
void
tcp_time_wait_arm(struct tcp_pcb *pcb, uint64_t now)
{
	list_take(pcb);
	pcb->tw_at = now + 2 * (uint64_t)pcb->stack->cfg.msl_ms;
	list_put(pcb, TCP_LIST_TIME_WAIT);
	if (pcb->stack->env.time_wait != NULL)
		pcb->stack->env.time_wait(pcb->stack->env.ctx, pcb, pcb->lport,
		                          pcb->rport, true);
}

static void close_listener(struct tcp_pcb *l, uint64_t now);

void
tcp_pcb_terminate(struct tcp_pcb *pcb, int err, uint64_t now)
{
	if (pcb->state == TCP_LISTEN)
		close_listener(pcb, now);
	if (!pcb->user_held) {
		pcb_free(pcb);
		return;
	}
	if (err != 0 && pcb->err == 0)
		pcb->err = err;
	ring_free(pcb->stack, &pcb->sndq);
	tcp_set_state(pcb, TCP_CLOSED, now);
	tcp_event(pcb, TCP_EV_READABLE | TCP_EV_WRITABLE |
	                   (err != 0 ? TCP_EV_ERROR : 0));
}

/* Resets and frees the children a listener still owns.  They are all
 * active: a child only reaches TIME_WAIT or CLOSED once accepted. */
static void
close_listener(struct tcp_pcb *l, uint64_t now)
{
	struct tcp_stack *s = l->stack;
	struct tcp_pcb *pcb;

	TCP_FOREACH_SAFE(s, TCP_LIST_ACTIVE, pcb)
	{
		if (pcb->listener != l)
			continue;
		tcp_send_rst_for(pcb, now);
		pcb_free(pcb);
	}
}

/* ---- lookup --------------------------------------------------------- */
static struct tcp_pcb *
find_4tuple(struct tcp_stack *s, enum tcp_list_id id, uint32_t laddr,
            uint16_t lport, uint32_t raddr, uint16_t rport)
{
	struct tcp_link *l;

	for (l = s->lists[id].next; l != &s->lists[id]; l = l->next) {
		struct tcp_pcb *p = TCP_PCB_OF(l);

		if (p->lport == lport && p->rport == rport &&
		    p->laddr == laddr && p->raddr == raddr)
			return p;
	}
	return NULL;
}

struct tcp_pcb *
tcp_lookup_listener(struct tcp_stack *s, uint32_t addr, uint16_t port)
{
	struct tcp_pcb *wild = NULL;
	struct tcp_link *l;

	for (l = s->lists[TCP_LIST_LISTEN].next;
	     l != &s->lists[TCP_LIST_LISTEN]; l = l->next) {
		struct tcp_pcb *p = TCP_PCB_OF(l);

		if (p->lport != port)
			continue;
		if (p->laddr == addr)
			return p;
		if (p->laddr == 0)
			wild = p;
	}
	return wild;
}

struct tcp_pcb *
tcp_lookup(struct tcp_stack *s, const struct tcp_seg *seg)
{
	struct tcp_pcb *p;

	p = find_4tuple(s, TCP_LIST_ACTIVE, seg->dst, seg->dport, seg->src,
	                seg->sport);
	if (p == NULL)
		p = find_4tuple(s, TCP_LIST_TIME_WAIT, seg->dst, seg->dport,
		                seg->src, seg->sport);
	if (p == NULL)
		p = tcp_lookup_listener(s, seg->dst, seg->dport);
	return p;
}

/* Is (addr, port) taken for a new bind?  Listeners, bound sockets and
 * connections opened from this host count; TIME_WAIT does not
 * (SO_REUSEADDR semantics) nor do children of a listener. */
static bool
port_taken(struct tcp_stack *s, const struct tcp_pcb *self, uint32_t addr,
           uint16_t port)
{
	static const enum tcp_list_id ids[] = {TCP_LIST_CLOSED, TCP_LIST_LISTEN,
	                                       TCP_LIST_ACTIVE};
	unsigned i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct tcp_link *l;

		for (l = s->lists[ids[i]].next; l != &s->lists[ids[i]];
		     l = l->next) {
			struct tcp_pcb *p = TCP_PCB_OF(l);

			if (p == self || !p->bound || p->passive ||
			    p->lport != port)
				continue;
			if (p->laddr == 0 || addr == 0 || p->laddr == addr)
				return true;
		}
	}
	return false;
}

/* Any pcb at all on the port, TIME_WAIT included: an ephemeral port is
 * only reused once nothing remembers it. */
static bool
port_used(struct tcp_stack *s, uint16_t port)
{
	int i;

	for (i = 0; i < TCP_NLISTS; i++) {
		struct tcp_link *l;

		for (l = s->lists[i].next; l != &s->lists[i]; l = l->next)
			if (TCP_PCB_OF(l)->lport == port)
				return true;
	}
	return false;
}

static int
pick_ephemeral(struct tcp_stack *s, uint16_t *port)
{
	unsigned range = TCP_EPHEMERAL_HIGH - TCP_EPHEMERAL_LOW + 1, i;

	for (i = 0; i < range; i++) {
		uint16_t p = s->next_ephemeral;

		s->next_ephemeral = p == TCP_EPHEMERAL_HIGH ? TCP_EPHEMERAL_LOW
		                                            : (uint16_t)(p + 1);
		if (!port_used(s, p)) {
			*port = p;
			return 0;
		}
	}
	return -EADDRINUSE;
}

/* ---- socket-facing API ------------------------------------------------- */
int
tcp_new(struct tcp_stack *s, struct tcp_pcb **out)
{
	struct tcp_pcb *pcb;

	*out = NULL;
	if (s->going)
		return -EPROTONOSUPPORT;
	pcb = tcp_pcb_alloc(s);
	if (pcb == NULL)
		return -ENOMEM;
	pcb->user_held = true;
	*out = pcb;
	return 0;
}

void
tcp_set_user(struct tcp_pcb *pcb, void *user)
{
	pcb->user = user;
}

void *
tcp_get_user(const struct tcp_pcb *pcb)
{
	return pcb->user;
}

int
tcp_bind(struct tcp_pcb *pcb, uint32_t addr, uint16_t port)
{
	struct tcp_stack *s = pcb->stack;
	int err;

	if (pcb->state != TCP_CLOSED || pcb->bound || pcb->raddr != 0)
		return -EINVAL;
	if (port == 0) {
		err = pick_ephemeral(s, &port);
		if (err < 0)
			return err;
	} else if (port_taken(s, pcb, addr, port)) {
		return -EADDRINUSE;
	}
	pcb->laddr = addr;
	pcb->lport = port;
	pcb->bound = true;
	return 0;
}

int
tcp_listen(struct tcp_pcb *pcb, unsigned backlog)
{
	if (pcb->state != TCP_CLOSED || pcb->raddr != 0 || pcb->err != 0)
		return -EINVAL;
	if (!pcb->bound) {
		int err = tcp_bind(pcb, 0, 0);

		if (err < 0)
			return err;
	}
	pcb->backlog = backlog == 0 ? 1 : backlog;
	tcp_set_state(pcb, TCP_LISTEN, 0);
	return 0;
}

int
tcp_accept(struct tcp_pcb *l, struct tcp_pcb **out)
{
	struct tcp_pcb *c;

	*out = NULL;
	if (l->state != TCP_LISTEN)
		return l->err != 0 ? l->err : -EINVAL;
	if (tcp_link_empty(&l->acceptq))
		return -EAGAIN;
	c = TCP_CONTAINER(l->acceptq.next, struct tcp_pcb, aq_link);
	child_detach(c);
	c->user_held = true;
	*out = c;
	return 0;
}

int
tcp_connect(struct tcp_pcb *pcb, uint32_t laddr, uint32_t raddr, uint16_t rport,
            uint64_t now)
{
	struct tcp_stack *s = pcb->stack;
	uint32_t src;
	int err;

	if (pcb->state == TCP_LISTEN)
		return -EINVAL;
	if (pcb->state != TCP_CLOSED || pcb->raddr != 0)
		return -EALREADY;
	if (raddr == 0 || rport == 0)
		return -EINVAL;
	src = pcb->bound && pcb->laddr != 0 ? pcb->laddr : laddr;
	if (src == 0)
		return -EINVAL;
	if (!pcb->bound) {
		err = tcp_bind(pcb, 0, 0);
		if (err < 0)
			return err;
	}
	if (find_4tuple(s, TCP_LIST_ACTIVE, src, pcb->lport, raddr, rport) ||
	    find_4tuple(s, TCP_LIST_TIME_WAIT, src, pcb->lport, raddr, rport))
		return -EADDRINUSE;
	err = tcp_pcb_alloc_buffers(pcb);
	if (err < 0)
		return err;
	pcb->laddr = src;
	pcb->raddr = raddr;
	pcb->rport = rport;
	pcb->iss = s->env.isn(s->env.ctx, src, pcb->lport, raddr, rport, now);
	pcb->snd_una = pcb->snd_nxt = pcb->snd_max = pcb->iss;
	pcb->snd_buf_seq = pcb->iss + 1;
	pcb->rto = s->cfg.rto_init_ms;
	s->stats.active_opens++;
	tcp_set_state(pcb, TCP_SYN_SENT, now);
	tcp_send_syn(pcb, now);
	return 0;
}

long
tcp_send(struct tcp_pcb *pcb, const void *buf, size_t len, uint64_t now)
{
	uint32_t n;

	if (pcb->err != 0)
		return pcb->err;
	switch (pcb->state) {
	case TCP_SYN_SENT:
	case TCP_SYN_RECEIVED:
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	case TCP_CLOSED:
	case TCP_LISTEN:
		return -ENOTCONN;
	default:
		return -EPIPE;
	}
	if (pcb->fin_queued)
		return -EPIPE;
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	n = tcp_ring_put(&pcb->sndq, buf, (uint32_t)len);
	if (n == 0 && len != 0)
		return -EAGAIN;
	if (tcp_synchronized(pcb->state))
		tcp_output(pcb, now);
	return n;
}

long
tcp_recv(struct tcp_pcb *pcb, void *buf, size_t len, uint64_t now)
{
	uint32_t n;

	if (pcb->rcvq.len != 0 && len != 0) {
		n = tcp_ring_get(&pcb->rcvq, buf,
		                 len > UINT32_MAX ? UINT32_MAX : (uint32_t)len);
		if (tcp_synchronized(pcb->state) && pcb->state != TCP_TIME_WAIT)
			tcp_window_update(pcb, now);
		return n;
	}
	if (pcb->err != 0)
		return pcb->err;
	if (pcb->fin_rcvd)
		return 0;
	if (pcb->state == TCP_CLOSED || pcb->state == TCP_LISTEN)
		return -ENOTCONN;
	return -EAGAIN;
}

int
tcp_shutdown(struct tcp_pcb *pcb, uint64_t now)
{
	if (pcb->err != 0)
		return pcb->err;
	switch (pcb->state) {
	case TCP_CLOSED:
	case TCP_LISTEN:
		return -ENOTCONN;
	case TCP_SYN_SENT:
	case TCP_SYN_RECEIVED:
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	default:
		return 0; /* FIN already queued */
	}
	if (pcb->fin_queued)
		return 0;
	pcb->fin_queued = true;
	pcb->fin_seq = pcb->snd_buf_seq + pcb->sndq.len;
	/* In SYN states the FIN waits for ESTABLISHED (tcp_in.c). */
	if (pcb->state == TCP_ESTABLISHED)
		tcp_set_state(pcb, TCP_FIN_WAIT_1, now);
	else if (pcb->state == TCP_CLOSE_WAIT)
		tcp_set_state(pcb, TCP_LAST_ACK, now);
	if (tcp_synchronized(pcb->state))
		tcp_output(pcb, now);
	return 0;
}

void
tcp_close(struct tcp_pcb **pcbp, uint64_t now)
{
	struct tcp_pcb *pcb = *pcbp;

	if (pcb == NULL)
		return; /* closed already: the caller's handle was cleared */
	*pcbp = NULL;
	pcb->user_held = false;
	pcb->user = NULL;
	switch (pcb->state) {
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
		tcp_pcb_terminate(pcb, 0, now);
		return;
	case TCP_TIME_WAIT:
		ring_free(pcb->stack, &pcb->rcvq);
		return;
	default:
		break;
	}
	if (pcb->rcvq.len != 0) {
		/* RFC 2525 2.17: unread data is lost; tell the peer. */
		tcp_send_rst_for(pcb, now);
		tcp_pcb_terminate(pcb, 0, now);
		return;
	}
	pcb->rcv_shut = true;
	tcp_shutdown(pcb, now);
	if (pcb->state == TCP_FIN_WAIT_2)
		pcb->fw2_at = now + pcb->stack->cfg.fin_wait2_ms;
}

/*
 * RFC 9293 3.10.5 ABORT: a RST to a synchronized peer, queued data in
 * both directions dropped, CLOSED with -ECONNABORTED (Linux's errno for
 * a connection aborted locally).  The pcb stays the caller's: only
 * tcp_close() gives it back, so abort then close frees it exactly once.
 */
void
tcp_abort(struct tcp_pcb *pcb, uint64_t now)
{
	if (pcb == NULL || pcb->state == TCP_CLOSED)
		return;
	tcp_send_rst_for(pcb, now);
	pcb->rcvq.len = 0;
	pcb->nooo = 0;
	tcp_pcb_terminate(pcb, -ECONNABORTED, now);
}

unsigned
tcp_poll(const struct tcp_pcb *pcb)
{
	unsigned ev = 0;

	if (pcb->state == TCP_LISTEN)
		return tcp_link_empty(&pcb->acceptq) ? 0 : TCP_EV_ACCEPT;
	if (pcb->rcvq.len != 0 || pcb->fin_rcvd || pcb->err != 0)
		ev |= TCP_EV_READABLE;
	if (pcb->err != 0)
		ev |= TCP_EV_ERROR | TCP_EV_WRITABLE;
	else if ((pcb->state == TCP_ESTABLISHED ||
	          pcb->state == TCP_CLOSE_WAIT) &&
	         !pcb->fin_queued && pcb->sndq.len < pcb->sndq.cap)
		ev |= TCP_EV_WRITABLE;
	return ev;
}

enum tcp_state
tcp_get_state(const struct tcp_pcb *pcb)
{
	return pcb->state;
}

int
tcp_get_error(const struct tcp_pcb *pcb)
{
	return pcb->err;
}
