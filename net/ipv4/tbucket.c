/*
 * Token bucket (see tbucket.h for the rules).
 */
#include "net/ipv4/tbucket.h"

bool
tbucket_allow(struct tbucket *b, const struct tbucket_params *p, uint64_t now)
{
	uint64_t cost = p->per_ms, full;

	if (p->rate == 0 || p->per_ms == 0)
		return true;
	full = (uint64_t)(p->burst != 0 ? p->burst : 1) * cost;
	if (!b->started) {
		b->started = true;
		b->credit = full;
		b->last = now;
	} else if (now > b->last) {
		uint64_t elapsed = now - b->last;

		/* This long fills any bucket (rate >= 1): no overflow. */
		b->credit =
		    elapsed >= full ? full : b->credit + elapsed * p->rate;
		if (b->credit > full)
			b->credit = full;
		b->last = now;
	}
	if (b->credit < cost)
		return false;
	b->credit -= cost;
	return true;
}
