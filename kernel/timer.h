/*
 * Time and timers.  now_ms() is milliseconds since boot, advanced by the
 * boot CPU's 1 kHz tick.  A timer calls its function once, in interrupt
 * context on the boot CPU, at or after its expiry time; the function must
 * not sleep (it typically wakes a thread or queues work).  timer_del()
 * waits for a running callback to finish, so a timer may live on the
 * stack of the thread that deletes it.
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/list.h>

#define HZ 1000

struct timer {
	struct list_head link;
	uint64_t expires;
	void (*fn)(struct timer *t);
	void *data;
	bool pending;
};

uint64_t now_ms(void);
void timer_init(struct timer *t, void (*fn)(struct timer *), void *data);
/* Arm (or re-arm) for absolute time expires (ms since boot). */
void timer_add(struct timer *t, uint64_t expires);
/* Disarm; returns true if it was pending.  Waits for a running callback. */
bool timer_del(struct timer *t);
/* Called from the tick interrupt of the timekeeping CPU. */
void timer_tick(void);
/* Periodic tick source before the local APIC timers take over. */
void pit_init(void);
/* Busy-wait (for early boot and hardware delays only). */
void udelay(unsigned us);
extern uint64_t tsc_per_ms;

#endif
