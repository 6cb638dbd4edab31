/*
 * ps and cpus: what runs where (the lines come from kernel/sched/thread_show.c,
 * which the hang dump shares).
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/errno.h>

struct ps_opts {
	bool wait;
};

static void
ps_line(struct thread *t, void *arg)
{
	const struct ps_opts *o = arg;
	char line[96], wait[256];

	thread_format(t, line, sizeof(line));
	if (!o->wait) {
		kprintf("%s\n", line);
		return;
	}
	thread_format_wait(t, wait, sizeof(wait));
	kprintf("%s  %s\n", line, wait);
}

static int
cmd_ps(int argc, char **argv)
{
	struct ps_opts o;
	struct args a;

	if (args_parse(&a, "ps", argc, argv, "w", 0, 0) < 0)
		return -EINVAL;
	o.wait = args_has(&a, 'w');
	kprintf(" TID CPU ST   SWITCHES   CPU(ms) NAME%s\n",
	        o.wait ? "  WAIT" : "");
	for_each_thread(ps_line, &o)
		;
	return 0;
}
COMMAND(ps, "ps [-w]",
        "list kernel threads (state R running/runnable, S sleeping); -w: "
        "what each one waits on and the ranked locks it holds",
        cmd_ps);

static int
cmd_cpus(int argc, char **argv)
{
	struct args a;
	char line[96];

	if (args_parse(&a, "cpus", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	kprintf("CPU APIC STATE    CURRENT          IRQS   SWITCHES     IPIS  "
	        "IDLE_MS\n");
	for (int i = 0; i < MAX_CPUS; i++) {
		struct cpu *c = &cpus[i];
		if (c->state == CPU_OFFLINE)
			continue;
		cpu_format(c, thread_name(c->curr), line, sizeof(line));
		kprintf("%s\n", line);
	}
	return 0;
}
COMMAND(cpus, "cpus", "per-CPU state and counters", cmd_cpus);
