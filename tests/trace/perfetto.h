/*
 * Writing a timeline (tracelog.h) in the two formats trace viewers open:
 * Chrome/Perfetto JSON trace events and ftrace text with atrace markers
 * (docs/trace.md has the mapping).
 */
#ifndef TRACE_PERFETTO_H
#define TRACE_PERFETTO_H

#include <stdio.h>

#include "tests/trace/tracelog.h"

void perfetto_write_json(const struct tracelog *t, FILE *out);
void perfetto_write_ftrace(const struct tracelog *t, FILE *out);

#endif
