/*
 * The IDT and trap dispatch: CPU exceptions get a full report and a panic
 * (unless a probe or a registered fault hook claims them), device IRQs go
 * to their registered handlers, and the way back to the interrupted code
 * is where preemption happens.
 */
#include <kernel/debug/fault.h>
#include <kernel/arch/irq.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/smp.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/arch/layout.h>
#include <kernel/arch/x86.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/arch/trap.h>
#include <kernel/lib/errno.h>

struct idt_entry {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t zero;
	uint8_t type;
	uint16_t off_hi;
} __attribute__((packed));

static struct idt_entry idt[256];

#define MAX_SHARED 4
struct irq_action {
	irq_handler_fn fn;
	void *arg;
	const char *name;
	bool dying; /* unregistered, a running handler may still read arg */
};
static struct irq_action irq_actions[NR_IRQS][MAX_SHARED];
static uint64_t irq_counts[NR_IRQS];
/* Per CPU: the device line whose handlers it runs (irq + 1, 0 if none)
 * and a count that is odd while it runs them.  irq_unregister() uses
 * them to wait for handlers that started before the removal. */
static struct {
	volatile int line;
	volatile uint32_t seq;
} irq_running[MAX_CPUS];
static vector_handler_fn vector_handlers[256];
static const struct irq_chip *chip = &pic_chip;
static DEFINE_SPINLOCK(irq_lock);
#define MAX_FAULT_HOOKS 4
static fault_hook_fn fault_hooks[MAX_FAULT_HOOKS];

extern char vector_stubs[];
extern char probe_read32_insn[], probe_read32_fixup[];
extern char probe_write32_insn[], probe_write32_fixup[];

static const char *const exc_names[32] = {
    "Divide Error",
    "Debug",
    "NMI",
    "Breakpoint",
    "Overflow",
    "BOUND Range Exceeded",
    "Invalid Opcode",
    "Device Not Available",
    "Double Fault",
    "Coprocessor Segment Overrun",
    "Invalid TSS",
    "Segment Not Present",
    "Stack-Segment Fault",
    "General Protection",
    "Page Fault",
    "Reserved",
    "x87 FPU Error",
    "Alignment Check",
    "Machine Check",
    "SIMD Floating-Point",
    "Virtualization",
    "Control Protection",
};

void
trap_init(void)
{
	for (int i = 0; i < 256; i++) {
		uintptr_t a = (uintptr_t)vector_stubs + 16 * i;
		idt[i].off_lo = a & 0xffff;
		idt[i].off_hi = a >> 16;
		idt[i].sel = 0x08;
		idt[i].zero = 0;
		idt[i].type = 0x8e; /* present, ring 0, 32-bit interrupt gate */
	}
}

void
trap_load_idt(void)
{
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) d = {sizeof(idt) - 1, (uint32_t)idt};
	__asm__ volatile("lidt %0" : : "m"(d));
}

void
irq_set_chip(const struct irq_chip *c)
{
	chip = c;
}

const struct irq_chip *
irq_get_chip(void)
{
	return chip;
}

int
irq_register(int irq, irq_handler_fn fn, void *arg, const char *name)
{
	uint32_t f;
	int i, first = 1;

	if (fault_should_fail(FAULT_IRQ))
		return -ENOSPC;
	if (irq < 0 || irq >= NR_IRQS)
		return -1;
	f = spin_lock_irqsave(&irq_lock);
	for (i = 0; i < MAX_SHARED; i++)
		if (irq_actions[irq][i].fn != NULL)
			first = 0;
	for (i = 0; i < MAX_SHARED; i++) {
		struct irq_action *a = &irq_actions[irq][i];

		if (a->fn == NULL && !a->dying) {
			/* trap() on another CPU may look at this slot
			 * right now: fn goes in last, after its arg. */
			a->arg = arg;
			a->name = name;
			__atomic_store_n(&a->fn, fn, __ATOMIC_RELEASE);
			break;
		}
	}
	if (i < MAX_SHARED && first)
		chip->unmask(irq);
	spin_unlock_irqrestore(&irq_lock, f);
	return i < MAX_SHARED ? 0 : -1;
}

/* Wait until no other CPU runs handlers of irq that it started before
 * now.  A CPU whose count moved has left the handlers it was in. */
