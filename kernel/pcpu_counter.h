/*
 * A per-CPU counter: each CPU adds to its own slot, one cache line per
 * CPU (struct pcpu_slot), so CPUs counting at once never write the same
 * line.  Only the sum of the slots means anything; a slot alone may be
 * negative (taken on one CPU, dropped on another).
 *
 *   pcpu_counter_add       this CPU's slot += delta, interrupts off for
 *                          the read-modify-write, so stop_machine's IPI
 *                          cannot split it
 *   pcpu_counter_add_irqoff  the same, for a caller that already has
 *                          interrupts off (a test-and-add: modules test
 *                          LIVE and count in one interrupts-off stretch)
 *   pcpu_counter_sum       the slots added up without stopping anyone: a
 *                          snapshot that may be off by adds in flight
 *   pcpu_counter_sum_exact the sum with every other CPU stopped
 *                          (stop_machine): no add is half done, so the
 *                          value is exact at that instant.  Sleeps;
 *                          thread context, no spinlock held.
 *
 * Used by module references (modloader/refcount.c, modref=percpu) and
 * device references (net/dev_refcnt.c, devref=percpu).
 */
#ifndef KERNEL_PCPU_COUNTER_H
#define KERNEL_PCPU_COUNTER_H

#include <kernel/cpu.h>
#include <kernel/spinlock.h>

struct pcpu_counter {
	struct pcpu_slot cpu[MAX_CPUS];
};

static inline void
pcpu_counter_init(struct pcpu_counter *c)
{
	for (int i = 0; i < MAX_CPUS; i++)
		c->cpu[i].n = 0;
}

static inline void
pcpu_counter_add_irqoff(struct pcpu_counter *c, int delta)
{
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
	int sum = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		sum += __atomic_load_n(&c->cpu[i].n, __ATOMIC_RELAXED);
	return sum;
}

int pcpu_counter_sum_exact(struct pcpu_counter *c);

#endif
