/*
 * Helpers for the stress_* suites (kernel/stress/stress_*.c).
 *
 * A stress case starts a crew of worker threads spread over every online
 * CPU, lets them hammer one primitive for a number of rounds scaled by
 * the stress_scale boot parameter/sysctl (1 for `make test`, more for
 * `make stress`), then checks exact counts and invariants.  Workers
 * share state through kt_shared_alloc(), so a case that gives up on a
 * stuck worker can still return safely; the crew's own completion count
 * is how the case knows every worker left.
 */
#ifndef KERNEL_KTEST_STRESS_UTIL_H
#define KERNEL_KTEST_STRESS_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/timer.h>

/* Multiplier for rounds (sysctl stress_scale, boot stress_scale=N). */
extern int stress_scale;

/* Rounds for a case: base * stress_scale. */
static inline int
stress_rounds(int base)
{
	return base * (stress_scale > 0 ? stress_scale : 1);
}

/* A worst-case bound for a whole case to finish its work (TCG, 8 vCPUs
 * on a shared 2-core host): generous, and scaled with the work. */
static inline unsigned
stress_bound_ms(unsigned base_ms)
{
	return base_ms * (unsigned)(stress_scale > 0 ? stress_scale : 1);
}

/* xorshift32: cheap per-thread pseudo-randomness (never 0). */
static inline uint32_t
stress_rand(uint32_t *s)
{
	uint32_t x = *s != 0 ? *s : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* Busy-wait (TSC, not the tick) until cond or ms pass; evaluates to the
 * last value.  For waiting on something that may run with interrupts
 * off on CPU 0, where it also stops the timer tick that msleep and
 * kt_poll depend on. */
#define stress_spin_until(cond, ms)                                            \
	({                                                                     \
		bool __ok;                                                     \
		for (unsigned __i = 0;                                         \
		     !(__ok = (cond)) && __i < (unsigned)(ms)*10; __i++)       \
			udelay(100);                                           \
		__ok;                                                          \
	})

struct stress_crew;
typedef void (*stress_fn)(struct stress_crew *crew, int idx);

/* Workers run fn(crew, idx) for idx 0..n-1; arg is the case's shared
 * state (owned by the case, which outlives the crew unless the crew is
 * abandoned: then the crew keeps its own reference to it). */
struct stress_crew {
	stress_fn fn;
	void *arg;
	int started; /* workers asked for (those that failed included) */
	volatile int running, finished, failed_to_start;
	struct completion all_done;
};

#define STRESS_MAX_WORKERS 64

/* Start n workers, spread round-robin over online CPUs (worker i on the
 * i-th online CPU modulo their number).  arg must come from
 * kt_shared_alloc: every worker holds a reference.  Returns NULL if
 * nothing could be allocated; crew->started says how many started. */
struct stress_crew *stress_crew_start(stress_fn fn, void *arg, int n);
/* Wait (bounded) for every worker to finish; true if all did.  The
 * crew is released either way. */
bool stress_crew_wait(struct stress_crew *crew, unsigned ms);
/* The same for a crew that counts its work in *progress: waits as long
 * as the count keeps moving, and gives up (false) only once it has stood
 * still for stall_ms.  A slow host makes the run long, not failed; a
 * hang (a lost wakeup, a deadlock) still fails it. */
bool stress_crew_wait_progress(struct stress_crew *crew,
                               const volatile int *progress, unsigned stall_ms);
/* Online CPU ids into ids[]; returns how many. */
int stress_online(int *ids);

#endif
