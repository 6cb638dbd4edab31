/*
 * panic(), the fatal-report path, and frame-pointer backtraces.  Once a
 * panic starts, the console ignores its lock (another CPU may have died
 * holding it) and every other CPU is stopped before anything is printed.
 */
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/debug/ksyms.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/irq.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/layout.h>
#include <kernel/lib/string.h>
#include <kernel/debug/trace.h>
#include <stdarg.h>

#define DEBUG_EXIT_PORT 0xf4

volatile int panicking;
static volatile int panic_cpu = -1;
void (*panic_stop_others)(void);

void
machine_exit(int code)
{
	cli();
	outl(DEBUG_EXIT_PORT, (uint32_t)code);
	/* No isa-debug-exit device: there is nothing left but to halt. */
	for (;;)
		hlt();
}

void
panic_begin(void)
{
	int me = cpu_id();

	cli();
	if (__sync_val_compare_and_swap(&panic_cpu, -1, me) != -1 &&
	    panic_cpu != me) {
		for (;;)
			hlt();
	}
	panicking = 1;
	if (panic_stop_others != NULL)
		panic_stop_others();
}

uintptr_t
backtrace_walk(uintptr_t eip, uintptr_t ebp, int max,
               void (*fn)(uintptr_t eip, void *arg), void *arg)
{
	for (int depth = 0; depth < max; depth++) {
		uint32_t next_ebp, ret;

		fn(eip, arg);
		if (ebp == 0 || (ebp & 3) != 0)
			break;
		if (probe_read32((void *)ebp, &next_ebp) != 0 ||
		    probe_read32((void *)(ebp + 4), &ret) != 0)
			return ebp;
		if (ret == 0)
			break;
		/* Return address points after the call; -1 names the caller
		 * even when the call was the function's last instruction. */
		eip = ret - 1;
		ebp = next_ebp;
	}
	return 0;
}

void
backtrace_format_frame(uintptr_t eip, char *buf, size_t size)
{
	char sym[96];

	ksym_format(eip, sym, sizeof(sym));
	snprintf(buf, size, "    [<%08x>] %s", (unsigned)eip, sym);
}

static void
print_frame(uintptr_t eip, void *arg)
{
	char buf[120];

	(void)arg;
	backtrace_format_frame(eip, buf, sizeof(buf));
	kprintf("%s\n", buf);
}

void
backtrace_from(uintptr_t eip, uintptr_t ebp)
{
	uintptr_t bad = backtrace_walk(eip, ebp, 32, print_frame, NULL);

	if (bad != 0)
		kprintf("    (frame pointer %08x unreadable)\n", (unsigned)bad);
}

void
backtrace_scan_stack(uintptr_t esp, int words)
{
	char buf[96];
	struct sym_info si;

	for (int i = 0; i < words; i++) {
		uint32_t w;
		if (probe_read32((void *)(esp + 4 * i), &w) != 0)
			break;
		if (w < KERNEL_BASE || ksym_lookup(w - 1, &si) != 0)
			continue;
		ksym_format(w - 1, buf, sizeof(buf));
		kprintf("    ? [<%08x>] %s (stack +%d)\n", (unsigned)(w - 1),
		        buf, 4 * i);
	}
}

void
backtrace(void)
{
	backtrace_from((uintptr_t)__builtin_return_address(0) - 1,
	               *(uint32_t *)read_ebp());
}

void
panic(const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	kprintf("\nKERNEL PANIC: ");
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf("\n  cpu %d, thread %s\n", cpu_id(), thread_name(current));
	kprintf("  backtrace:\n");
	backtrace_from((uintptr_t)__builtin_return_address(0) - 1,
	               *(uint32_t *)read_ebp());
	trace_dump_panic(); /* the timeline that led here, if recorded */
	kprintf("KERNEL PANIC: end of report, exiting with code %d\n",
	        EXIT_PANIC_CODE);
	machine_exit(EXIT_PANIC_CODE);
}
