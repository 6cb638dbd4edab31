/*
 * Ticket spinlocks with debugging (see spinlock.h).
 */
#include <kernel/spinlock.h>
#include <kernel/cpu.h>
#include <kernel/x86.h>
#include <kernel/panic.h>
#include <kernel/lockorder.h>

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

uint32_t
local_irq_save(void)
{
	uint32_t f = read_eflags();
	cli();
	return f;
}

void
local_irq_restore(uint32_t flags)
{
	if (flags & EFLAGS_IF)
		sti();
}

static void
lock_acquire(spinlock_t *l, uintptr_t pc)
{
	struct cpu *c = this_cpu();
	uint32_t t = 0x10000, spins = 0;
	bool waited = false;

	if (l->owner_cpu == c->id)
		panic("spinlock %s: recursive acquire on cpu %d (held since "
		      "%p, again at %p)",
		      l->name, c->id, (void *)l->owner_pc, (void *)pc);
	__asm__ volatile("lock xaddl %0, %1"
	                 : "+r"(t), "+m"(l->ticket)
	                 :
	                 : "memory");
	if ((uint16_t)l->ticket != (uint16_t)(t >> 16)) {
		/* About to wait: a wrong order must panic now, not deadlock. */
		if (l->rank != 0)
			lockorder_check(l->name, l->rank);
		waited = true;
		l->contended++;
		while ((uint16_t)READ_ONCE(l->ticket) != (uint16_t)(t >> 16)) {
			cpu_relax();
			if (++spins == LOCKUP_SPINS)
				panic("spinlock %s: lockup on cpu %d, owner "
				      "cpu %d at %p",
				      l->name, c->id, l->owner_cpu,
				      (void *)l->owner_pc);
		}
	}
	l->owner_cpu = c->id;
	l->owner_pc = pc;
	c->locks_held++;
	if (l->rank == 0)
		return;
	if (waited)
		lockorder_push(l->name, l->rank);
	else
		lockorder_taken(l->name, l->rank);
}

void
spin_lock(spinlock_t *l)
{
	if (read_eflags() & EFLAGS_IF)
		panic("spinlock %s: spin_lock with interrupts enabled at %p",
		      l->name, __builtin_return_address(0));
	lock_acquire(l, (uintptr_t)__builtin_return_address(0));
}

void
spin_unlock(spinlock_t *l)
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

uint32_t
spin_lock_irqsave(spinlock_t *l)
{
	uint32_t f = local_irq_save();

	lock_acquire(l, (uintptr_t)__builtin_return_address(0));
	return f;
}

void
spin_unlock_irqrestore(spinlock_t *l, uint32_t flags)
{
	spin_unlock(l);
	local_irq_restore(flags);
}

/*
 * One attempt, no waiting: for code that must not wait for a holder that
 * may never let go (the hang dump).  The caller has interrupts off, as
 * for spin_lock.  A lock this CPU already holds is busy, not a panic:
 * the dump may interrupt its own CPU's holder.
 */
bool
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

bool
spin_held(const spinlock_t *l)
{
	return l->owner_cpu == this_cpu()->id;
}
