/*
 * The exact sum of a per-CPU counter (kernel/pcpu_counter.h).
 */
#include <kernel/pcpu_counter.h>
#include <kernel/smp.h>

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
