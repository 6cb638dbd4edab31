/*
 * The DHCP client state machine (RFC 2131 section 4.4, figure 5) as pure
 * logic: the caller passes time in, sends the message an event leaves in
 * its buffer, and applies the lease events (configure or remove the
 * address).  No sockets, no timers, no device.
 *
 *   from        event                          to          sends
 *   INIT        start                          SELECTING   DISCOVER
 *   SELECTING   timer                          SELECTING   DISCOVER again
 *   SELECTING   OFFER                          REQUESTING  REQUEST (bcast)
 *   REQUESTING  timer, tries < request_tries   REQUESTING  REQUEST again
 *   REQUESTING  timer, tries = request_tries   SELECTING   DISCOVER (new xid)
 *   REQUESTING  ACK                 [BOUND]    BOUND
 *   REQUESTING  NAK                 [NAK]      SELECTING   DISCOVER (new xid)
 *   BOUND       timer (T1)                     RENEWING    REQUEST (unicast)
 *   RENEWING    timer, before T2               RENEWING    REQUEST again
 *   RENEWING    timer (T2)                     REBINDING   REQUEST (bcast)
 *   REBINDING   timer, before expiry           REBINDING   REQUEST again
 *   REBINDING   timer (lease expired) [LOST]   SELECTING   DISCOVER (new xid)
 *   RENEWING,
 *   REBINDING   ACK                 [RENEWED]  BOUND
 *   RENEWING,
 *   REBINDING   NAK            [NAK, LOST]     SELECTING   DISCOVER (new xid)
 *
 * Retransmission (RFC 2131 4.1): DISCOVER and REQUEST in SELECTING and
 * REQUESTING are resent after 4 s, 8 s, 16 s, ... up to 64 s, each
 * randomised by +-jitter_ms.  RENEWING and REBINDING resend after half
 * the time left until T2 (lease expiry), at least min_renew_ms (RFC 2131
 * 4.4.5).  T1 and T2 default to 0.5 and 0.875 of the lease when the
 * server gives none or inconsistent ones.  An infinite lease arms no
 * timer.  Retransmissions keep their xid; each new exchange draws one.
 */
#ifndef NET_DHCP_FSM_H
#define NET_DHCP_FSM_H

#include <stddef.h>
#include <stdint.h>

#include "net/apps/dhcp_proto.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/net_drop.h"

enum dhcp_state {
	DHCP_INIT,
	DHCP_SELECTING,
	DHCP_REQUESTING,
	DHCP_BOUND,
	DHCP_RENEWING,
	DHCP_REBINDING,
};

struct dhcp_params {
	uint32_t first_rto_ms;  /* 4000 */
	uint32_t max_rto_ms;    /* 64000 */
	uint32_t jitter_ms;     /* 1000; tests use 0 */
	uint32_t request_tries; /* REQUESTs before restarting: 4 */
	uint32_t min_renew_ms;  /* 60000 */
};

extern const struct dhcp_params dhcp_default_params;

struct dhcp_lease {
	uint32_t addr, mask, router, server; /* mask 0 if not given */
	uint32_t dns[DHCP_MAX_DNS];
	unsigned int ndns;
	uint32_t lease_s, t1_s, t2_s; /* t1/t2 after defaults and checks */
};

struct dhcp_client {
	enum dhcp_state state;
	uint8_t mac[ETH_ALEN];
	uint32_t rand;  /* xorshift32 state: xids and jitter */
	uint32_t xid;   /* of the exchange in progress */
	uint64_t start; /* when this exchange began (the secs field) */
	uint16_t secs;  /* of the last DISCOVER, repeated in its REQUEST */
	uint64_t timer; /* next deadline, 0 if none */
	uint32_t rto;   /* current retransmission timeout */
	uint32_t tries; /* sends of the current message */
	struct dhcp_lease offer;          /* REQUESTING: what we asked for */
	struct dhcp_lease lease;          /* BOUND, RENEWING, REBINDING */
	uint64_t t1_at, t2_at, expire_at; /* 0 for an infinite lease */
};

/* Lease events for the caller (bits of dhcp_out.events). */
enum {
	DHCP_EV_LOST = 1 << 0,    /* remove lease.addr first */
	DHCP_EV_BOUND = 1 << 1,   /* configure lease (addr, mask, router) */
	DHCP_EV_RENEWED = 1 << 2, /* same address, new times */
	DHCP_EV_NAK = 1 << 3,     /* the server refused us */
};

/* What an event asks the caller to do. */
struct dhcp_out {
	unsigned int events;
	size_t len;   /* bytes in buf to send from port 68 to port 67; 0 none */
	uint32_t src; /* IPv4 source: 0.0.0.0 or our address */
	uint32_t dst; /* IPv4 destination: broadcast or the server */
	int err;      /* -ENOSPC if buf was too small for a message */
};

/* seed: any value; mixed with the MAC so two clients differ. */
void dhcp_client_init(struct dhcp_client *c, const uint8_t mac[ETH_ALEN],
                      uint32_t seed);

/* (Re)starts acquisition from any state: SELECTING, DISCOVER in buf
 * (cap >= DHCP_BUILD_LEN).  A held lease is reported LOST. */
void dhcp_client_start(struct dhcp_client *c, const struct dhcp_params *p,
                       uint64_t now, uint8_t *buf, size_t cap,
                       struct dhcp_out *out);

/* A UDP payload received on port 68.  Returns why it was ignored
 * (parse reasons, DHCP_NOT_FOR_US, DHCP_BAD_XID, DHCP_UNEXPECTED,
 * DHCP_WRONG_SERVER) or NET_DROP_NONE when it was used. */
enum net_drop dhcp_client_input(struct dhcp_client *c,
                                const struct dhcp_params *p, uint64_t now,
                                const uint8_t *msg, size_t len, uint8_t *buf,
                                size_t cap, struct dhcp_out *out);

/* Runs the deadline if due (now >= c->timer). */
void dhcp_client_timer(struct dhcp_client *c, const struct dhcp_params *p,
                       uint64_t now, uint8_t *buf, size_t cap,
                       struct dhcp_out *out);

/* Stops: INIT, no timer; a held lease is reported LOST (no RELEASE is
 * sent: the caller may build one with dhcp_build_request()). */
void dhcp_client_stop(struct dhcp_client *c, struct dhcp_out *out);

const char *dhcp_state_name(enum dhcp_state s);

#endif /* NET_DHCP_FSM_H */
