/* The two-core test network; see tnet.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcp/tnet.h"

static void *
tn_alloc(void *ctx, size_t size)
{
	struct tn_side *sd = ctx;

	sd->net->allocs++;
	return malloc(size);
}

static void
tn_free(void *ctx, void *p)
{
	struct tn_side *sd = ctx;

	if (p != NULL)
		sd->net->allocs--;
	free(p);
}

static uint32_t
tn_isn(void *ctx, uint32_t la, uint16_t lp, uint32_t ra, uint16_t rp,
       uint64_t now)
{
	struct tn_side *sd = ctx;

	(void)la, (void)ra, (void)rp, (void)now;
	return sd->net->isn[sd->id] + (uint32_t)lp * 0x10000u;
}

static void
tn_event(void *ctx, struct tcp_pcb *pcb, unsigned ev)
{
	struct tn_side *sd = ctx;

	(void)pcb;
	sd->net->events[sd->id] |= ev;
}

static void
queue_pkt(struct tnet *n, int to, const uint8_t *b, uint32_t len, uint64_t at)
{
	struct tn_pkt *p = malloc(sizeof(*p) + len), **pp;

	p->at = at;
	p->to = to;
	p->len = len;
	memcpy(p->bytes, b, len);
	for (pp = &n->queue; *pp != NULL && (*pp)->at <= at; pp = &(*pp)->next)
		;
	p->next = *pp;
	*pp = p;
}

static void
tn_emit(void *ctx, const struct tcp_seg *seg)
{
	struct tn_side *sd = ctx;
	struct tnet *n = sd->net;
	struct tn_log *lg = &n->log[n->nlog < TN_LOGMAX ? n->nlog : 0];
	enum tn_verdict v = TN_PASS;
	uint32_t delay = 0;
	uint8_t buf[70000];
	long len;

	if (n->nlog < TN_LOGMAX)
		n->nlog++;
	memset(lg, 0, sizeof(*lg));
	lg->from = sd->id;
	lg->at = n->now;
	lg->seq = seg->seq;
	lg->ack = seg->ack;
	lg->flags = seg->flags;
	lg->wnd = seg->wnd;
	lg->mss = seg->mss;
	lg->len = (uint32_t)seg->len;
	lg->first = seg->len ? seg->data[0] : 0;
	if (seg->src != n->addr[sd->id] || seg->dst != n->addr[!sd->id])
		kt_fail(n->t, __FILE__, __LINE__,
		        "segment with wrong addresses");
	len = tcp_build(seg, buf, sizeof(buf));
	if (len < 0) {
		kt_fail(n->t, __FILE__, __LINE__, "tcp_build failed");
		return;
	}
	if (n->capture[sd->id]) {
		lg->dropped = true;
		return;
	}
	if (n->filter != NULL)
		v = n->filter(n, lg, n->filter_arg, &delay);
	if (v == TN_DROP) {
		lg->dropped = true;
		return;
	}
	queue_pkt(n, !sd->id, buf, (uint32_t)len,
	          n->now + n->latency_ms + (v == TN_DELAY ? delay : 0));
	if (v == TN_DUP)
		queue_pkt(n, !sd->id, buf, (uint32_t)len,
		          n->now + n->latency_ms + 1);
}

void
tn_init(struct tnet *n, struct kt *t, const struct tcp_config *cfg)
{
	struct tcp_config c;
	int i;

	memset(n, 0, sizeof(*n));
	n->t = t;
	n->addr[0] = TN_ADDR_A;
	n->addr[1] = TN_ADDR_B;
	n->isn[0] = 1000;
	n->isn[1] = 0x80000000u;
	n->latency_ms = 10;
	if (cfg == NULL) {
		tcp_config_default(&c);
		c.delack_ms = 0;
		cfg = &c;
	}
	for (i = 0; i < 2; i++) {
		struct tcp_env env = {
		    .ctx = &n->side[i],
		    .emit = tn_emit,
		    .isn = tn_isn,
		    .alloc = tn_alloc,
		    .free = tn_free,
		    .event = tn_event,
		};
		n->side[i].net = n;
		n->side[i].id = i;
		if (tcp_stack_create(cfg, &env, &n->st[i]) != 0)
			kt_fail(t, __FILE__, __LINE__, "tcp_stack_create");
	}
}

void
tn_fini(struct tnet *n)
{
	struct tn_pkt *p;

	tn_check(n, "fini");
	while ((p = n->queue) != NULL) {
		n->queue = p->next;
		free(p);
	}
	tcp_stack_destroy(n->st[0]);
	tcp_stack_destroy(n->st[1]);
	if (n->allocs != 0)
		kt_fail(n->t, __FILE__, __LINE__, "%ld allocations leaked",
		        n->allocs);
}

void
tn_dump(const struct tnet *n)
{
	unsigned i;

	for (i = 0; i < n->nlog; i++) {
		const struct tn_log *l = &n->log[i];

		kt_diag(
		    "%6llu %c>%c seq=%u ack=%u %s%s%s%s%s len=%u wnd=%u%s",
		    (unsigned long long)l->at, "AB"[l->from], "BA"[l->from],
		    l -> seq, l -> ack, l -> flags &TCP_SYN ? "S" : "",
		    l->flags &TCP_FIN ? "F" : "", l->flags &TCP_RST ? "R" : "",
		    l->flags &TCP_PSH ? "P" : "", l->flags &TCP_ACK ? "." : "",
		    l->len, l->wnd, l->dropped ? " (dropped)" : "");
	}
}

void
tn_check(struct tnet *n, const char *where)
{
	int i;

	for (i = 0; i < 2; i++) {
		const char *why = tcp_pcbs_sane(n->st[i]);

		if (why != NULL && !n->insane_reported) {
			n->insane_reported = true;
			kt_fail(n->t, __FILE__, __LINE__,
			        "tcp_pcbs_sane(%c) after %s at %llu ms: %s",
			        "AB"[i], where, (unsigned long long)n -> now,
			        why);
			tn_dump(n);
		}
	}
}

static uint64_t
tick_both(struct tnet *n)
{
	uint64_t a = tcp_tick(n->st[0], n->now);
	uint64_t b = tcp_tick(n->st[1], n->now);

	tn_check(n, "tick");
	return a < b ? a : b;
}

static void
deliver_due(struct tnet *n)
{
	struct tn_pkt *p;

	while ((p = n->queue) != NULL && p->at <= n->now) {
		n->queue = p->next;
		tcp_input(n->st[p->to], n->addr[!p->to], n->addr[p->to],
		          p->bytes, p->len, n->now);
		free(p);
		tn_check(n, "input");
	}
}

bool
tn_run_cond(struct tnet *n, bool (*cond)(struct tnet *, void *), void *arg,
            uint64_t max_ms)
{
	uint64_t until = n->now + max_ms;

	for (;;) {
		uint64_t next = tick_both(n);

		if (cond != NULL && cond(n, arg))
			return true;
		if (n->queue != NULL && n->queue->at < next)
			next = n->queue->at;
		if (next == UINT64_MAX || next > until) {
			if (until != UINT64_MAX && next != UINT64_MAX)
				n->now = until;
			return cond != NULL && cond(n, arg);
		}
		if (next > n->now)
			n->now = next;
		deliver_due(n);
		if (cond != NULL && cond(n, arg))
			return true;
	}
}

uint64_t
tn_run_until(struct tnet *n, uint64_t until)
{
	if (until > n->now)
		tn_run_cond(n, NULL, NULL, until - n->now);
	return n->now;
}

uint64_t
tn_run(struct tnet *n, uint64_t for_ms)
{
	return tn_run_until(n, n->now + for_ms);
}

enum tcp_drop
tn_inject(struct tnet *n, int to, const struct tcp_seg *seg)
{
	uint8_t buf[70000];
	long len = tcp_build(seg, buf, sizeof(buf));
	enum tcp_drop why;

	if (len < 0) {
		kt_fail(n->t, __FILE__, __LINE__, "tcp_build failed");
		return TCP_DROP_NREASONS;
	}
	why =
	    tcp_input(n->st[to], seg->src, seg->dst, buf, (size_t)len, n->now);
	tn_check(n, "inject");
	return why;
}

struct tcp_seg
tn_seg_for(const struct tcp_pcb *pcb, uint32_t seq, uint32_t ack, uint8_t flags,
           uint16_t wnd)
{
	struct tcp_seg s;

	memset(&s, 0, sizeof(s));
	s.src = pcb->raddr;
	s.dst = pcb->laddr;
	s.sport = pcb->rport;
	s.dport = pcb->lport;
	s.seq = seq;
	s.ack = ack;
	s.flags = flags;
	s.wnd = wnd;
	return s;
}

struct tcp_pcb *
tn_listen(struct tnet *n, int side, uint16_t port, unsigned backlog)
{
	struct tcp_pcb *l;

	if (tcp_new(n->st[side], &l) != 0 || tcp_bind(l, 0, port) != 0 ||
	    tcp_listen(l, backlog) != 0)
		kt_fail(n->t, __FILE__, __LINE__, "listen setup");
	tn_check(n, "listen");
	return l;
}

struct tcp_pcb *
tn_connect(struct tnet *n, int side, uint16_t port)
{
	struct tcp_pcb *c;
	int err;

	if (tcp_new(n->st[side], &c) != 0)
		kt_fail(n->t, __FILE__, __LINE__, "tcp_new");
	err = tcp_connect(c, n->addr[side], n->addr[!side], port, n->now);
	if (err != 0)
		kt_fail(n->t, __FILE__, __LINE__, "tcp_connect: %d", err);
	tn_check(n, "connect");
	return c;
}

static bool
acceptable_cond(struct tnet *n, void *arg)
{
	(void)n;
	return tcp_poll(arg) & TCP_EV_ACCEPT;
}

void
tn_pair(struct tnet *n, struct tcp_pcb **cli, struct tcp_pcb **lis,
        struct tcp_pcb **srv)
{
	struct tcp_pcb *l = tn_listen(n, TN_B, 80, 4);

	*cli = tn_connect(n, TN_A, 80);
	if (!tn_run_cond(n, acceptable_cond, l, 5000))
		kt_fail(n->t, __FILE__, __LINE__, "handshake did not finish");
	tn_run(n, 50); /* let the final ACK settle */
	if (tcp_accept(l, srv) != 0)
		kt_fail(n->t, __FILE__, __LINE__, "accept");
	*lis = l;
}

