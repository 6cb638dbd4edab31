/*
 * A token bucket, as pure logic (no clock, no lock: the caller passes
 * the time in and serialises calls).  Tokens accrue at `rate` per
 * `per_ms` milliseconds up to `burst`; each message takes one.  A fresh
 * (zeroed) bucket is full.
 *
 * ICMP uses two (net/ipv4/icmp.c): one per destination, rate 1 per
 * icmp_ratelimit_ms with a burst of 6 (Linux's icmp_ratelimit and
 * XRLIM_BURST_FACTOR), and one for the host, icmp_msgs_per_sec per
 * 1000 ms with a burst of icmp_msgs_burst (Linux's icmp_global_allow).
 *
 * Credit is kept in units of 1/per_ms token, so any rate is exact in
 * integers; idle time beyond what fills the bucket is not counted (no
 * overflow however long the bucket sleeps).
 */
#ifndef NET_TBUCKET_H
#define NET_TBUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct tbucket {
	uint64_t last;   /* time of the last refill */
	uint64_t credit; /* tokens * per_ms */
	bool started;    /* false: full on first use */
};

struct tbucket_params {
	uint32_t rate;   /* tokens per per_ms; 0: no limit */
	uint32_t per_ms; /* > 0 */
	uint32_t burst;  /* bucket size in tokens, >= 1 */
};

/* Take one token at time now: true if the message may go.  A clock
 * that goes back is treated as no time passing. */
bool tbucket_allow(struct tbucket *b, const struct tbucket_params *p,
                   uint64_t now);

#endif /* NET_TBUCKET_H */
