/*
 * The neighbour state machine: every row of the transition table in
 * neigh_fsm.h, the bounded queue, and timeouts (punctual and late).
 * Default parameters: retrans 1 s, 3 probes, reachable 30 s, stale gc
 * 60 s, failed hold 5 s, 3 queued packets.
 */
#include "net/ipv4/neigh_fsm.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

static const struct neigh_params *P = &neigh_default_params;
static const uint8_t other_mac[6] = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x99};

/* An entry for 10.0.2.2 resolved at time `at`. */
static void
resolved(struct neigh_entry *e, uint64_t at)
{
	struct neigh_action a;

	neigh_init(e, IP4(10, 0, 2, 2));
	neigh_output(e, P, at, &a);
	neigh_input(e, P, at, slirp_mac, true, &a);
}

static void
resolve_then_send(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 2));
	KT_EXPECT_EQ(t, e.state, NEIGH_NONE);
	neigh_output(&e, P, 100, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_INCOMPLETE);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST | NEIGH_ACT_QUEUE);
	KT_EXPECT(t, !a.unicast);
	KT_EXPECT_EQ(t, e.queued, 1);
	KT_EXPECT_EQ(t, e.timer, 1100);
	neigh_input(&e, P, 300, slirp_mac, true, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_REACHABLE);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_QUEUED);
	KT_EXPECT_EQ(t, e.queued, 0);
	KT_EXPECT(t, memcmp(e.mac, slirp_mac, 6) == 0);
	KT_EXPECT_EQ(t, e.timer, 30300);
	neigh_output(&e, P, 400, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_XMIT);
}

/* Up to queue_len (3) packets wait; the next drops the oldest (counted
 * as ARP_QUEUE_FULL) and resolution sends what is queued. */
static void
queue_keeps_newest(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_output(&e, P, 0, &a);
	KT_EXPECT_EQ(t, e.queued, 1);
	neigh_output(&e, P, 10, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_QUEUE);
	neigh_output(&e, P, 20, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_QUEUE);
	KT_EXPECT_EQ(t, e.queued, 3);
	neigh_output(&e, P, 30, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_OLDEST | NEIGH_ACT_QUEUE);
	drop_seen(NET_DROP_ARP_QUEUE_FULL); /* what DROP_OLDEST counts */
	KT_EXPECT_EQ(t, e.queued, 3);
	neigh_output(&e, P, 40, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_OLDEST | NEIGH_ACT_QUEUE);
	KT_EXPECT_EQ(t, e.queued, 3);
	KT_EXPECT_EQ(t, e.probes, 1); /* no extra request per packet */
	KT_EXPECT_EQ(t, e.timer, 1000);
	neigh_input(&e, P, 50, slirp_mac, true, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_QUEUED);
	KT_EXPECT_EQ(t, e.queued, 0);
}

/* A full queue is dropped whole when resolution fails, and on ifdown. */
static void
full_queue_dropped_on_failure(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 9));
	for (int i = 0; i < 5; i++)
		neigh_output(&e, P, (uint64_t)i, &a);
	KT_EXPECT_EQ(t, e.queued, 3);
	neigh_timer(&e, P, 1000, &a);
	neigh_timer(&e, P, 2000, &a);
	KT_EXPECT_EQ(t, e.queued, 3); /* retries keep the queue */
	neigh_timer(&e, P, 3000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_QUEUED);
	KT_EXPECT_DROP(t, a.queued_reason, NET_DROP_ARP_UNRESOLVED);
	KT_EXPECT_EQ(t, e.queued, 0);
	neigh_init(&e, IP4(10, 0, 2, 9));
	neigh_output(&e, P, 0, &a);
	neigh_output(&e, P, 1, &a);
	neigh_ifdown(&e, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_QUEUED | NEIGH_ACT_REMOVE);
	KT_EXPECT_EQ(t, e.queued, 0);
}

/* queue_len 1 is the old policy: each packet replaces the last. */
static void
queue_of_one(struct kt *t)
{
	struct neigh_params one = *P;
	struct neigh_entry e;
	struct neigh_action a;

	one.queue_len = 1;
	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_output(&e, &one, 0, &a);
	neigh_output(&e, &one, 10, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_OLDEST | NEIGH_ACT_QUEUE);
	KT_EXPECT_EQ(t, e.queued, 1);
}

/* 3 requests 1 s apart, then FAILED: the queued packet is dropped, new
 * output is refused for 5 s, then the entry is removed and a new
 * output starts over. */
