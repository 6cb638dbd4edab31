/*
 * Grace periods (RCU-like).  A reader brackets its lockless access with
 * rcu_read_lock/unlock (which only disable preemption: a reader never
 * sleeps).  synchronize_rcu() returns once every CPU has passed a
 * quiescent state - a context switch, the idle loop, or a timer tick that
 * interrupted code outside any reader - so every reader that could have
 * seen the old pointer is done.  call_rcu() defers a function until after
 * a grace period; rcu_barrier() waits for every deferred function queued
 * so far (a module calls it before its memory goes away).
 */
#ifndef KERNEL_RCU_H
#define KERNEL_RCU_H

#include <kernel/arch/cpu.h>
#include <kernel/lib/list.h>

struct rcu_head {
	struct list_head link;
	void (*fn)(struct rcu_head *h);
};

static inline void
rcu_read_lock(void)
{
	preempt_disable();
}

static inline void
rcu_read_unlock(void)
{
	preempt_enable();
}

/* For assertions: inside a read-side section (or anywhere else that
 * preemption is off, which holds a grace period back just as well). */
static inline bool
rcu_read_held(void)
{
	return this_cpu()->preempt_off != 0;
}

void synchronize_rcu(void);
/* The same grace period, asked for at once: every other CPU gets an
 * interrupt that counts as its quiescent state if it interrupted code
 * outside a reader (as a tick does), instead of waiting up to a tick
 * (10 ms) for each.  For waits a person is timing (rmmod, unregister). */
void synchronize_rcu_expedited(void);
/* Grace periods by number: a cookie taken now is passed once a grace
 * period that began after it has ended.  rcu_gp_wait waits for one
 * (expedited) unless that has happened already - so several waits
 * begun together share one grace period. */
unsigned long rcu_gp_cookie(void);
bool rcu_gp_passed(unsigned long cookie);
void rcu_gp_wait(unsigned long cookie);
void call_rcu(struct rcu_head *h, void (*fn)(struct rcu_head *h));
void rcu_barrier(void);
void rcu_init(void);
/* Debug switch for tests: when set, synchronize_rcu() returns at once
 * (so tests can show what goes wrong without the wait). */
extern int rcu_skip_grace;
/* Grace periods that found a CPU halted in the idle loop and counted it
 * quiescent without an IPI (a statistic; the rcu suite reads it). */
extern volatile unsigned long rcu_idle_skips;
/* Entering and leaving the idle extended quiescent state; called by
 * cpu_idle_enter/cpu_idle_exit (kernel/arch/smp.h). */
void rcu_idle_enter(void);
void rcu_idle_exit(void);

#endif
