/*
 * kmain: bring the boot CPU from "paging just turned on" to a running
 * shell, in dependency order.  Each step may use only what came before.
 * The core is set up here by name; everything above it (the module
 * loader, buses, drivers, the network stack, boot-time tests) announces
 * itself with an initcall (kernel/initcall.h), run by the init thread.
 */
#include <kernel/arch/cpu.h>
#include <kernel/console/console.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/arch/irq.h>
#include <kernel/arch/multiboot.h>
#include <kernel/bootmod.h>
#include <kernel/bootparam.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/work.h>
#include <kernel/console/shell.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/rcu.h>
#include <kernel/initcall.h>
#include <kernel/arch/x86.h>

extern char _kernel_end[];
static struct thread idle0;

static void
memory_init(void)
{
	struct boot_info *bi = &boot_info;

	page_alloc_init(bi->ram_top);
	for (int i = 0; i < bi->nram; i++)
		page_range_free((uintptr_t)bi->ram[i].base,
		                (uintptr_t)(bi->ram[i].base + bi->ram[i].len));
	/* Low memory holds BIOS data and the AP trampoline: keep out. */
	page_range_reserve(0, 0x100000);
	page_range_reserve(0x100000, V2P(_kernel_end));
	for (int i = 0; i < bi->nimages; i++)
		page_range_reserve(bi->images[i].start, bi->images[i].end);
	paging_init(bi->ram_top);
	kmalloc_init();
	if (bi->ram_ignored != 0)
		pr_warn("memory: %u MiB above the %u MiB direct map ignored\n",
		        (unsigned)(bi->ram_ignored >> 20),
		        DIRECT_MAP_SIZE >> 20);
}

static void
init_thread(void *arg)
{
	(void)arg;
	/* Every subsystem, in initcall level order (kernel/initcall.h). */
	do_initcalls();
	shell_main(NULL);
}

void
kmain(uint32_t magic, uint32_t mbi_phys)
{
	cpu_init_segments(0);
	cpus[0].state = CPU_ONLINE;
	uart_init();
	trap_init();
	trap_load_idt();
	if (multiboot_parse(magic, mbi_phys) != 0)
		panic("cannot boot without a valid multiboot info block");
	bootparam_parse(boot_info.cmdline);
	pr_info("modref booting (loader: %s, cmdline: '%s')\n",
	        boot_info.loader[0] != '\0' ? boot_info.loader : "unknown",
	        boot_info.cmdline);
	memory_init();
	boot_modules_init();
	sched_init_cpu_idle(&idle0, "idle/0");
	pic_init();
	clock_init();
	pit_init();
	uart_enable_irq();
	pr_info("memory: %u KiB usable, %u KiB free, %d boot module(s)\n",
	        (unsigned)(pages_total() * 4), (unsigned)(pages_free() * 4),
	        boot_module_count());
	smp_init();
	workqueue_init();
	rcu_init();
	if (thread_create("init", init_thread, NULL, 0) == NULL)
		panic("cannot start the init thread");
	idle_loop();
}
