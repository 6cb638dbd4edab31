/*
 * libFuzzer target for the TCP core.  The first input byte picks the
 * state one connection of the stack under test is driven into (LISTEN,
 * SYN-SENT, ... TIME-WAIT, or no socket at all); the rest is a program
 * of operations, each decoded from a few bytes:
 *
 *   segment   flags, seq/ack as offsets from the connection's RCV.NXT and
 *             SND.UNA (so they land near the window edges), window,
 *             payload length, MSS option; valid checksum
 *   raw       up to 80 arbitrary header+payload bytes with the checksum
 *             fixed, so the option walker and flag checks see them
 *   time      the clock advances and tcp_tick() runs
 *   user      send, recv, shutdown, close, abort, accept, purge
 *             TIME_WAIT, reset all, toggle going
 *
 * tcp_pcbs_sane() runs after every operation; an inconsistency aborts,
 * and so does a leak when the stack is destroyed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/ipv4/inet_csum.h"
#include "net/tcp/tcp_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ME   IP4(10, 0, 0, 2)
#define PEER IP4(10, 0, 0, 1)

struct fz {
	const uint8_t *p;
	size_t n;
	struct tcp_stack *s;
	uint64_t now;
	long allocs;
	struct tcp_pcb *user[4]; /* pcbs we hold: listener, connections */
	uint16_t lport, rport;   /* the tuple crafted segments use */
	uint32_t peer_seq;       /* the peer's idea of its own SND.NXT */
	uint32_t last_seq;       /* sequence number of our last emitted */
	uint8_t last_flags;
};

static struct fz *cur;

static uint8_t
take(struct fz *f)
{
	if (f->n == 0)
		return 0;
	f->n--;
	return *f->p++;
}

static uint16_t
take16(struct fz *f)
{
	return (uint16_t)(take(f) << 8 | take(f));
}

static void *
fz_alloc(void *ctx, size_t size)
{
	(void)ctx;
	cur->allocs++;
	return malloc(size);
}

static void
fz_free(void *ctx, void *p)
{
	(void)ctx;
	if (p != NULL)
		cur->allocs--;
	free(p);
}

static uint32_t
fz_isn(void *ctx, uint32_t la, uint16_t lp, uint32_t ra, uint16_t rp,
       uint64_t now)
{
	(void)ctx, (void)la, (void)lp, (void)ra, (void)rp;
	return 0xfffff000u + (uint32_t)now; /* wraps soon after */
}

static void
fz_emit(void *ctx, const struct tcp_seg *seg)
{
	uint8_t buf[70000];
	struct tcp_seg back;

	(void)ctx;
	/* Whatever the core emits must survive its own parser. */
	long len = tcp_build(seg, buf, sizeof(buf));
	if (len < 0 || tcp_parse(seg->src, seg->dst, buf, (size_t)len, &back) !=
	                   TCP_DROP_NONE) {
		fprintf(stderr, "emitted segment does not parse\n");
		abort();
	}
	cur->last_seq = seg->seq;
	cur->last_flags = seg->flags;
}

static void
check(struct fz *f, const char *where)
{
	const char *why = tcp_pcbs_sane(f->s);

	if (why != NULL) {
		fprintf(stderr, "tcp_pcbs_sane after %s: %s\n", where, why);
		abort();
	}
}

/* The connection the peer talks to: the first non-listener. */
static struct tcp_pcb *
target(struct fz *f)
{
	static const enum tcp_list_id ids[] = {TCP_LIST_ACTIVE,
	                                       TCP_LIST_TIME_WAIT};
	unsigned i;

	for (i = 0; i < 2; i++)
		if (!tcp_link_empty(&f->s->lists[ids[i]]))
			return TCP_PCB_OF(f->s->lists[ids[i]].next);
	return NULL;
}

static void
inject(struct fz *f, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd,
       uint16_t mss, const uint8_t *payload, size_t len)
{
	struct tcp_seg s = {.src = PEER,
	                    .dst = ME,
	                    .sport = f->rport,
	                    .dport = f->lport,
	                    .seq = seq,
	                    .ack = ack,
	                    .flags = flags,
	                    .wnd = wnd,
	                    .mss = mss,
	                    .data = payload,
	                    .len = len};
	uint8_t buf[2048];
	long n = tcp_build(&s, buf, sizeof(buf));

	if (n > 0)
		tcp_input(f->s, PEER, ME, buf, (size_t)n, f->now);
	check(f, "input");
}