unsigned
tn_count(const struct tnet *n, int from, uint8_t mask, uint8_t val)
{
	unsigned i, c = 0;

	for (i = 0; i < n->nlog; i++)
		if (n->log[i].from == from && (n->log[i].flags & mask) == val)
			c++;
	return c;
}

const struct tn_log *
tn_last(const struct tnet *n, int from, uint8_t mask, uint8_t val)
{
	unsigned i;

	for (i = n->nlog; i-- > 0;)
		if (n->log[i].from == from && (n->log[i].flags & mask) == val)
			return &n->log[i];
	return NULL;
}

size_t
tn_drain(struct tnet *n, struct tcp_pcb *pcb, uint8_t *buf, size_t cap)
{
	size_t got = 0;
	long r;

	while (got < cap &&
	       (r = tcp_recv(pcb, buf + got, cap - got, n->now)) > 0)
		got += (size_t)r;
	tn_check(n, "recv");
	return got;
}

unsigned
tn_state_count(const struct tnet *n, int side, enum tcp_state st)
{
	unsigned counts[TCP_NSTATES];

	tcp_count_by_state(n->st[side], counts);
	return counts[st];
}

/* See tnet.h. */
struct tcp_pcb *
tn_b_in_state(struct tnet *n, enum tcp_state st, struct tcp_pcb **cli)
{
	struct tcp_pcb *c, *l, *s;
	struct tcp_seg fin;

	if (st == TCP_SYN_SENT) {
		n->capture[TN_B] = true;
		return tn_connect(n, TN_B, 7);
	}
	if (st == TCP_SYN_RECEIVED) {
		struct tcp_seg syn = {.src = TN_ADDR_A,
		                      .dst = TN_ADDR_B,
		                      .sport = 4000,
		                      .dport = 80,
		                      .seq = 5000,
		                      .flags = TCP_SYN,
		                      .wnd = 8192};
		tn_listen(n, TN_B, 80, 4);
		n->capture[TN_B] = true;
		tn_inject(n, TN_B, &syn);
		return TCP_PCB_OF(n->st[TN_B]->lists[TCP_LIST_ACTIVE].next);
	}
	tn_pair(n, &c, &l, &s);
	*cli = c;
	switch (st) {
	case TCP_FIN_WAIT_1:
		n->capture[TN_B] = true;
		tcp_shutdown(s, n->now);
		break;
	case TCP_FIN_WAIT_2:
		tcp_shutdown(s, n->now);
		tn_run(n, 100);
		break;
	case TCP_CLOSE_WAIT:
		tcp_shutdown(c, n->now);
		tn_run(n, 100);
		break;
	case TCP_LAST_ACK:
		tcp_shutdown(c, n->now);
		tn_run(n, 100);
		n->capture[TN_B] = true;
		tcp_shutdown(s, n->now);
		break;
	case TCP_CLOSING:
		n->capture[TN_B] = true;
		tcp_shutdown(s, n->now);
		fin = tn_seg_for(s, s->rcv_nxt, s->snd_una, TCP_FIN | TCP_ACK,
		                 8192);
		tn_inject(n, TN_B, &fin);
		break;
	case TCP_TIME_WAIT:
		tcp_shutdown(s, n->now);
		tn_run(n, 100);
		tcp_shutdown(c, n->now);
		tn_run(n, 100);
		break;
	default:
		break;
	}
	n->capture[TN_A] = n->capture[TN_B] = true;
	return s;
}