static void
irq_wait_handlers(int irq)
{
	for (int i = 0; i < MAX_CPUS; i++) {
		uint32_t seq =
		    __atomic_load_n(&irq_running[i].seq, __ATOMIC_SEQ_CST);

		if (i == cpu_id() || (seq & 1) == 0 ||
		    READ_ONCE(irq_running[i].line) != irq + 1)
			continue;
		while (READ_ONCE(irq_running[i].seq) == seq)
			cpu_relax();
	}
}

/*
 * Once this returns, fn is not running anywhere and will not be called
 * again, so the caller may free arg or unload fn's code.  The slot stays
 * reserved (dying) until then: a handler already running may still read
 * its arg, which a new registration must not overwrite meanwhile.
 */
void
irq_unregister(int irq, irq_handler_fn fn, void *arg)
{
	struct irq_action *gone = NULL;
	uint32_t f;
	int left = 0;

	if (irq < 0 || irq >= NR_IRQS)
		return;
	f = spin_lock_irqsave(&irq_lock);
	for (int i = 0; i < MAX_SHARED; i++) {
		struct irq_action *a = &irq_actions[irq][i];
		if (gone == NULL && a->fn == fn && a->arg == arg) {
			gone = a;
			a->dying = true;
			__atomic_store_n(&a->fn, NULL, __ATOMIC_RELEASE);
		} else if (a->fn != NULL) {
			left = 1;
		}
	}
	if (!left)
		chip->mask(irq);
	/* The unlock is a locked instruction: the cleared slot is visible
	 * to every CPU before we look at what they are running. */
	spin_unlock_irqrestore(&irq_lock, f);
	if (gone == NULL)
		return;
	irq_wait_handlers(irq);
	f = spin_lock_irqsave(&irq_lock);
	gone->dying = false;
	spin_unlock_irqrestore(&irq_lock, f);
}

uint64_t
irq_count(int irq)
{
	return irq >= 0 && irq < NR_IRQS ? irq_counts[irq] : 0;
}

const char *
irq_name(int irq)
{
	if (irq < 0 || irq >= NR_IRQS)
		return NULL;
	for (int i = 0; i < MAX_SHARED; i++)
		if (irq_actions[irq][i].fn != NULL)
			return irq_actions[irq][i].name;
	return NULL;
}

int
irq_set_affinity(int irq, int cpu)
{
	if (chip->set_affinity == NULL)
		return -ENOSYS;
	if (cpu < 0 || cpu >= MAX_CPUS || cpus[cpu].state != CPU_ONLINE)
		return -ENODEV;
	chip->set_affinity(irq, cpu);
	return 0;
}

void
vector_register(int vec, vector_handler_fn fn)
{
	vector_handlers[vec & 0xff] = fn;
}

void
trap_add_fault_hook(fault_hook_fn fn)
{
	for (int i = 0; i < MAX_FAULT_HOOKS; i++) {
		if (fault_hooks[i] == NULL) {
			fault_hooks[i] = fn;
			return;
		}
	}
	panic("trap: more than %d fault hooks", MAX_FAULT_HOOKS);
}

static void
dump_registers(const struct trapframe *tf)
{
	kprintf("  EIP=%08x EFLAGS=%08x CS=%04x\n", tf->eip, tf->eflags,
	        tf->cs);
	kprintf("  EAX=%08x EBX=%08x ECX=%08x EDX=%08x\n", tf->eax, tf->ebx,
	        tf->ecx, tf->edx);
	kprintf("  ESI=%08x EDI=%08x EBP=%08x ESP=%08x\n", tf->esi, tf->edi,
	        tf->ebp, (uint32_t)&tf->eflags + 4);
	kprintf("  CR0=%08x CR2=%08x CR3=%08x CR4=%08x\n", read_cr0(),
	        read_cr2(), read_cr3(), read_cr4());
}

/*
 * What a faulting address says about the bug, when it says something: a
 * small address is a NULL pointer plus a field offset; one near
 * 0x6b6b6b6b is a pointer loaded from a kfree'd object (kmalloc poisons
 * freed memory) plus an offset.  Offsets up to 64 KiB either way cover
 * struct fields and container_of().
 */
