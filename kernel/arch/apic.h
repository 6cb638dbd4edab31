/*
 * Local APIC (one per CPU: timer, IPIs, end-of-interrupt) and I/O APIC
 * (device lines to any CPU).  Register layouts from the Intel SDM vol. 3A
 * ch. 11 and the 82093AA I/O APIC datasheet.
 */
#ifndef KERNEL_APIC_H
#define KERNEL_APIC_H

#include <stdint.h>
#include <stdbool.h>

#define SCHED_HZ 100 /* per-CPU scheduler tick from the local APIC timer */

void lapic_init(uint32_t phys); /* map it (boot CPU, once) */
void lapic_setup_cpu(void);     /* enable + timer on the calling CPU */
void lapic_calibrate(void);     /* boot CPU, against now_ms() */
int lapic_id(void);
void lapic_eoi(void);
/* Send vector to the CPU with this APIC id; nmi: deliver as NMI. */
void lapic_send_ipi(int apic_id, int vector, bool nmi);
void lapic_send_init(int apic_id);
void lapic_send_startup(int apic_id, uint32_t trampoline_phys);

int ioapic_init(void); /* takes over from the 8259s */
extern const struct irq_chip ioapic_chip;

#endif
