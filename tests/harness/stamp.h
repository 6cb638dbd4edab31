/*
 * The stamp and elapsed directives (stamp.c): the guest's clock against
 * the host's between two console lines.
 */
#ifndef HARNESS_STAMP_H
#define HARNESS_STAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run;
struct directive;

struct stamp {
	bool taken;
	int64_t host_ms; /* CLOCK_MONOTONIC when the line was matched */
	double guest_s;  /* what the guest printed */
};

/*
 * 0 if the guest's time from a to b is within pct % of the host's, -1 if
 * not (or if no host time passed); msg says both times and the ratio.
 */
int stamp_compare(const struct stamp *a, const struct stamp *b, double pct,
                  char *msg, size_t msglen);

int run_stamp(struct run *R, const struct directive *d);
int run_elapsed(struct run *R, const struct directive *d);

#endif
