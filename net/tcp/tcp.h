/*
 * The TCP protocol core (RFC 9293, RFC 1122 4.2, RFC 5961, RFC 6298,
 * RFC 5681): connection state, input, output and timers, with no
 * knowledge of devices, skbs, locks or wait queues.  The same files
 * build freestanding for the kernel (tcp.ko wraps them) and hosted for
 * the unit tests and the fuzzer.  docs/tcp.md describes the behaviour.
 *
 * Rules for callers (the socket layer):
 *  - A stack is not thread-safe: the caller serialises every call on one
 *    stack (one lock around the core is enough).
 *  - Nothing blocks and nothing reads a clock: every call that may send
 *    or arm a timer takes now_ms, and tcp_tick() runs expired timers and
 *    returns the next deadline.
 *  - env->emit and env->event are called from inside the core.  They
 *    must not call back into the core (queue the segment, wake a wait
 *    queue, nothing more).
 *  - A pcb returned by tcp_new() or tcp_accept() belongs to the caller
 *    until tcp_close(), the only call that gives it back; the core never
 *    frees it before.  tcp_close() clears the caller's pointer: the
 *    core finishes the connection (FIN handshake, TIME_WAIT) on its own
 *    and frees it.  tcp_abort() resets but does not give the pcb back.
 *  - Addresses are uint32_t in host byte order, as in net/ipv4/proto_lib.h.
 */
#ifndef NET_TCP_TCP_H
#define NET_TCP_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/proto_lib.h"

/* RFC 9293 3.3.2.  The order matters: states from SYN_SENT on are
 * "active" (have a peer), from ESTABLISHED on "synchronized". */
#define TCP_STATES(X)                                                          \
	X(CLOSED)                                                              \
	X(LISTEN)                                                              \
	X(SYN_SENT)                                                            \
	X(SYN_RECEIVED)                                                        \
	X(ESTABLISHED)                                                         \
	X(FIN_WAIT_1)                                                          \
	X(FIN_WAIT_2)                                                          \
	X(CLOSE_WAIT)                                                          \
	X(CLOSING)                                                             \
	X(LAST_ACK)                                                            \
	X(TIME_WAIT)

enum tcp_state {
#define TCP_STATE_ENUM(n) TCP_##n,
	TCP_STATES(TCP_STATE_ENUM)
#undef TCP_STATE_ENUM
	    TCP_NSTATES
};

/* Header flags (RFC 9293 3.1); the values are the wire bits. */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20

/* One segment as the core sees it: what tcp_parse() fills in from the
 * wire and what env->emit receives.  The IP layer adds the addresses to
 * its own header; tcp_build() turns it back into bytes. */
struct tcp_seg {
	uint32_t src, dst; /* IPv4, host order */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	uint16_t mss; /* MSS option value, 0 when absent */
	const uint8_t *data;
	size_t len;
	/* emit only, for diagnostics (tcp_build ignores them): the sender's
	 * SND.UNA, and whether seq is below SND.MAX (a retransmission) */
	uint32_t una;
	bool rexmit;
};

/* Why a segment was dropped (or answered with a reset).  X(name, text) */
#define TCP_DROP_REASONS(X)                                                    \
	X(NONE, "not dropped")                                                 \
	X(TRUNCATED, "shorter than the 20-byte header")                        \
	X(BAD_OFFSET, "data offset below 5 or beyond the segment")             \
	X(BAD_CHECKSUM, "checksum mismatch")                                   \
	X(BAD_OPTION, "option length zero, one or past the header")            \
	X(BAD_MSS_OPTION, "MSS option length is not 4")                        \
	X(BAD_PORT, "source or destination port 0")                            \
	X(BAD_FLAGS, "SYN with FIN or RST")                                    \
	X(BAD_ADDR, "source or destination address 0")                         \
	X(NO_SOCKET, "no connection or listener (reset sent)")                 \
	X(LISTEN_NOT_SYN, "segment without SYN to a listener")                 \
	X(LISTEN_OVERFLOW, "listener backlog full")                            \
	X(LISTEN_GOING, "listener refuses while the module unloads")           \
	X(NO_MEMORY, "no memory for a new connection")                         \
	X(NOT_ACCEPTABLE, "sequence number outside the receive window")        \
	X(RST_OUT_OF_WINDOW, "reset outside the window (ignored)")             \
	X(RST_CHALLENGED, "reset in window but not exact (challenge ACK)")     \
	X(RST_TIME_WAIT, "reset in TIME-WAIT ignored (RFC 1337)")              \
	X(SYN_CHALLENGED, "SYN on a synchronized connection (challenge ACK)")  \
	X(NO_ACK, "ACK bit off on a synchronized connection")                  \
	X(ACK_UNSENT, "acknowledges data not yet sent")                        \
	X(ACK_TOO_OLD, "acknowledges data older than the window (RFC 5961)")   \
	X(SYN_SENT_BAD_ACK, "SYN-SENT: ACK outside ISS..SND.NXT")              \
	X(SYN_SENT_NO_SYN, "SYN-SENT: neither SYN nor RST")                    \
	X(SYN_RCVD_BAD_ACK, "SYN-RECEIVED: ACK outside the window (reset)")    \
	X(OUT_OF_ORDER, "out of order, no room to queue it")                   \
	X(DATA_AFTER_FIN, "data after the peer's FIN")                         \
	X(DATA_AFTER_CLOSE, "data for a closed socket (reset sent)")