static void
explain_fault_addr(uint32_t cr2)
{
	const uint32_t poison = 0x01010101u * KMALLOC_POISON;
	const uint32_t near = 0x10000;

	if (cr2 < PAGE_SIZE)
		kprintf("  address %08x is NULL+0x%x: NULL pointer "
		        "dereference\n",
		        cr2, cr2);
	else if (cr2 - poison < near || poison - cr2 < near)
		kprintf("  address %08x is %08x%c0x%x: use of freed memory "
		        "(poison 0x%x), a pointer read from a kfree'd object\n",
		        cr2, poison, cr2 >= poison ? '+' : '-',
		        cr2 >= poison ? cr2 - poison : poison - cr2,
		        KMALLOC_POISON);
}

static void
exception(struct trapframe *tf)
{
	uint32_t cr2 = read_cr2();
	const char *name = tf->vector < 32 && exc_names[tf->vector] != NULL
	                       ? exc_names[tf->vector]
	                       : "Reserved";

	if (tf->vector == 14) {
		if (tf->eip == (uintptr_t)probe_read32_insn) {
			tf->eip = (uintptr_t)probe_read32_fixup;
			return;
		}
		if (tf->eip == (uintptr_t)probe_write32_insn) {
			tf->eip = (uintptr_t)probe_write32_fixup;
			return;
		}
	}
	panic_begin();
	kprintf("\nEXCEPTION: %s (vector %u) error code 0x%x on cpu %d, "
	        "thread %s\n",
	        name, tf->vector, tf->err, cpu_id(), thread_name(current));
	if (tf->vector == 14)
		kprintf("  page fault at CR2=%08x: %s, %s, %s\n", cr2,
		        tf->err & 1 ? "protection violation" : "not present",
		        tf->err & 2 ? "write" : "read",
		        tf->err & 16 ? "instruction fetch" : "data access");
	if (tf->vector == 14)
		explain_fault_addr(cr2);
	for (int i = 0; i < MAX_FAULT_HOOKS && fault_hooks[i] != NULL; i++)
		fault_hooks[i](tf, cr2);
	dump_registers(tf);
	kprintf("  backtrace:\n");
	backtrace_from(tf->eip, tf->ebp);
	kprintf("  return addresses near the top of the stack:\n");
	backtrace_scan_stack((uintptr_t)&tf->eflags + 4, 8);
	panic("unhandled %s in kernel mode (vector %u) at %p", name, tf->vector,
	      (void *)tf->eip);
}

void
trap(struct trapframe *tf)
{
	struct cpu *c = this_cpu();
	uint32_t v = tf->vector;

	cpu_idle_exit(); /* before any handler reads (kernel/arch/smp.h) */
	if (v < 32) {
		exception(tf);
		return;
	}
	c->irq_depth++;
	c->nr_irqs++;
	if (v >= IRQ_BASE && v < IRQ_BASE + NR_IRQS) {
		int irq = v - IRQ_BASE;
		irq_counts[irq]++;
		irq_running[c->id].line = irq + 1;
		/* A full barrier (xchg): irq_unregister() must see us
		 * running before we can read a slot it already cleared. */
		__atomic_add_fetch(&irq_running[c->id].seq, 1,
		                   __ATOMIC_SEQ_CST);
		for (int i = 0; i < MAX_SHARED; i++) {
			struct irq_action *a = &irq_actions[irq][i];
			irq_handler_fn fn =
			    __atomic_load_n(&a->fn, __ATOMIC_ACQUIRE);
			if (fn != NULL)
				fn(a->arg);
		}
		__atomic_add_fetch(&irq_running[c->id].seq, 1,
		                   __ATOMIC_SEQ_CST);
		irq_running[c->id].line = 0;
		chip->eoi(irq);
	} else if (vector_handlers[v] != NULL) {
		vector_handlers[v](tf);
	}
	c->irq_depth--;
	/* Preempt only code that ran with interrupts on and held nothing. */
	if (c->need_resched && c->irq_depth == 0 && c->preempt_off == 0 &&
	    c->locks_held == 0 && (tf->eflags & EFLAGS_IF))
		preempt_schedule_irq();
}

bool
in_interrupt(void)
{
	return this_cpu()->irq_depth > 0;
}