static void
retransmit_then_fail(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 9));
	neigh_output(&e, P, 0, &a);
	neigh_timer(&e, P, 999, &a);
	KT_EXPECT_EQ(t, a.flags, 0);
	neigh_timer(&e, P, 1000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST);
	KT_EXPECT_EQ(t, e.probes, 2);
	neigh_timer(&e, P, 2000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST);
	KT_EXPECT_EQ(t, e.probes, 3);
	neigh_timer(&e, P, 3000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_QUEUED);
	KT_EXPECT_DROP(t, a.queued_reason, NET_DROP_ARP_UNRESOLVED);
	KT_EXPECT_EQ(t, e.timer, 8000);
	neigh_output(&e, P, 3500, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	neigh_timer(&e, P, 8000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_REMOVE);
	KT_EXPECT_EQ(t, e.state, NEIGH_NONE);
	KT_EXPECT_EQ(t, e.timer, 0);
	KT_EXPECT_EQ(t, e.ip, IP4(10, 0, 2, 9));
	neigh_output(&e, P, 9000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_INCOMPLETE);
}

/* Output on a FAILED entry whose hold ran out (timer not yet run):
 * the entry is reused at once, not removed. */
static void
failed_hold_expired_on_output(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 9));
	neigh_output(&e, P, 0, &a);
	neigh_timer(&e, P, 3000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	neigh_output(&e, P, 8000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_INCOMPLETE);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST | NEIGH_ACT_QUEUE);
}

/* A caller late by 10 s gets the punctual end state in one call. */
static void
late_timer_catches_up(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 9));
	neigh_output(&e, P, 0, &a);
	neigh_timer(&e, P, 10000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_NONE);
	KT_EXPECT(t, a.flags & NEIGH_ACT_DROP_QUEUED);
	KT_EXPECT(t, a.flags & NEIGH_ACT_REMOVE);
	KT_EXPECT_EQ(t, e.queued, 0);
}

/* An event at exactly the deadline sees the timer's outcome first. */
static void
event_at_deadline_runs_timer_first(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	resolved(&e, 0);
	neigh_output(&e, P, 30000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_XMIT | NEIGH_ACT_SEND_REQUEST);
}

/* REACHABLE for 30 s, then STALE; output probes by unicast and a reply
 * makes it REACHABLE again. */
static void
reachable_stale_probe(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	resolved(&e, 0);
	neigh_timer(&e, P, 30000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	KT_EXPECT_EQ(t, a.flags, 0);
	neigh_output(&e, P, 31000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_XMIT | NEIGH_ACT_SEND_REQUEST);
	KT_EXPECT(t, a.unicast);
	neigh_output(&e, P, 31100, &a); /* one probe round at a time */
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_XMIT);
	neigh_input(&e, P, 31200, slirp_mac, true, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_REACHABLE);
	KT_EXPECT_EQ(t, e.probes, 0);
	KT_EXPECT_EQ(t, e.timer, 61200);
}

