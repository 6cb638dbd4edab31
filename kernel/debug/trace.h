/*
 * The reference timeline: a bounded in-kernel ring of lifetime events
 * (device and module reference gets and puts, insmod/rmmod phases,
 * unregister begin/wait/rollback/finish, "waiting for" reports, TIME_WAIT
 * timers), each with the CPU, the thread, the holder, its tag and the
 * call site, and the object's count after the event.  Written by the
 * `trace` command (kernel/debug/cmd_trace.c), `trace=on` at boot, and
 * dumped on the console at `trace dump`, at a panic and when a lifetime
 * stress run fails; build/host/modref-trace turns the dump into a
 * Perfetto/Chrome JSON trace or ftrace text (docs/trace.md).
 *
 * Off, an event costs one load and a branch (trace_on).  On, the ring is
 * a flight recorder: it keeps the last TRACE_EVENTS events and counts the
 * ones it overwrote.  Writers take no lock: a slot is claimed with one
 * atomic increment and marked written last, so a dump (taken with the
 * ring stopped, or in a panic with the other CPUs halted) skips a slot
 * whose writer had not finished.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_EVENTS 8192 /* a power of two */

enum trace_kind {
	TRACE_DEV_HOLD,  /* a device reference taken (delta +1) */
	TRACE_DEV_PUT,   /* one dropped (delta -1); recorded before the drop */
	TRACE_DEV_PHASE, /* alloc, register, unreg-begin, -wait, -abort, ... */
	TRACE_MOD_GET,
	TRACE_MOD_PUT,
	TRACE_MOD_PHASE,  /* load, live, rmmod, going, wait, exit, free, ... */
	TRACE_SOCK_PHASE, /* TIME_WAIT armed and expired */
	TRACE_NKINDS
};

extern volatile int trace_on;

void trace_record(enum trace_kind kind, const void *obj, const char *name,
                  const void *holder, const char *tag, uintptr_t site,
                  int delta, int count);

/* The hook every event site uses: nothing but the test when off.  The
 * arguments are evaluated only when on (a count may cost a sum). */
#define TRACE(kind, obj, name, holder, tag, site, delta, count)                \
	do {                                                                   \
		if (__builtin_expect(trace_on, 0))                             \
			trace_record(kind, obj, name, holder, tag, site,       \
			             delta, count);                            \
	} while (0)

/* Start recording (the ring emptied; existing devices and modules
 * recorded with their counts, so a timeline starts from real values). */
void trace_start(void);
/* Stop recording; returns when no writer is inside the ring. */
void trace_stop(void);
/* Print the ring (stopping it first): the `trace: begin` .. `trace: end`
 * block docs/trace.md describes. */
void trace_dump(void);
/* From panic(): print the ring if it holds anything, without waiting
 * for writers (the other CPUs are halted). */
void trace_dump_panic(void);
/* A subsystem's objects, for the timeline: fn(false) at start records
 * each with its count (a TRACE_*_PHASE "traced" event); fn(true) at a
 * dump prints a `trace: count` line for each. */
void trace_register_snapshot(void (*fn)(bool dump));
/* Events recorded since the last start, and how many were overwritten. */
void trace_stats(unsigned *events, unsigned *lost);

#endif