static void
hold(struct fz *f, struct tcp_pcb *pcb)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (f->user[i] == NULL) {
			f->user[i] = pcb;
			return;
		}
	tcp_close(&pcb, f->now);
}

/* The peer's reply that acknowledges everything the target sent. */
static void
peer_ack(struct fz *f, uint8_t flags, size_t len)
{
	static const uint8_t junk[64];
	struct tcp_pcb *t = target(f);

	if (t == NULL)
		return;
	inject(f, f->peer_seq, t->snd_max, flags, 8192, 0, junk, len);
	f->peer_seq += (uint32_t)len + ((flags & TCP_FIN) ? 1 : 0);
}

static void
setup(struct fz *f, unsigned st)
{
	struct tcp_pcb *p;

	f->lport = 80;
	f->rport = 5000;
	f->peer_seq = 0x7ffffff0u;
	if (st == 11)
		return; /* no socket at all */
	if (st == 1 || st == 4) {
		tcp_new(f->s, &p);
		tcp_connect(p, ME, PEER, 5000, f->now);
		f->lport = p->lport;
		hold(f, p);
		if (st == 1)
			return;
		inject(f, f->peer_seq, p->iss + 1, TCP_SYN | TCP_ACK, 8192,
		       1000, NULL, 0);
		f->peer_seq++;
	} else {
		tcp_new(f->s, &p);
		tcp_bind(p, 0, 80);
		tcp_listen(p, 2);
		hold(f, p);
		if (st == 0)
			return;
		inject(f, f->peer_seq, 0, TCP_SYN, 8192, 1000, NULL, 0);
		f->peer_seq++;
		if (st == 2)
			return;
		peer_ack(f, TCP_ACK, 0);
		if (tcp_accept(f->user[0], &p) == 0)
			hold(f, p);
	}
	p = target(f);
	if (p == NULL || p->state != TCP_ESTABLISHED)
		return;
	tcp_send(p, "0123456789", 10, f->now);
	peer_ack(f, TCP_ACK | TCP_PSH, 7);
	if (st == 3 || st == 4)
		return;
	if (st == 7 || st == 8) {
		peer_ack(f, TCP_ACK | TCP_FIN, 0);
		if (st == 8)
			tcp_shutdown(p, f->now);
		return;
	}
	tcp_shutdown(p, f->now); /* FIN-WAIT-1 */
	if (st == 9) {
		inject(f, f->peer_seq, p->snd_una, TCP_ACK | TCP_FIN, 8192, 0,
		       NULL, 0);
		f->peer_seq++;
		return;
	}
	if (st >= 6)
		peer_ack(f, TCP_ACK, 0); /* FIN-WAIT-2 */
	if (st == 10)
		peer_ack(f, TCP_ACK | TCP_FIN, 0);
}

static void
op_segment(struct fz *f)
{
	static uint8_t payload[1600];
	struct tcp_pcb *t = target(f);
	uint8_t flags = take(f) & 0x3f;
	int16_t dseq = (int16_t)take16(f), dack = (int16_t)take16(f);
	uint16_t wnd = take16(f), mss = 0;
	size_t len = take(f);
	uint8_t ctl = take(f);
	uint32_t seq, ack;

	if (ctl & 1)
		len *= 6; /* up to 1530: bigger than the MSS */
	if (ctl & 2)
		mss = take16(f);
	if (ctl & 4) {
		/* Scale the offsets to reach far outside the window. */
		dseq = (int16_t)(dseq * 64);
		dack = (int16_t)(dack * 64);
	}
	seq = (t != NULL ? t->rcv_nxt : f->peer_seq) + (uint32_t)(int32_t)dseq;
	ack = (t != NULL ? t->snd_una : f->last_seq) + (uint32_t)(int32_t)dack;
	if (ctl & 8)
		seq = f->peer_seq; /* in order from the peer's view */
	memset(payload, take(f), len);
	inject(f, seq, ack, flags, wnd, mss, payload, len);
	if ((ctl & 8) && t != NULL)
		f->peer_seq = seq + (uint32_t)len;
}

