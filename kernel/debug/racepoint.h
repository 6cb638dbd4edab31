/*
 * Race points: named places in the lifetime code where a test can park
 * one thread, do a second lifetime operation, and let the first go on.
 * A race that needs two operations at once is then hit every time, not
 * by luck.
 *
 *   race_point("rmmod-exited")   in the code: a no-op (one load) unless
 *                                a test armed that name
 *   race_arm(name)               the next thread to reach it parks there
 *   race_wait_parked(ms)         the test waits until one has (true)
 *   race_release()               and lets it go on
 *
 * One point is armed at a time (race_arm fails with -EBUSY otherwise).
 * A parked thread that is never released goes on by itself after
 * RACE_PARK_MAX_MS and says so, so a broken test cannot hang the kernel.
 * race_point is placed only where the thread may sleep (no spinlock held,
 * interrupts on), race_point_spin where it holds no spinlock; each
 * asserts it.  The list of points is in
 * docs/testing.md.
 */
#ifndef KERNEL_RACEPOINT_H
#define KERNEL_RACEPOINT_H

#include <stdbool.h>
#include <kernel/sched/schedctl.h>

#define RACE_PARK_MAX_MS 30000

extern volatile int race_armed;

void __race_point(const char *name, bool may_sleep);

static inline void
race_point(const char *name)
{
	if (__atomic_load_n(&race_armed, __ATOMIC_ACQUIRE))
		__race_point(name, true);
	if (schedctl_active) /* a controlled run: a scheduling point */
		schedctl_point();
}

/* The same for a place that must not sleep but holds no spinlock: an RCU
 * read-side section.  The parked thread spins there, preemption as it
 * was, so a grace period waits for it as for any reader. */
static inline void
race_point_spin(const char *name)
{
	if (__atomic_load_n(&race_armed, __ATOMIC_ACQUIRE))
		__race_point(name, false);
}

int race_arm(const char *name);
bool race_wait_parked(unsigned ms);
void race_release(void);
/* Disarm (whether or not a thread parked) and release any parked one. */
void race_disarm(void);

#endif
