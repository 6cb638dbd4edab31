/*
 * SMP bring-up.  Placeholder until application processors are started:
 * the system runs on the boot CPU only.
 */
#include <kernel/smp.h>
#include <kernel/printk.h>
#include <kernel/cpu.h>

void
smp_init(void)
{
	pr_info("smp: %d cpu(s) online\n", nr_cpus);
}