static void
op_raw(struct fz *f)
{
	uint8_t buf[80];
	size_t len = take(f) % sizeof(buf), i;
	uint32_t sum;

	for (i = 0; i < len; i++)
		buf[i] = take(f);
	if (len >= 20) {
		put_be16(buf, f->rport);
		put_be16(buf + 2, f->lport);
		put_be16(buf + 16, 0);
		sum = inet_csum_pseudo(PEER, ME, 6, (uint16_t)len);
		put_be16(buf + 16,
		         inet_csum_fold(inet_csum_add(sum, buf, len)));
	}
	tcp_input(f->s, PEER, ME, buf, len, f->now);
	check(f, "raw input");
}

static void
op_user(struct fz *f)
{
	static uint8_t buf[20000];
	uint8_t which = take(f), slot = take(f) % 4;
	struct tcp_pcb *p = f->user[slot], *c;

	switch (which % 10) {
	case 0:
		if (p != NULL)
			tcp_send(p, buf, (size_t)take(f) * 100, f->now);
		break;
	case 1:
		if (p != NULL)
			tcp_recv(p, buf, (size_t)take(f) * 64 + 1, f->now);
		break;
	case 2:
		if (p != NULL)
			tcp_shutdown(p, f->now);
		break;
	case 3:
		tcp_close(&f->user[slot], f->now);
		break;
	case 4:
		tcp_abort(p, f->now); /* still ours: closed later */
		break;
	case 5:
		if (p != NULL && tcp_accept(p, &c) == 0)
			hold(f, c);
		break;
	case 6:
		tcp_purge_time_wait(f->s);
		break;
	case 7:
		tcp_reset_all(f->s, f->now);
		break;
	case 8:
		tcp_set_going(f->s, which & 0x80);
		break;
	case 9:
		if (tcp_new(f->s, &c) == 0) {
			if (which & 0x40)
				tcp_connect(c, ME, PEER, f->rport, f->now);
			hold(f, c);
		}
		break;
	}
	check(f, "user call");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {.p = data, .n = size};
	struct tcp_config cfg;
	struct tcp_env env = {
	    .emit = fz_emit, .isn = fz_isn, .alloc = fz_alloc, .free = fz_free};
	unsigned st = take(&f) % 12, i;
	uint8_t knobs = take(&f);

	cur = &f;
	tcp_config_default(&cfg);
	cfg.delack_ms = knobs & 1 ? 0 : 40;
	cfg.rfc1337 = knobs & 2;
	cfg.nodelay = knobs & 4;
	cfg.sndbuf = knobs & 8 ? 1000 : 16384;
	cfg.rcvbuf = knobs & 16 ? 600 : 16384;
	cfg.msl_ms = knobs & 32 ? 10 : 30000;
	cfg.max_retries = 3;
	if (tcp_stack_create(&cfg, &env, &f.s) != 0)
		abort();
	setup(&f, st);
	if (knobs & 64) {
		/* The user lets go at once: the orphan paths. */
		for (i = 1; i < 4; i++)
			tcp_close(&f.user[i], f.now);
	}
	check(&f, "setup");
	while (f.n > 0) {
		uint8_t op = take(&f);

		switch (op % 8) {
		case 0:
		case 1:
		case 2:
		case 3:
			op_segment(&f);
			break;
		case 4:
			op_raw(&f);
			break;
		case 5:
			f.now += (uint64_t)take(&f) * 97;
			tcp_tick(f.s, f.now);
			check(&f, "tick");
			break;
		default:
			op_user(&f);
			break;
		}
	}
	/* Let every timer run out: all orphans must go away. */
	for (i = 0; i < 4; i++)
		tcp_close(&f.user[i], f.now);
	for (i = 0; i < 10000 && f.s->npcbs != 0; i++) {
		uint64_t next = tcp_tick(f.s, f.now);

		check(&f, "final tick");
		if (next == UINT64_MAX)
			break;
		f.now = next > f.now ? next : f.now + 1;
	}
	if (f.s->npcbs != 0) {
		fprintf(stderr, "%u pcbs outlive all their timers\n",
		        f.s->npcbs);
		abort();
	}
	tcp_stack_destroy(f.s);
	if (f.allocs != 0) {
		fprintf(stderr, "%ld allocations leaked\n", f.allocs);
		abort();
	}
	return 0;
}
