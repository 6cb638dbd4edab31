/*
 * Ticket spinlocks with debugging (see spinlock.h).
 */
#include <kernel/locking/spinlock.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/x86.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/lockorder.h>

/* Spins before we call it a lockup.  Generous: under TCG one host core may
 * run eight virtual CPUs, so an owner can be descheduled for a long time. */
#define LOCKUP_SPINS (1u << 31)

void
spin_init(spinlock_t *l, const char *name)
{
	l->ticket = 0;
	l->owner_cpu = -1;
	l->name = name;
	l->owner_pc = 0;
	l->contended = 0;
	l->rank = 0;
}

void
spin_init_rank(spinlock_t *l, const char *name, int rank)
{
	spin_init(l, name);
	l->rank = rank;
}

/* Cold paths, out of line: the fast path below stays short. */
static void __attribute__((noinline, noreturn))
recursive(spinlock_t *l, struct cpu *c, uintptr_t pc)
{
	panic("spinlock %s: recursive acquire on cpu %d (held since "
	      "%p, again at %p)",
	      l->name, c->id, (void *)l->owner_pc, (void *)pc);
}

/* The lock was busy: check the order before waiting (a wrong order must
 * panic now, not deadlock), wait for our ticket, record it after. */
static void __attribute__((noinline))
lock_wait(spinlock_t *l, struct cpu *c, uint16_t ticket)
{
	uint32_t spins = 0;

	if (l->rank != 0)
		lockorder_check(l->name, l->rank);
	l->contended++;
	while ((uint16_t)READ_ONCE(l->ticket) != ticket) {
		cpu_relax();
		if (++spins == LOCKUP_SPINS)
			panic("spinlock %s: lockup on cpu %d, owner "
			      "cpu %d at %p",
			      l->name, c->id, l->owner_cpu,
			      (void *)l->owner_pc);
	}
	if (l->rank != 0)
		lockorder_push(l->name, l->rank);
}

/* Inlined into each way of taking a lock: a free lock costs the checks,
 * one locked add and, for a ranked lock, one call to record it. */
static inline __attribute__((always_inline)) void
lock_acquire(spinlock_t *l, uintptr_t pc)
{
	struct cpu *c = this_cpu();
	uint32_t t = 0x10000;

	if (l->owner_cpu == c->id)
		recursive(l, c, pc);
	__asm__ volatile("lock xaddl %0, %1"
	                 : "+r"(t), "+m"(l->ticket)
	                 :
	                 : "memory");
	if ((uint16_t)t != (uint16_t)(t >> 16))
		lock_wait(l, c, (uint16_t)(t >> 16));
	else if (l->rank != 0)
		lockorder_taken(l->name, l->rank);
	l->owner_cpu = c->id;
	l->owner_pc = pc;
	c->locks_held++;
}

/* The lock primitives are what the analysis takes on trust. */
void
spin_assert_held(spinlock_t *l)
{
	ASSERT(spin_held(l));
}

NO_LOCKCHECK void
spin_lock(spinlock_t *l)
{
	if (read_eflags() & EFLAGS_IF)
		panic("spinlock %s: spin_lock with interrupts enabled at %p",
		      l->name, __builtin_return_address(0));
	lock_acquire(l, (uintptr_t)__builtin_return_address(0));
}

static inline __attribute__((always_inline)) void
lock_release(spinlock_t *l)
{
	struct cpu *c = this_cpu();

	if (l->owner_cpu != c->id)
		panic("spinlock %s: released by cpu %d but owned by cpu %d",
		      l->name, c->id, l->owner_cpu);
	if (l->rank != 0)
		lockorder_pop(l->name, l->rank);
	l->owner_cpu = -1;
	c->locks_held--;
	/* The increment publishes every store made under the lock: x86
	 * keeps stores in order, and the locked add is a full barrier. */
	__asm__ volatile("lock incw %0"
	                 : "+m"(*(volatile uint16_t *)&l->ticket)
	                 :
	                 : "memory");
}

NO_LOCKCHECK void
spin_unlock(spinlock_t *l)
{
	lock_release(l);
}

NO_LOCKCHECK uint32_t
spin_lock_irqsave(spinlock_t *l)
{
	uint32_t f = local_irq_save();

	lock_acquire(l, (uintptr_t)__builtin_return_address(0));
	return f;
}

NO_LOCKCHECK void
spin_unlock_irqrestore(spinlock_t *l, uint32_t flags)
{
	lock_release(l);
	local_irq_restore(flags);
}

/*
 * One attempt, no waiting: for code that must not wait for a holder that
 * may never let go (the hang dump).  The caller has interrupts off, as
 * for spin_lock.  A lock this CPU already holds is busy, not a panic:
 * the dump may interrupt its own CPU's holder.
 */
NO_LOCKCHECK bool
spin_trylock(spinlock_t *l)
{
	struct cpu *c = this_cpu();
	uint32_t t = READ_ONCE(l->ticket);

	if (read_eflags() & EFLAGS_IF)
		panic("spinlock %s: spin_trylock with interrupts enabled at %p",
		      l->name, __builtin_return_address(0));
	if ((uint16_t)t != (uint16_t)(t >> 16) || l->owner_cpu == c->id)
		return false;
	/* Free when read: take the next ticket only if nobody else took
	 * one meanwhile, so a failed attempt leaves no ticket behind. */
	if (!__atomic_compare_exchange_n(&l->ticket, &t, t + 0x10000, false,
	                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	l->owner_cpu = c->id;
	l->owner_pc = (uintptr_t)__builtin_return_address(0);
	c->locks_held++;
	if (l->rank != 0)
		lockorder_push(l->name, l->rank);
	return true;
}

bool
spin_is_locked(const spinlock_t *l)
{
	uint32_t t = READ_ONCE(l->ticket);
	return (uint16_t)t != (uint16_t)(t >> 16);
}