enum tcp_drop {
#define TCP_DROP_ENUM(n, text) TCP_DROP_##n,
	TCP_DROP_REASONS(TCP_DROP_ENUM)
#undef TCP_DROP_ENUM
	    TCP_DROP_NREASONS
};

struct tcp_stats {
	uint64_t segs_in, segs_out, bytes_in, bytes_out;
	uint64_t retransmits, fast_retransmits, rto_expired, timeouts;
	uint64_t active_opens, passive_opens, resets_in, resets_out;
	uint64_t challenge_acks, persist_probes, time_wait_purged;
	uint64_t ooo_queued; /* out-of-order segments kept for later */
	uint64_t drops[TCP_DROP_NREASONS];
};

/* Tunables; tcp_config_default() fills in the documented defaults. */
struct tcp_config {
	uint32_t msl_ms;      /* TIME_WAIT lasts 2 * msl_ms; 30 s */
	uint16_t mss;         /* MSS we announce and send at most; 536 */
	uint32_t sndbuf;      /* send buffer per connection; 16 KiB */
	uint32_t rcvbuf;      /* receive buffer (window) per connection */
	uint32_t rto_init_ms; /* RFC 6298 2.1: 1 s */
	uint32_t rto_min_ms;  /* RFC 6298 2.4: 1 s */
	uint32_t rto_max_ms;  /* RFC 6298 2.5: 60 s */
	uint32_t max_retries; /* data/FIN retransmissions before ETIMEDOUT */
	uint32_t syn_retries; /* SYN and SYN-ACK retransmissions */
	uint32_t delack_ms;   /* delayed ACK; 0 acknowledges at once */
	/* Stretch ACKs for in-order data (0: off, an ACK for every second
	 * segment, RFC 1122 4.2.3.2).  Otherwise an ACK goes at once only
	 * when this many bytes are unacknowledged; below that it is due
	 * at the caller's next tcp_tick(), which the caller runs when its
	 * receive batch ends (tcp_acks_deferred), as Linux acknowledges
	 * once per GRO batch.  docs/tcp.md, "Receive throughput". */
	uint32_t ack_stretch;
	uint32_t fin_wait2_ms; /* orphaned FIN-WAIT-2 gives up after this */
	bool rfc1337;          /* ignore RST in TIME-WAIT (RFC 1337) */
	bool nodelay;          /* no Nagle (RFC 1122 4.2.3.4) by default */
};

/* Events for env->event: the socket layer wakes its wait queues. */
#define TCP_EV_CONNECTED 0x01 /* handshake done (either side) */
#define TCP_EV_READABLE  0x02 /* data, FIN or an error to read */
#define TCP_EV_WRITABLE  0x04 /* send buffer space freed */
#define TCP_EV_ACCEPT    0x08 /* a listener has a connection to accept */
#define TCP_EV_ERROR     0x10 /* reset, refused or timed out: see err */

struct tcp_pcb;

