/*
 * Timers.  Time is the clock's (clock.h: now_ms() and friends, from the
 * TSC).  A timer calls its function once, in interrupt context on the
 * boot CPU, at the first 1 kHz tick at or after its expiry time by the
 * clock (a lost tick delays it to the next one, never longer); the
 * function must not sleep (it typically wakes a thread or queues work).
 * timer_del() waits for a running callback to finish, so a timer may live on
 * the stack of the thread that deletes it.
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/lib/list.h>
#include <kernel/sched/clock.h>

#define HZ 1000

struct timer {
	struct list_head link;
	uint64_t expires;
	void (*fn)(struct timer *t);
	void *data;
	bool pending;
};

void timer_init(struct timer *t, void (*fn)(struct timer *), void *data);
/* Arm (or re-arm) for absolute time expires (ms since boot). */
void timer_add(struct timer *t, uint64_t expires);
/* Disarm; returns true if it was pending.  Waits for a running callback. */
bool timer_del(struct timer *t);
/* Called from the tick interrupt of the timekeeping CPU. */
void timer_tick(void);
/* The 1 kHz PIT tick that fires timers (and schedules until the local
 * APIC timers take over). */
void pit_init(void);

#endif
