/*
 * Interrupts.  Device lines (ISA IRQ 0-15, PCI INTx up to 23) arrive on
 * vectors IRQ_BASE+irq through whichever controller is active (8259 PIC at
 * boot, the I/O APIC once SMP is up); per-CPU sources (local APIC timer,
 * IPIs) have fixed vectors of their own.  Handlers run with interrupts off
 * on the interrupted CPU's stack and must not sleep; a line may be shared.
 */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include <stdint.h>
#include <stdbool.h>

struct trapframe {
	uint32_t edi, esi, ebp, esp_unused, ebx, edx, ecx, eax; /* pushal */
	uint32_t vector, err;
	uint32_t eip, cs, eflags; /* pushed by the CPU (no ring change) */
};

#define IRQ_BASE        32
#define NR_IRQS         24
#define VEC_LAPIC_TIMER 0xef
#define VEC_RESCHED     0xf0
#define VEC_CALL_FUNC   0xf1
#define VEC_STOP        0xf2
#define VEC_TLB         0xf3
#define VEC_RCU_QS      0xf4 /* synchronize_rcu_expedited */
#define VEC_SPURIOUS    0xff

typedef void (*irq_handler_fn)(void *arg);
typedef void (*vector_handler_fn)(struct trapframe *tf);

struct irq_chip {
	const char *name;
	void (*mask)(int irq);
	void (*unmask)(int irq);
	void (*eoi)(int irq);
	/* Route a line to a CPU; NULL if the chip cannot. */
	void (*set_affinity)(int irq, int cpu);
};

int irq_register(int irq, irq_handler_fn fn, void *arg, const char *name);
/* Returns once fn runs nowhere (it waits for other CPUs' running
 * handlers): never call it holding a lock that fn takes. */
void irq_unregister(int irq, irq_handler_fn fn, void *arg);
void irq_set_chip(const struct irq_chip *chip);
const struct irq_chip *irq_get_chip(void);
uint64_t irq_count(int irq);
const char *irq_name(int irq);
void vector_register(int vec, vector_handler_fn fn);
/* Deliver a device line to another CPU: 0, -ENOSYS (8259), -ENODEV. */
int irq_set_affinity(int irq, int cpu);

void trap_init(void);     /* build the IDT (once) */
void trap_load_idt(void); /* load it on this CPU */
void trap(struct trapframe *tf);

/* Read a word that may not be mapped: 0, or -EFAULT if it faulted. */
int probe_read32(const void *addr, uint32_t *out);
int probe_write32(void *addr, uint32_t val);

void pic_init(void);
extern const struct irq_chip pic_chip;

#endif
