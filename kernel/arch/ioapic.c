/*
 * The I/O APIC as the interrupt controller for device lines (82093AA
 * datasheet, sec. 3.2).  ISA lines follow the MADT's overrides; lines
 * 16-23 are PCI INTx, level triggered and active low.  Every line starts
 * routed to the boot CPU; irq_set_affinity moves one elsewhere.
 */
#include <kernel/arch/apic.h>
#include <kernel/arch/acpi.h>
#include <kernel/arch/irq.h>
#include <kernel/mm/paging.h>
#include <kernel/locking/spinlock.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>

#define IOREGSEL    0x00
#define IOWIN       0x10
#define IOAPICVER   0x01
#define IOREDTBL(n) (0x10 + 2 * (n))

#define RTE_MASKED     (1u << 16)
#define RTE_LEVEL      (1u << 15)
#define RTE_ACTIVE_LOW (1u << 13)

static volatile uint32_t *ioapic;
static DEFINE_SPINLOCK(ioapic_lock);
static int nr_inputs;
static uint32_t irq_dest[NR_IRQS]; /* APIC id each line goes to */

void pic_disable(void);

static uint32_t
io_read(uint32_t reg)
{
	ioapic[IOREGSEL / 4] = reg;
	return ioapic[IOWIN / 4];
}

static void
io_write(uint32_t reg, uint32_t v)
{
	ioapic[IOREGSEL / 4] = reg;
	ioapic[IOWIN / 4] = v;
}

/* The I/O APIC input a device line arrives on. */
static int
gsi_of(int irq)
{
	if (irq < 16)
		return (int)(madt.isa[irq].gsi - madt.ioapic_gsi_base);
	return irq - (int)madt.ioapic_gsi_base;
}

static uint32_t
rte_low(int irq, bool masked)
{
	uint32_t v = (uint32_t)(IRQ_BASE + irq);

	if (irq < 16) {
		uint16_t fl = madt.isa[irq].flags;
		if ((fl & 3) == 3)
			v |= RTE_ACTIVE_LOW;
		if (((fl >> 2) & 3) == 3)
			v |= RTE_LEVEL;
	} else {
		v |= RTE_LEVEL | RTE_ACTIVE_LOW;
	}
	return masked ? v | RTE_MASKED : v;
}

static void
program(int irq, bool masked)
{
	int in = gsi_of(irq);
	uint32_t f;

	if (in < 0 || in >= nr_inputs)
		return;
	f = spin_lock_irqsave(&ioapic_lock);
	io_write(IOREDTBL(in) + 1, irq_dest[irq] << 24);
	io_write(IOREDTBL(in), rte_low(irq, masked));
	spin_unlock_irqrestore(&ioapic_lock, f);
}

static void
ioapic_mask(int irq)
{
	program(irq, true);
}

static void
ioapic_unmask(int irq)
{
	program(irq, false);
}

static void
ioapic_eoi(int irq)
{
	(void)irq;
	lapic_eoi();
}

static void
ioapic_set_affinity(int irq, int cpu)
{
	int in = gsi_of(irq);
	uint32_t f;

	if (irq < 0 || irq >= NR_IRQS || in < 0 || in >= nr_inputs)
		return;
	f = spin_lock_irqsave(&ioapic_lock);
	irq_dest[irq] = (uint32_t)cpus[cpu].apic_id;
	io_write(IOREDTBL(in) + 1, irq_dest[irq] << 24);
	spin_unlock_irqrestore(&ioapic_lock, f);
}

const struct irq_chip ioapic_chip = {
    .name = "ioapic",
    .mask = ioapic_mask,
    .unmask = ioapic_unmask,
    .eoi = ioapic_eoi,
    .set_affinity = ioapic_set_affinity,
};

int
ioapic_init(void)
{
	if (madt.ioapic_phys == 0)
		return -ENODEV;
	ioapic = ioremap(madt.ioapic_phys, 4096);
	if (ioapic == NULL)
		return -ENOMEM;
	nr_inputs = (int)((io_read(IOAPICVER) >> 16) & 0xff) + 1;
	for (int in = 0; in < nr_inputs; in++)
		io_write(IOREDTBL(in), RTE_MASKED);
	for (int irq = 0; irq < NR_IRQS; irq++)
		irq_dest[irq] = (uint32_t)cpus[0].apic_id;
	/* Lines already in use move over with their handlers; the rest
	 * stay masked (ISA line 2 in particular: QEMU's PIT arrives on
	 * input 2 through an override, and must not be masked by it). */
	for (int irq = 0; irq < NR_IRQS; irq++)
		if (irq_name(irq) != NULL)
			program(irq, false);
	pic_disable();
	irq_set_chip(&ioapic_chip);
	return 0;
}
