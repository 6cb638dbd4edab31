/*
 * What the firmware's ACPI MADT says about interrupt hardware: the local
 * APIC of every CPU, the I/O APIC, and how ISA IRQs map onto I/O APIC
 * inputs (QEMU wires the PIT's IRQ 0 to input 2, for example); and where
 * the FADT puts the PM timer, the clock's calibration reference.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stdint.h>
#include <kernel/arch/cpu.h>

struct isa_override {
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags: polarity bits 0-1, trigger 2-3 */
};

struct madt_info {
	int found;
	uint32_t lapic_phys;
	int ncpus;
	uint8_t apic_ids[MAX_CPUS];
	int cpus_ignored; /* enabled CPUs beyond MAX_CPUS */
	uint32_t ioapic_phys;
	uint32_t ioapic_gsi_base;
	struct isa_override isa[16];
};

extern struct madt_info madt;

/* Find and parse the MADT; 0, or -ENOENT with a reason printed. */
int acpi_init(void);
/* The ACPI PM timer (3.579545 MHz): its I/O port and counter width (24 or
 * 32 bits) from the FADT; 0, or -ENOENT if there is none.  Usable before
 * acpi_init(). */
int acpi_pm_timer(uint16_t *port, int *bits);

#endif
