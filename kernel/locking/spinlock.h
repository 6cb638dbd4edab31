/*
 * Ticket spinlocks, fair under contention.  Every lock is taken with local
 * interrupts off (spin_lock_irqsave) so an IRQ handler on the same CPU can
 * never spin on a lock its own CPU holds; plain spin_lock() checks that
 * interrupts are already off.  Lock debugging is always on: taking a lock
 * this CPU already holds, releasing one it does not hold, or sleeping with
 * a lock held panics at once with the lock's name and the owner's call site.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/locking/lockcheck.h>
#include <kernel/locking/lockorder.h>
#include <kernel/arch/x86.h>

typedef struct CAPABILITY("spinlock") spinlock {
	volatile uint32_t ticket; /* high 16 bits: next, low 16: serving */
	volatile int owner_cpu;   /* -1 when free */
	const char *name;
	uintptr_t owner_pc;
	uint64_t contended; /* acquisitions that had to wait */
	int rank; /* lock order class (kernel/locking/lockorder.h), 0: none */
} spinlock_t;

#define SPINLOCK_INIT_RANK(n, r)                                               \
	{                                                                      \
		0, -1, n, 0, 0, r                                              \
	}
#define SPINLOCK_INIT(n)           SPINLOCK_INIT_RANK(n, 0)
#define DEFINE_SPINLOCK(v)         spinlock_t v = SPINLOCK_INIT(#v)
#define DEFINE_SPINLOCK_RANK(v, r) spinlock_t v = SPINLOCK_INIT_RANK(#v, r)

void spin_init(spinlock_t *l, const char *name);
/* spin_init with a lock order rank (kernel/locking/lockorder.h). */
void spin_init_rank(spinlock_t *l, const char *name, int rank);
void spin_lock(spinlock_t *l) ACQUIRE(l);
void spin_unlock(spinlock_t *l) RELEASE(l);
/* Take the lock only if it is free now (interrupts off); never waits. */
bool spin_trylock(spinlock_t *l) TRY_ACQUIRE(true, l);
uint32_t spin_lock_irqsave(spinlock_t *l) ACQUIRE(l);
void spin_unlock_irqrestore(spinlock_t *l, uint32_t flags) RELEASE(l);
bool spin_is_locked(const spinlock_t *l);
/* The calling CPU's id in one load: %gs is based at its struct cpu,
 * whose id kernel/arch/cpu.h keeps at offset 4 (and asserts so).  Here, as
 * cpu.h includes this file; cpu_id() is this. */
static inline int
this_cpu_id(void)
{
	return (int)gs_read32(4);
}

/* True if the calling CPU holds the lock (for assertions).  In line:
 * assertions of it sit on the packet path (docs/bench.md). */
static inline bool
spin_held(const spinlock_t *l)
{
	return l->owner_cpu == this_cpu_id();
}

/* Panics unless this CPU holds l; for the lock legends, the analysis
 * then knows it does (kernel/locking/lockcheck.h). */
void spin_assert_held(spinlock_t *l) ASSERT_CAPABILITY(l);

/* Interrupts off, returning the flags to give back; inline, as they
 * bracket every lock and every per-CPU cache access. */
static inline uint32_t
local_irq_save(void)
{
	uint32_t f = read_eflags();

	cli();
	return f;
}

static inline void
local_irq_restore(uint32_t flags)
{
	if (flags & EFLAGS_IF)
		sti();
}

#endif
