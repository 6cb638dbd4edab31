/*
 * A reference counter with two modes, chosen when it is initialised (as
 * Linux's percpu_ref with or without PERCPU_REF_INIT_ATOMIC):
 *
 *   per-CPU  each CPU adds to its own slot, one cache line per CPU
 *            (struct pcpu_slot), so CPUs counting at once never write
 *            the same line.  Only the sum means anything; a slot alone
 *            may be negative (taken on one CPU, dropped on another).  It
 *            switches to the shared count when its owner starts waiting
 *            for it to drain (kill, then settle), which makes the sum
 *            exact without stopping any CPU.
 *   atomic   one shared count (a refcount_t, kernel/locking/refcount.h:
 *            saturation and puts one too many reported there); the slots
 *            are never used.  Its owner applies its own algorithm to it
 *            through pcpu_counter_shared() (a module's bias and
 *            compare-and-swap, a device's exact last put).
 *
 * Devices (devref=) and modules (modref=) embed one of these and choose
 * the mode per object; the calls:
 *   pcpu_counter_init        per-CPU mode, 0
 *   pcpu_counter_init_atomic atomic mode, starting at n
 *   pcpu_counter_is_atomic   the mode (fixed at init)
 *   pcpu_counter_shared      the shared count: the atomic mode's whole
 *                            count; in per-CPU mode the folded slots
 *                            and the adds after the kill
 *   pcpu_counter_add         this CPU's slot += delta (or the shared
 *                            count, once killed or in atomic mode),
 *                            interrupts off: an interrupts-off stretch
 *                            is a read-side section for grace periods
 *                            (kernel/locking/rcu.h)
 *   pcpu_counter_add_irqoff  the same, for a caller that already has
 *                            interrupts off (a test-and-add: modules
 *                            test LIVE and count in one stretch)
 *   pcpu_counter_sum         shared + slots, without stopping anyone: a
 *                            snapshot, off by adds in flight - exact
 *                            once settled, and always in atomic mode
 *   pcpu_counter_kill        adds go to the shared count from now on
 *   pcpu_counter_settle      after kill: wait for a grace period (none
 *                            if one has passed since the kill), so no
 *                            add can still be on its way to a slot, then
 *                            fold the slots into the shared count.  From
 *                            then on the sum is exact.  Sleeps.
 *   pcpu_counter_revive      undo kill (a rolled-back unload): per-CPU
 *                            adds again; the folded value stays
 *   pcpu_counter_sum_exact   the sum with every other CPU stopped
 *                            (stop_machine), for a counter still live
 * Kill, settle and revive do nothing to an atomic-mode counter.  Used by
 * module references (modloader/refcount.c) and device references
 * (net/core/dev_refcnt.c).
 */
#ifndef KERNEL_PCPU_COUNTER_H
#define KERNEL_PCPU_COUNTER_H

#include <stdbool.h>
#include <kernel/arch/cpu.h>
#include <kernel/locking/refcount.h>
#include <kernel/locking/spinlock.h>

/* The order is measured (docs/refcount-model.md): the mode and the shared
 * count before the slots; with the mode after them the per-CPU pair cost
 * 22% more under TCG. */
struct pcpu_counter {
	bool atomic_mode;  /* immutable after init */
	refcount_t shared; /* see pcpu_counter_shared */
	struct pcpu_slot cpu[MAX_CPUS];
	volatile int dead;     /* adds go to shared (atomic mode: always) */
	bool settled;          /* the slots are folded (owner's flag) */
	unsigned long kill_gp; /* rcu_gp_cookie() at the kill */
};

static inline void
pcpu_counter_init_mode(struct pcpu_counter *c, bool atomic_mode, int n)
{
	for (int i = 0; i < MAX_CPUS; i++)
		c->cpu[i].n = 0;
	refcount_set(&c->shared, n);
	c->atomic_mode = atomic_mode;
	c->dead = atomic_mode;
	c->settled = atomic_mode;
}

static inline void
pcpu_counter_init(struct pcpu_counter *c)
{
	pcpu_counter_init_mode(c, false, 0);
}

static inline void
pcpu_counter_init_atomic(struct pcpu_counter *c, int n)
{
	pcpu_counter_init_mode(c, true, n);
}

static inline bool
pcpu_counter_is_atomic(const struct pcpu_counter *c)
{
	return c->atomic_mode;
}

static inline refcount_t *
pcpu_counter_shared(struct pcpu_counter *c)
{
	return &c->shared;
}

static inline void
pcpu_counter_add_irqoff(struct pcpu_counter *c, int delta)
{
	/* killed and not yet settled, the shared part may be negative (a
	 * put of a reference its slot counted): no refcount checks here */
	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
		refcount_add_parts(&c->shared, delta);
	else
		c->cpu[cpu_id()].n += delta;
}

static inline void
pcpu_counter_add(struct pcpu_counter *c, int delta)
{
	uint32_t f = local_irq_save();

	pcpu_counter_add_irqoff(c, delta);
	local_irq_restore(f);
}

static inline int
pcpu_counter_sum(const struct pcpu_counter *c)
{
	int sum = refcount_read(&c->shared);

	if (c->atomic_mode)
		return sum;
	for (int i = 0; i < MAX_CPUS; i++)
		sum += __atomic_load_n(&c->cpu[i].n, __ATOMIC_RELAXED);
	return sum;
}

void pcpu_counter_kill(struct pcpu_counter *c);
void pcpu_counter_settle(struct pcpu_counter *c);
void pcpu_counter_revive(struct pcpu_counter *c);
int pcpu_counter_sum_exact(struct pcpu_counter *c);

#endif
