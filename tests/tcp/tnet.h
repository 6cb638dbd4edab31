/*
 * An in-memory network of two TCP cores, side 0 (A, 10.0.0.1) and side 1
 * (B, 10.0.0.2), with a virtual clock.  Every segment a core emits is
 * logged, turned into bytes by tcp_build(), optionally dropped,
 * duplicated or delayed by the test's filter, and delivered through
 * tcp_input() after the wire latency.  tcp_pcbs_sane() runs on both
 * cores after every delivery, tick and API call made through tn_*().
 *
 * A side can be put in capture mode: what it emits is logged but not
 * sent, and the test plays the peer by injecting crafted segments.
 */
#ifndef TESTS_TCP_TNET_H
#define TESTS_TCP_TNET_H

#include <stdbool.h>
#include <stdint.h>

#include "net/tcp/tcp_priv.h"
#include "tests/lib/ktap.h"

#define TN_A      0
#define TN_B      1
#define TN_ADDR_A IP4(10, 0, 0, 1)
#define TN_ADDR_B IP4(10, 0, 0, 2)
#define TN_LOGMAX 4096

struct tn_log {
	int from;
	uint64_t at;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd, mss;
	uint32_t len;
	bool dropped;
	uint8_t first; /* first payload byte */
};

enum tn_verdict { TN_PASS, TN_DROP, TN_DUP, TN_DELAY };

struct tnet;
/* Decides the fate of the segment about to go on the wire; *delay_ms
 * is added latency for TN_DELAY. */
typedef enum tn_verdict (*tn_filter)(struct tnet *n, const struct tn_log *seg,
                                     void *arg, uint32_t *delay_ms);

struct tn_pkt {
	struct tn_pkt *next;
	uint64_t at;
	int to;
	uint32_t len;
	uint8_t bytes[];
};

struct tn_side {
	struct tnet *net;
	int id;
};

struct tnet {
	struct kt *t;
	struct tcp_stack *st[2];
	struct tn_side side[2];
	uint32_t addr[2];
	uint32_t isn[2];
	uint64_t now;
	uint32_t latency_ms;
	struct tn_pkt *queue; /* by delivery time, FIFO among equals */
	tn_filter filter;
	void *filter_arg;
	bool capture[2];
	struct tn_log log[TN_LOGMAX];
	unsigned nlog;
	unsigned events[2]; /* OR of TCP_EV_* seen per side */
	long allocs;
	bool insane_reported;
};

/* cfg NULL: defaults with delack 0 (every segment acknowledged at once,
 * which keeps traces easy to read); both sides get the same config. */
void tn_init(struct tnet *n, struct kt *t, const struct tcp_config *cfg);
/* Destroys both stacks and checks every allocation was freed. */
void tn_fini(struct tnet *n);
void tn_check(struct tnet *n, const char *where);

/* Advances the clock, delivering and ticking, until `until` (absolute)
 * or until nothing is pending; returns the time reached. */
uint64_t tn_run_until(struct tnet *n, uint64_t until);
uint64_t tn_run(struct tnet *n, uint64_t for_ms);
/* Runs until cond(n, arg) holds (checked after each event) or max_ms. */
bool tn_run_cond(struct tnet *n, bool (*cond)(struct tnet *, void *), void *arg,
                 uint64_t max_ms);

/* Feeds a crafted segment to side `to` as if from the other side. */
enum tcp_drop tn_inject(struct tnet *n, int to, const struct tcp_seg *seg);
/* A segment from the peer of `pcb` with the connection's addresses. */
struct tcp_seg tn_seg_for(const struct tcp_pcb *pcb, uint32_t seq, uint32_t ack,
                          uint8_t flags, uint16_t wnd);

/* Listener on side b port, connection from side a; runs the handshake.
 * Returns the accepted pcb in *srv (if non-NULL) and the client. */
struct tcp_pcb *tn_listen(struct tnet *n, int side, uint16_t port,
                          unsigned backlog);
struct tcp_pcb *tn_connect(struct tnet *n, int side, uint16_t port);
void tn_pair(struct tnet *n, struct tcp_pcb **cli, struct tcp_pcb **lis,
             struct tcp_pcb **srv);

/* A connection with B's side in `st`, both sides then frozen (what
 * they emit is logged, not delivered); returns B's pcb and A's in *cli
 * (unset for SYN_SENT and SYN_RECEIVED).  For SYN_RECEIVED the pcb is a
 * listener's child the user does not hold. */
struct tcp_pcb *tn_b_in_state(struct tnet *n, enum tcp_state st,
                              struct tcp_pcb **cli);

/* Log queries. */
unsigned tn_count(const struct tnet *n, int from, uint8_t mask, uint8_t val);
const struct tn_log *tn_last(const struct tnet *n, int from, uint8_t mask,
                             uint8_t val);
void tn_dump(const struct tnet *n);

/* Reads everything available into buf; returns bytes read. */
size_t tn_drain(struct tnet *n, struct tcp_pcb *pcb, uint8_t *buf, size_t cap);

unsigned tn_state_count(const struct tnet *n, int side, enum tcp_state st);

#endif