/* Unanswered unicast probes: FAILED after 3. */
static void
stale_probes_fail(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	resolved(&e, 0);
	neigh_timer(&e, P, 30000, &a);
	neigh_output(&e, P, 40000, &a);
	neigh_timer(&e, P, 41000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST);
	KT_EXPECT(t, a.unicast);
	neigh_timer(&e, P, 42000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_REQUEST);
	neigh_timer(&e, P, 43000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	KT_EXPECT_EQ(t, a.flags, 0); /* nothing was queued */
	neigh_output(&e, P, 43001, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP);
}

/* A STALE entry nobody uses is removed after 60 s. */
static void
stale_unused_is_removed(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	resolved(&e, 0);
	neigh_timer(&e, P, 30000, &a);
	neigh_timer(&e, P, 89999, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	neigh_timer(&e, P, 90000, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_REMOVE);
	KT_EXPECT_EQ(t, e.state, NEIGH_NONE);
}

/* Unsolicited ARP (a request from the neighbour, a gratuitous ARP). */
static void
unsolicited_updates(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	/* Created from an incoming request: STALE, never REACHABLE. */
	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_input(&e, P, 0, slirp_mac, false, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	KT_EXPECT_EQ(t, a.flags, 0);
	/* REACHABLE, same MAC: nothing changes, not even the timer. */
	resolved(&e, 0);
	neigh_input(&e, P, 5000, slirp_mac, false, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_REACHABLE);
	KT_EXPECT_EQ(t, e.timer, 30000);
	/* A new MAC: taken, but only STALE until confirmed. */
	neigh_input(&e, P, 6000, other_mac, false, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	KT_EXPECT(t, memcmp(e.mac, other_mac, 6) == 0);
	/* INCOMPLETE: the queued packet goes out at once. */
	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_output(&e, P, 0, &a);
	neigh_input(&e, P, 10, slirp_mac, false, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_SEND_QUEUED);
	/* FAILED: unsolicited news revives it as STALE. */
	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_output(&e, P, 0, &a);
	neigh_timer(&e, P, 3000, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_FAILED);
	neigh_input(&e, P, 3100, slirp_mac, false, &a);
	KT_EXPECT_EQ(t, e.state, NEIGH_STALE);
}

/* NETDEV_DOWN/UNREGISTER: the queued packet is dropped, entry removed. */
static void
ifdown_drops_queue(struct kt *t)
{
	struct neigh_entry e;
	struct neigh_action a;

	neigh_init(&e, IP4(10, 0, 2, 2));
	neigh_output(&e, P, 0, &a);
	neigh_ifdown(&e, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_DROP_QUEUED | NEIGH_ACT_REMOVE);
	KT_EXPECT_EQ(t, e.state, NEIGH_NONE);
	KT_EXPECT_EQ(t, e.queued, 0);
	KT_EXPECT_EQ(t, e.timer, 0);
	resolved(&e, 0);
	neigh_ifdown(&e, &a);
	KT_EXPECT_EQ(t, a.flags, NEIGH_ACT_REMOVE);
}

/* neigh_output_only_xmits says yes exactly when neigh_output, run on a
 * copy, gives only XMIT and leaves the entry as it was: every state, at
 * every time around each deadline (the neighbour cache's lockless
 * output path trusts it instead of the event). */
static void
only_xmits_matches_output(struct kt *t)
{
	struct neigh_entry start[6];
	struct neigh_action a;
	unsigned yes = 0;

	neigh_init(&start[0], IP4(10, 0, 2, 2)); /* NONE */
	start[1] = start[0];
	neigh_output(&start[1], P, 0, &a); /* INCOMPLETE, timer 1000 */
	resolved(&start[2], 0);            /* REACHABLE, timer 30000 */
	resolved(&start[3], 0);
	neigh_timer(&start[3], P, 30000, &a); /* STALE, timer 90000 */
	start[4] = start[3];
	neigh_output(&start[4], P, 30000, &a); /* STALE probing */
	start[5] = start[1];
	neigh_timer(&start[5], P, 3000, &a); /* FAILED after 3 probes */
	for (size_t i = 0; i < 6; i++) {
		uint64_t times[] = {0,
		                    1,
		                    start[i].timer > 0 ? start[i].timer - 1 : 0,
		                    start[i].timer,
		                    start[i].timer + 1,
		                    start[i].timer + 100000};
		for (size_t j = 0; j < sizeof(times) / sizeof(times[0]); j++) {
			struct neigh_entry e = start[i];
			bool fast = neigh_output_only_xmits(&e, times[j]);

			neigh_output(&e, P, times[j], &a);
			KT_EXPECT_EQ(t, fast,
			             a.flags == NEIGH_ACT_XMIT &&
			                 memcmp(&e, &start[i], sizeof(e)) == 0);
			yes += fast;
		}
	}
	KT_EXPECT_EQ(t, start[2].state, NEIGH_REACHABLE);
	KT_EXPECT_EQ(t, start[5].state, NEIGH_FAILED);
	/* REACHABLE and STALE probing, each at 0, 1 and timer - 1 */
	KT_EXPECT_EQ(t, yes, 6);
}

static void
state_names(struct kt *t)
{
	KT_EXPECT_STREQ(t, neigh_state_name(NEIGH_INCOMPLETE), "INCOMPLETE");
	KT_EXPECT_STREQ(t, neigh_state_name(NEIGH_FAILED), "FAILED");
	KT_EXPECT_STREQ(t, neigh_state_name((enum neigh_state)42), "?");
}

static const struct kt_case cases[] = {
    KT_CASE(resolve_then_send),
    KT_CASE(queue_keeps_newest),
    KT_CASE(full_queue_dropped_on_failure),
    KT_CASE(queue_of_one),
    KT_CASE(retransmit_then_fail),
    KT_CASE(failed_hold_expired_on_output),
    KT_CASE(late_timer_catches_up),
    KT_CASE(event_at_deadline_runs_timer_first),
    KT_CASE(reachable_stale_probe),
    KT_CASE(stale_probes_fail),
    KT_CASE(stale_unused_is_removed),
    KT_CASE(unsolicited_updates),
    KT_CASE(ifdown_drops_queue),
    KT_CASE(only_xmits_matches_output),
    KT_CASE(state_names),
    KT_END,
};
const struct kt_suite neigh_suite = {"neigh_fsm", cases};