struct tcp_env {
	void *ctx;
	/* Hands a segment to IP.  seg->data is only valid during the call. */
	void (*emit)(void *ctx, const struct tcp_seg *seg);
	/* Initial sequence number (RFC 9293 3.4.1, RFC 6528). */
	uint32_t (*isn)(void *ctx, uint32_t laddr, uint16_t lport,
	                uint32_t raddr, uint16_t rport, uint64_t now_ms);
	void *(*alloc)(void *ctx, size_t size); /* zeroing not required */
	void (*free)(void *ctx, void *p);
	/* Optional. */
	void (*event)(void *ctx, struct tcp_pcb *pcb, unsigned events);
	/* Optional, for timelines: a pcb's TIME_WAIT timer armed (entry or
	 * restart) or expired (the pcb is freed right after), whether a
	 * user holds it or not; lport/rport name the connection. */
	void (*time_wait)(void *ctx, const void *pcb, uint16_t lport,
	                  uint16_t rport, bool armed);
};

struct tcp_stack;

/* What `ss` prints about one connection. */
struct tcp_info {
	enum tcp_state state;
	uint32_t laddr, raddr;
	uint16_t lport, rport;
	uint32_t rx_queued, tx_queued; /* bytes unread, bytes unacked+unsent */
	uint64_t timer_ms;             /* time left on the next timer */
	const char *timer;             /* "rto", "persist", "timewait", ... */
	uint32_t rto_ms, srtt_ms, mss;
	uint32_t retries;
	bool orphan; /* closed by the user, finishing on its own */
	int err;     /* pending -errno, 0 if none */
};

/* ---- stack ---------------------------------------------------------- */
void tcp_config_default(struct tcp_config *cfg);
/* -ENOMEM, -EINVAL (bad config or env). */
int tcp_stack_create(const struct tcp_config *cfg, const struct tcp_env *env,
                     struct tcp_stack **out);
/* Frees every pcb without sending anything; caller-held pcbs die too. */
void tcp_stack_destroy(struct tcp_stack *s);
/* Changes take effect for timers armed afterwards (msl: next TIME_WAIT)
 * and for connections created afterwards (buffers, MSS).  -EINVAL for
 * a bad config or an MSS above the one the stack was created with. */
int tcp_set_config(struct tcp_stack *s, const struct tcp_config *cfg);
const struct tcp_config *tcp_get_config(const struct tcp_stack *s);
const struct tcp_stats *tcp_get_stats(const struct tcp_stack *s);
/* While going, tcp_new() fails with -EPROTONOSUPPORT and listeners
 * answer new SYNs with RST; existing connections carry on. */
void tcp_set_going(struct tcp_stack *s, bool going);

/* ---- input and timers -------------------------------------------------- */
/* A TCP segment as IP delivers it (src/dst from the IP header): parse,
 * validate and process.  Returns why it was dropped, TCP_DROP_NONE if
 * it was used (a segment that only provoked an ACK counts as used). */
enum tcp_drop tcp_input(struct tcp_stack *s, uint32_t src, uint32_t dst,
                        const uint8_t *pkt, size_t len, uint64_t now_ms);
/* Runs expired timers; returns the next deadline (UINT64_MAX: none). */
uint64_t tcp_tick(struct tcp_stack *s, uint64_t now_ms);
/* True (once) when tcp_input() has left an ACK for the next tcp_tick()
 * since the last call (cfg.ack_stretch): the caller runs tcp_tick()
 * once its batch of received segments is done. */
bool tcp_acks_deferred(struct tcp_stack *s);

/* ---- socket-facing API --------------------------------------------------- */
int tcp_new(struct tcp_stack *s, struct tcp_pcb **out);
void tcp_set_user(struct tcp_pcb *pcb, void *user);
void *tcp_get_user(const struct tcp_pcb *pcb);
/* addr 0 is the wildcard; port 0 picks an ephemeral port.  -EADDRINUSE
 * when another non-TIME_WAIT pcb has the port (TIME_WAIT ones are
 * allowed, as with SO_REUSEADDR), -EINVAL if not CLOSED or bound. */
int tcp_bind(struct tcp_pcb *pcb, uint32_t addr, uint16_t port);
/* backlog: embryonic plus not yet accepted connections (at least 1). */
int tcp_listen(struct tcp_pcb *pcb, unsigned backlog);
/* -EAGAIN when nothing is ready; -EINVAL if not listening. */
int tcp_accept(struct tcp_pcb *listener, struct tcp_pcb **out);
/* Sends the SYN; completion is TCP_EV_CONNECTED (state ESTABLISHED) or
 * TCP_EV_ERROR (err -ECONNREFUSED / -ETIMEDOUT).  laddr is the source
 * address routing chose (used when the pcb is bound to the wildcard). */
