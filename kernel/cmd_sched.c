/*
 * ps and cpus: what runs where.
 */
#include <kernel/shell.h>
#include <kernel/args.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/cpu.h>
#include <kernel/timer.h>
#include <kernel/errno.h>

static void
ps_line(struct thread *t, void *arg)
{
	(void)arg;
	kprintf("%4d %3d %-2s %10u %8u  %s\n", t->tid, t->cpu,
	        thread_state_name(t->state), (unsigned)t->nr_switches,
	        (unsigned)t->runtime_ms, t->name);
}

static int
cmd_ps(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "ps", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	kprintf(" TID CPU ST   SWITCHES   CPU(ms) NAME\n");
	for_each_thread(ps_line, NULL)
		;
	return 0;
}
COMMAND(ps, "ps", "list kernel threads (state R running/runnable, S sleeping)",
        cmd_ps);

static const char *
cpu_state_name(enum cpu_state s)
{
	switch (s) {
	case CPU_OFFLINE:
		return "offline";
	case CPU_BOOTING:
		return "booting";
	case CPU_ONLINE:
		return "online";
	case CPU_STOPPED:
		return "stopped";
	}
	return "?";
}

static int
cmd_cpus(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "cpus", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	kprintf(
	    "CPU APIC STATE    CURRENT          IRQS   SWITCHES     IPIS\n");
	for (int i = 0; i < MAX_CPUS; i++) {
		struct cpu *c = &cpus[i];
		if (c->state == CPU_OFFLINE)
			continue;
		kprintf("%3d %4d %-8s %-12s %8u %10u %8u\n", c->id, c->apic_id,
		        cpu_state_name(c->state), thread_name(c->curr),
		        (unsigned)c->nr_irqs, (unsigned)c->nr_switches,
		        (unsigned)c->nr_ipis);
	}
	return 0;
}
COMMAND(cpus, "cpus", "per-CPU state and counters", cmd_cpus);
