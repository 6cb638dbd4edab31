/*
 * Per-CPU counters: the kill/settle switch and the stop_machine sum
 * (kernel/locking/pcpu_counter.h).  kill, settle and revive are called by the
 * counter's owner (the thread unloading the module or unregistering the
 * device), never concurrently with each other.
 */
#include <kernel/locking/pcpu_counter.h>
#include <kernel/module.h>
#include <kernel/locking/rcu.h>
#include <kernel/arch/smp.h>

void
pcpu_counter_kill(struct pcpu_counter *c)
{
	if (c->atomic_mode)
		return;
	c->kill_gp = rcu_gp_cookie();
	__atomic_store_n(&c->dead, 1, __ATOMIC_SEQ_CST);
}

void
pcpu_counter_settle(struct pcpu_counter *c)
{
	int moved = 0;

	if (!c->dead || c->settled)
		return;
	/* Every add that read dead == 0 ran with interrupts off, so it is
	 * over once a grace period has passed since the kill. */
	rcu_gp_wait(c->kill_gp);
	for (int i = 0; i < MAX_CPUS; i++) {
		moved += c->cpu[i].n;
		c->cpu[i].n = 0;
	}
	refcount_add_parts(&c->shared, moved);
	c->settled = true;
}

void
pcpu_counter_revive(struct pcpu_counter *c)
{
	if (c->atomic_mode)
		return;
	c->settled = false;
	__atomic_store_n(&c->dead, 0, __ATOMIC_SEQ_CST);
}

static int
sum_stopped(void *arg)
{
	return pcpu_counter_sum(arg);
}

int
pcpu_counter_sum_exact(struct pcpu_counter *c)
{
	return stop_machine(sum_stopped, c);
}
EXPORT_SYMBOL(pcpu_counter_kill);
EXPORT_SYMBOL(pcpu_counter_settle);
EXPORT_SYMBOL(pcpu_counter_revive);
