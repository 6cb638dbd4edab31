/*
 * stamp and elapsed: compare the guest's clock with the host's.  A stamp
 * is an expect that also notes two times: the host's (CLOCK_MONOTONIC,
 * when the harness saw the line) and the guest's (the regex's first group,
 * in seconds).  elapsed compares the guest's time between two stamps with
 * the host's.  The host time is taken as the line is read, so each end is
 * late by the serial path's latency (usually well under 10 ms, more on a
 * loaded machine): measure over several seconds so that stays far below
 * the tolerance.
 */
#include "tests/harness/run.h"
#include "tests/harness/stamp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int
stamp_compare(const struct stamp *a, const struct stamp *b, double pct,
              char *msg, size_t msglen)
{
	double host = (double)(b->host_ms - a->host_ms) / 1000.0;
	double guest = b->guest_s - a->guest_s;
	double ratio = host > 0 ? guest / host : 0, dev;

	if (host <= 0) {
		snprintf(msg, msglen, "no host time passed between the stamps");
		return -1;
	}
	dev = (ratio > 1 ? ratio - 1 : 1 - ratio) * 100;
	snprintf(msg, msglen,
	         "guest %.3f s, host %.3f s: ratio %.4f (allowed 1 +- %g%%)",
	         guest, host, ratio, pct);
	return dev <= pct ? 0 : -1;
}

int
run_stamp(struct run *R, const struct directive *d)
{
	struct stamp *st;
	const char *sub;
	char *end;
	double v;

	if (run_wait_match(R, d) < 0)
		return -1;
	if (R->stamps == NULL)
		R->stamps = xcalloc((size_t)R->s->nd, sizeof(*R->stamps));
	st = &R->stamps[d - R->s->d];
	st->host_ms = now_ms();
	sub = R->con.sub != NULL ? R->con.sub : "";
	errno = 0;
	v = strtod(sub, &end);
	if (end == sub || *end != '\0' || errno != 0 || !(v >= 0)) {
		run_fail(R,
		         "line %d: stamp %s: '%s' is not a number of seconds",
		         d->line, d->aux, sub);
		return -1;
	}
	st->guest_s = v;
	st->taken = true;
	console_note(&R->con, "stamp %s: guest %.6f s", d->aux, v);
	return 0;
}

int
run_elapsed(struct run *R, const struct directive *d)
{
	const struct stamp *a, *b;
	char msg[256];
	int rc;

	a = R->stamps != NULL ? &R->stamps[d->stamp[0]] : NULL;
	b = R->stamps != NULL ? &R->stamps[d->stamp[1]] : NULL;
	if (a == NULL || b == NULL || !a->taken || !b->taken) {
		/* The parser only lets elapsed follow both stamps, and a
		 * stamp that failed ended the run. */
		run_fail(R, "line %d: elapsed %s: a stamp was not taken",
		         d->line, d->text);
		return -1;
	}
	rc = stamp_compare(a, b, d->pct, msg, sizeof(msg));
	console_note(&R->con, "elapsed %s: %s", d->text, msg);
	if (rc < 0)
		run_fail(R, "line %d: elapsed %s: %s", d->line, d->text, msg);
	return rc;
}
