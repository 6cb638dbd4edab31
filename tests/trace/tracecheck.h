/*
 * Checking a Chrome/Perfetto JSON trace against the format's rules as
 * modref's timelines use them (docs/trace.md): every event has a known
 * phase, a pid and a timestamp; every async begin (b) has its end (e),
 * and no end comes without a begin; timestamps never go back on a track;
 * counters carry numbers.  With the kernel's own counts (the `trace:
 * count` lines of the dump), each counter track must end at that count.
 */
#ifndef TRACE_TRACECHECK_H
#define TRACE_TRACECHECK_H

#include <stddef.h>

#include "tests/trace/tracelog.h"

/* 0 if the JSON text passes, else -1 with the first problem in err.
 * counts may be NULL.  *nevents: events checked. */
int tracecheck(const char *text, const struct tracelog *counts, size_t *nevents,
               char *err, size_t errlen);

#endif
