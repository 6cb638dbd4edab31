/*
 * A per-CPU counter: each CPU adds to its own slot, one cache line per
 * CPU (struct pcpu_slot), so CPUs counting at once never write the same
 * line.  Only the sum means anything; a slot alone may be negative
 * (taken on one CPU, dropped on another).  Like Linux's percpu_ref, it
 * can be switched to one shared atomic when its owner starts waiting for
 * it to drain, which makes the sum exact without stopping any CPU:
 *
 *   pcpu_counter_add         this CPU's slot += delta (or the atomic,
 *                            once killed), interrupts off: an
 *                            interrupts-off stretch is a read-side
 *                            section for grace periods (kernel/locking/rcu.h)
 *   pcpu_counter_add_irqoff  the same, for a caller that already has
 *                            interrupts off (a test-and-add: modules
 *                            test LIVE and count in one stretch)
 *   pcpu_counter_sum         atomic + slots, without stopping anyone: a
 *                            snapshot, off by adds in flight - exact
 *                            once settled
 *   pcpu_counter_kill        adds go to the atomic from now on
 *   pcpu_counter_settle      after kill: wait for a grace period (none
 *                            if one has passed since the kill), so no
 *                            add can still be on its way to a slot, then
 *                            fold the slots into the atomic.  From then
 *                            on the sum is exact.  Sleeps.
 *   pcpu_counter_revive      undo kill (a rolled-back unload): per-CPU
 *                            adds again; the folded value stays
 *   pcpu_counter_sum_exact   the sum with every other CPU stopped
 *                            (stop_machine), for a counter still live
 *
 * Used by module references (modloader/refcount.c, modref=percpu) and
 * device references (net/core/dev_refcnt.c, devref=percpu).
 */
#ifndef KERNEL_PCPU_COUNTER_H
#define KERNEL_PCPU_COUNTER_H

#include <stdbool.h>
#include <kernel/arch/cpu.h>
#include <kernel/locking/spinlock.h>

struct pcpu_counter {
	struct pcpu_slot cpu[MAX_CPUS];
	volatile int atomic;   /* folded slots and adds after the kill */
	volatile int dead;     /* killed: adds go to atomic */
	bool settled;          /* the slots are folded (owner's flag) */
	unsigned long kill_gp; /* rcu_gp_cookie() at the kill */
};

static inline void
pcpu_counter_init(struct pcpu_counter *c)
{
	for (int i = 0; i < MAX_CPUS; i++)
		c->cpu[i].n = 0;
	c->atomic = 0;
	c->dead = 0;
	c->settled = false;
}

static inline void
pcpu_counter_add_irqoff(struct pcpu_counter *c, int delta)
{
	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
		__atomic_add_fetch(&c->atomic, delta, __ATOMIC_SEQ_CST);
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
	int sum = __atomic_load_n(&c->atomic, __ATOMIC_SEQ_CST);

	for (int i = 0; i < MAX_CPUS; i++)
		sum += __atomic_load_n(&c->cpu[i].n, __ATOMIC_RELAXED);
	return sum;
}

void pcpu_counter_kill(struct pcpu_counter *c);
void pcpu_counter_settle(struct pcpu_counter *c);
void pcpu_counter_revive(struct pcpu_counter *c);
int pcpu_counter_sum_exact(struct pcpu_counter *c);

#endif
