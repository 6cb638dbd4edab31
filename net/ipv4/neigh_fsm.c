/*
 * Neighbour entry state machine; the transition table and the policies
 * are in neigh_fsm.h.  Each event first runs expired timers (expire()),
 * so the outcome never depends on whether the caller's timer fired
 * before or after a packet arrived at the same instant.
 */
#include "net/ipv4/neigh_fsm.h"
#include "net/ipv4/proto_lib.h"

const struct neigh_params neigh_default_params = {
    .retrans_ms = 1000,
    .max_probes = 3,
    .reachable_ms = 30000,
    .stale_gc_ms = 60000,
    .failed_hold_ms = 5000,
    .queue_len = 3,
};

void
neigh_init(struct neigh_entry *e, uint32_t ip)
{
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->state = NEIGH_NONE;
}

const char *
neigh_state_name(enum neigh_state s)
{
	switch (s) {
	case NEIGH_NONE:
		return "NONE";
	case NEIGH_INCOMPLETE:
		return "INCOMPLETE";
	case NEIGH_REACHABLE:
		return "REACHABLE";
	case NEIGH_STALE:
		return "STALE";
	case NEIGH_FAILED:
		return "FAILED";
	}
	return "?";
}

/* A deadline ms from now; never 0, which means "no timer". */
static uint64_t
after(uint64_t now, uint32_t ms)
{
	return now + ms == 0 ? 1 : now + ms;
}

static void
drop_queued(struct neigh_entry *e, struct neigh_action *act, enum net_drop why)
{
	if (e->queued == 0)
		return;
	e->queued = 0;
	act->flags |= NEIGH_ACT_DROP_QUEUED;
	act->queued_reason = why;
}

/* Keep the output packet, making room by dropping the oldest. */
static void
queue(struct neigh_entry *e, const struct neigh_params *p,
      struct neigh_action *act)
{
	uint32_t max = p->queue_len != 0 ? p->queue_len : 1;

	if (e->queued >= max)
		act->flags |= NEIGH_ACT_DROP_OLDEST;
	else
		e->queued++;
	act->flags |= NEIGH_ACT_QUEUE;
}

static void
request(struct neigh_entry *e, struct neigh_action *act, bool unicast)
{
	e->probes++;
	act->flags |= NEIGH_ACT_SEND_REQUEST;
	act->unicast = unicast;
}

static void
enter(struct neigh_entry *e, enum neigh_state s, uint64_t timer)
{
	e->state = s;
	e->timer = timer;
	e->probes = 0;
}

static void
enter_failed(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
             struct neigh_action *act)
{
	drop_queued(e, act, NET_DROP_ARP_UNRESOLVED);
	enter(e, NEIGH_FAILED, after(now, p->failed_hold_ms));
}

static void
forget(struct neigh_entry *e, struct neigh_action *act)
{
	drop_queued(e, act, NET_DROP_ARP_UNRESOLVED);
	neigh_init(e, e->ip);
	act->flags |= NEIGH_ACT_REMOVE;
}

/* One expired deadline; returns false when nothing was due. */
static bool
expire_once(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
            struct neigh_action *act)
{
	uint64_t due = e->timer;

	if (due == 0 || now < due)
		return false;
	switch (e->state) {
	case NEIGH_INCOMPLETE:
		if (e->probes < p->max_probes) {
			request(e, act, false);
			e->timer = after(due, p->retrans_ms);
		} else {
			enter_failed(e, p, due, act);
		}
		break;
	case NEIGH_REACHABLE:
		enter(e, NEIGH_STALE, after(due, p->stale_gc_ms));
		break;
	case NEIGH_STALE:
		if (e->probes == 0) {
			forget(e, act);
		} else if (e->probes < p->max_probes) {
			request(e, act, true);
			e->timer = after(due, p->retrans_ms);
		} else {
			enter_failed(e, p, due, act);
		}
		break;
	case NEIGH_FAILED:
	case NEIGH_NONE:
		forget(e, act);
		break;
	}
	return true;
}

/*
 * Runs every deadline up to now in order, each from the time it was due,
 * so a caller that was late by several periods gets the same end state
 * as a punctual one (the requests it missed are coalesced into one).
 */
static void
expire(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
       struct neigh_action *act)
{
	while (expire_once(e, p, now, act))
		;
}

static void
start_action(struct neigh_action *act)
{
	act->flags = 0;
	act->unicast = false;
	act->queued_reason = NET_DROP_NONE;
}

void
neigh_timer(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
            struct neigh_action *act)
{
	start_action(act);
	expire(e, p, now, act);
}

void
neigh_output(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
             struct neigh_action *act)
{
	start_action(act);
	expire(e, p, now, act);
	switch (e->state) {
	case NEIGH_NONE:
		/* Reused at once if a timer just removed it. */
		act->flags &= ~(unsigned int)NEIGH_ACT_REMOVE;
		enter(e, NEIGH_INCOMPLETE, after(now, p->retrans_ms));
		request(e, act, false);
		queue(e, p, act);
		break;
	case NEIGH_INCOMPLETE:
		queue(e, p, act);
		break;
	case NEIGH_REACHABLE:
		act->flags |= NEIGH_ACT_XMIT;
		break;
	case NEIGH_STALE:
		act->flags |= NEIGH_ACT_XMIT;
		if (e->probes == 0) {
			request(e, act, true);
			e->timer = after(now, p->retrans_ms);
		}
		break;
	case NEIGH_FAILED:
		act->flags |= NEIGH_ACT_DROP;
		break;
	}
}

void
neigh_input(struct neigh_entry *e, const struct neigh_params *p, uint64_t now,
            const uint8_t mac[ETH_ALEN], bool solicited,
            struct neigh_action *act)
{
	bool same;

	start_action(act);
	expire(e, p, now, act);
	act->flags &= ~(unsigned int)NEIGH_ACT_REMOVE; /* it is in use again */
	same = memcmp(e->mac, mac, ETH_ALEN) == 0;
	if (solicited) {
		enter(e, NEIGH_REACHABLE, after(now, p->reachable_ms));
	} else if (e->state == NEIGH_REACHABLE && same) {
		return;
	} else if (e->state != NEIGH_STALE || !same) {
		enter(e, NEIGH_STALE, after(now, p->stale_gc_ms));
	}
	memcpy(e->mac, mac, ETH_ALEN);
	if (e->queued != 0) {
		e->queued = 0;
		act->flags |= NEIGH_ACT_SEND_QUEUED;
	}
}

void
neigh_ifdown(struct neigh_entry *e, struct neigh_action *act)
{
	start_action(act);
	forget(e, act);
}
