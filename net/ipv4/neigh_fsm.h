/*
 * The neighbour (ARP cache) entry state machine as pure logic: no
 * devices, no packets, no clock.  The caller passes the time in, keeps
 * the packets an entry may queue (at most queue_len, oldest first), and
 * carries out the actions an event returns.  The kernel's cache wraps each
 * entry with the device reference and the queued packet.
 *
 * Transitions (a "reply" is a solicited ARP reply, "unsolicited" any
 * other ARP from the neighbour):
 *
 *   from         event                     to          actions
 *   NONE         output                    INCOMPLETE  request, queue
 *   INCOMPLETE   output, queue not full    INCOMPLETE  queue
 *   INCOMPLETE   output, queue full        INCOMPLETE  drop oldest, queue
 *   INCOMPLETE   timer, probes < max       INCOMPLETE  request
 *   INCOMPLETE   timer, probes = max       FAILED      drop queued
 *   INCOMPLETE   reply                     REACHABLE   send queued
 *   INCOMPLETE   unsolicited               STALE       send queued
 *   REACHABLE    output                    REACHABLE   xmit
 *   REACHABLE    timer (reachable_ms)      STALE
 *   REACHABLE    unsolicited, new MAC      STALE
 *   STALE        output                    STALE       xmit (+ unicast
 *                                                      request if idle)
 *   STALE        timer, probing, < max     STALE       unicast request
 *   STALE        timer, probing, = max     FAILED
 *   STALE        timer, idle (stale_gc_ms) NONE        remove
 *   FAILED       output                    FAILED      drop
 *   FAILED       timer (failed_hold_ms)    NONE        remove
 *   FAILED       unsolicited               STALE
 *   any          reply                     REACHABLE   (send queued)
 *   any          ifdown                    NONE        drop queued, remove
 *
 * Policies, each pinned by a unit test:
 *  - While INCOMPLETE, up to queue_len packets are queued (3, like
 *    Linux's unres_qlen in packets); one more drops the oldest
 *    (ARP_QUEUE_FULL), so what is sent on resolution is the most recent,
 *    in order, as a retrying application expects.  Resolution sends them
 *    all; failure and ifdown drop them all.
 *  - Requests are broadcast every retrans_ms while INCOMPLETE (RFC 1122
 *    2.3.2.1: at most one per second per destination); after max_probes
 *    unanswered the entry is FAILED and the queued packet is dropped as
 *    ARP_UNRESOLVED.
 *  - A FAILED entry answers output with a drop (no request storm) until
 *    failed_hold_ms has passed; then it is removed.
 *  - A confirmation is trusted for reachable_ms; then the entry is STALE
 *    and still used, but the first output starts a round of unicast
 *    probes to the cached MAC (RFC 1122 2.3.2.1 "unicast poll").  No
 *    reply after max_probes: FAILED.  A STALE entry unused for
 *    stale_gc_ms is removed.
 *  - An unsolicited ARP from the neighbour (a request, a gratuitous ARP)
 *    updates the MAC and makes the entry STALE (RFC 826 "merge"), never
 *    REACHABLE: it proves the sender exists, not that it hears us.
 */
#ifndef NET_NEIGH_FSM_H
#define NET_NEIGH_FSM_H

#include <stdbool.h>
#include <stdint.h>

#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/net_drop.h"

enum neigh_state {
	NEIGH_NONE, /* fresh or removed: no address, no timer */
	NEIGH_INCOMPLETE,
	NEIGH_REACHABLE,
	NEIGH_STALE,
	NEIGH_FAILED,
};

struct neigh_params {
	uint32_t retrans_ms;     /* between requests */
	uint32_t max_probes;     /* requests per resolution or probe round */
	uint32_t reachable_ms;   /* how long a confirmation is trusted */
	uint32_t stale_gc_ms;    /* unused STALE entries are removed after */
	uint32_t failed_hold_ms; /* FAILED drops output for this long */
	uint32_t queue_len;      /* packets held while INCOMPLETE, >= 1 */
};

/* 1 s, 3 probes, 30 s reachable (RFC 4861's REACHABLE_TIME, the usual
 * ARP value too), 60 s stale gc, 5 s failed hold, 3 queued packets. */
extern const struct neigh_params neigh_default_params;

struct neigh_entry {
	uint32_t ip; /* the neighbour, host order */
	enum neigh_state state;
	uint8_t mac[ETH_ALEN]; /* valid in REACHABLE and STALE */
	uint32_t probes;       /* requests sent in the current round */
	uint32_t queued;       /* packets the caller holds for us */
	uint64_t timer;        /* next deadline, 0 if none */
};

/* Actions for the caller, carried out in this order. */
enum {
	NEIGH_ACT_SEND_QUEUED = 1 << 0,  /* send every queued packet to mac */
	NEIGH_ACT_DROP_QUEUED = 1 << 1,  /* free them all, queued_reason */
	NEIGH_ACT_DROP_OLDEST = 1 << 2,  /* free the oldest: ARP_QUEUE_FULL */
	NEIGH_ACT_XMIT = 1 << 3,         /* send this packet to mac */
	NEIGH_ACT_QUEUE = 1 << 4,        /* queue this packet (the newest) */
	NEIGH_ACT_DROP = 1 << 5,         /* drop this packet: ARP_UNRESOLVED */
	NEIGH_ACT_SEND_REQUEST = 1 << 6, /* ARP request for ip */
	NEIGH_ACT_REMOVE = 1 << 7,       /* entry unused: free it */
};

struct neigh_action {
	unsigned int flags;
	bool unicast; /* SEND_REQUEST goes to mac, not broadcast */
	enum net_drop queued_reason;
};

void neigh_init(struct neigh_entry *e, uint32_t ip);

/* A packet wants to go to e->ip now. */
void neigh_output(struct neigh_entry *e, const struct neigh_params *p,
                  uint64_t now, struct neigh_action *act);

/*
 * Whether neigh_output(e, p, now) would do nothing but XMIT to e->mac and
 * change nothing in e: REACHABLE, or STALE with its probe out, and no
 * deadline due.  A caller may then
 * send to e->mac without the event (and without the lock that guards
 * e), given a consistent copy of e (the neighbour cache's lockless
 * output path); every other case takes the event.
 */
static inline bool
neigh_output_only_xmits(const struct neigh_entry *e, uint64_t now)
{
	/* With no deadline due expire() runs nothing; then REACHABLE only
	 * sets XMIT, and so does STALE once its probe is out.  Inline: it
	 * is asked for nearly every packet sent. */
	bool xmit = e->state == NEIGH_REACHABLE ||
	            (e->state == NEIGH_STALE && e->probes != 0);

	return xmit && e->timer != 0 && now < e->timer;
}

/* An ARP packet from e->ip says its MAC is mac; solicited when it is a
 * reply to us (op REPLY, target our address). */
void neigh_input(struct neigh_entry *e, const struct neigh_params *p,
                 uint64_t now, const uint8_t mac[ETH_ALEN], bool solicited,
                 struct neigh_action *act);

/* Runs expired timers; call when now >= e->timer (earlier is harmless).
 * Every other event runs this first, so a late timer is never missed. */
void neigh_timer(struct neigh_entry *e, const struct neigh_params *p,
                 uint64_t now, struct neigh_action *act);

/* The device went down or away: drop the queued packets and remove. */
void neigh_ifdown(struct neigh_entry *e, struct neigh_action *act);

const char *neigh_state_name(enum neigh_state s);

#endif /* NET_NEIGH_FSM_H */