int tcp_connect(struct tcp_pcb *pcb, uint32_t laddr, uint32_t raddr,
                uint16_t rport, uint64_t now_ms);
/* Queues up to len bytes; returns how many, -EAGAIN when the buffer is
 * full, -ENOTCONN, -EPIPE after shutdown, or the connection's error. */
long tcp_send(struct tcp_pcb *pcb, const void *buf, size_t len,
              uint64_t now_ms);
/* Returns bytes read, 0 at end of stream, -EAGAIN when nothing is there
 * yet, -ENOTCONN or the connection's error. */
long tcp_recv(struct tcp_pcb *pcb, void *buf, size_t len, uint64_t now_ms);
/* Half close: a FIN follows the queued data; receiving goes on. */
int tcp_shutdown(struct tcp_pcb *pcb, uint64_t now_ms);
/* Gives the pcb back: a graceful close (FIN, TIME_WAIT on the active
 * side), or a reset when unread data is discarded (RFC 2525 2.17).
 * Takes the caller's pointer and clears it, so closing twice, or
 * aborting after the close, finds NULL and does nothing. */
void tcp_close(struct tcp_pcb **pcbp, uint64_t now_ms);
/* Resets the connection (RFC 9293 3.10.5): a RST to a synchronized
 * peer, queued data dropped, CLOSED with -ECONNABORTED.  The caller
 * still holds the pcb and gives it back with tcp_close().  NULL or an
 * already CLOSED pcb: nothing happens. */
void tcp_abort(struct tcp_pcb *pcb, uint64_t now_ms);

/* Readiness for poll(): TCP_EV_READABLE / WRITABLE / ACCEPT / ERROR. */
unsigned tcp_poll(const struct tcp_pcb *pcb);
enum tcp_state tcp_get_state(const struct tcp_pcb *pcb);
int tcp_get_error(const struct tcp_pcb *pcb);
void tcp_get_info(const struct tcp_pcb *pcb, uint64_t now_ms,
                  struct tcp_info *info);

/* ---- whole-table operations (unload, ss, tests) ------------------------- */
/* counts[state] for every pcb the stack holds; returns the total. */
unsigned tcp_count_by_state(const struct tcp_stack *s,
                            unsigned counts[TCP_NSTATES]);
/* Time left on the TIME_WAIT that expires last (0: none). */
uint64_t tcp_time_wait_longest(const struct tcp_stack *s, uint64_t now_ms);
/* Frees every TIME_WAIT pcb at once (rmmod -f); returns how many. */
unsigned tcp_purge_time_wait(struct tcp_stack *s);
/* Resets every other connection: a RST to each peer that has a
 * synchronized or SYN-RECEIVED connection, then the pcb is closed (user
 * pcbs go to CLOSED with -ECONNRESET).  Listeners are closed too.
 * TIME_WAIT is left to tcp_purge_time_wait().  Returns pcbs affected. */
unsigned tcp_reset_all(struct tcp_stack *s, uint64_t now_ms);
/* Calls fn for every pcb (listeners, connections, TIME_WAIT). */
void tcp_foreach(const struct tcp_stack *s,
                 void (*fn)(void *arg, const struct tcp_pcb *pcb), void *arg);
/* NULL when every list and connection is consistent, else what is not. */
const char *tcp_pcbs_sane(const struct tcp_stack *s);

const char *tcp_state_name(enum tcp_state st);
const char *tcp_drop_name(enum tcp_drop why);
const char *tcp_drop_text(enum tcp_drop why);

/* ---- wire format (tcp_hdr.c) --------------------------------------------- */
#define TCP_HDR_LEN     20
#define TCP_MAX_OPT_LEN 40
#define TCP_DEFAULT_MSS 536 /* RFC 9293 3.7.1 when no MSS option came */
#define TCP_MIN_MSS     64  /* a smaller announced MSS is raised to this */

/* Parses and validates a segment; seg->data points into pkt. */
enum tcp_drop tcp_parse(uint32_t src, uint32_t dst, const uint8_t *pkt,
                        size_t len, struct tcp_seg *seg);
/* Writes header (with an MSS option when seg->mss != 0), payload and
 * checksum; returns the length or -ENOSPC. */
long tcp_build(const struct tcp_seg *seg, uint8_t *buf, size_t cap);

#endif /* NET_TCP_TCP_H */
