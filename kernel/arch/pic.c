/*
 * The legacy 8259A pair, used until the I/O APIC takes over.  Remapped to
 * IRQ_BASE so IRQs never collide with CPU exceptions (Intel 8259A
 * datasheet, ICW1-ICW4).
 */
#include <kernel/arch/irq.h>
#include <kernel/arch/x86.h>
#include <stddef.h>

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xa0
#define PIC2_DATA 0xa1
#define PIC_EOI   0x20

static uint16_t pic_mask = 0xffff & ~(1 << 2); /* cascade line stays open */

static void
pic_write_mask(void)
{
	outb(PIC1_DATA, (uint8_t)pic_mask);
	outb(PIC2_DATA, (uint8_t)(pic_mask >> 8));
}

void
pic_init(void)
{
	outb(PIC1_CMD, 0x11); /* ICW1: edge, cascade, ICW4 follows */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, IRQ_BASE); /* ICW2: vector base */
	outb(PIC2_DATA, IRQ_BASE + 8);
	outb(PIC1_DATA, 1 << 2); /* ICW3: slave on line 2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, 0x01); /* ICW4: 8086 mode */
	outb(PIC2_DATA, 0x01);
	pic_write_mask();
}

/* Leave the 8259s fully masked (once the I/O APIC delivers IRQs). */
void
pic_disable(void)
{
	pic_mask = 0xffff;
	pic_write_mask();
}

static void
pic_mask_irq(int irq)
{
	if (irq < 16) {
		pic_mask |= 1u << irq;
		pic_write_mask();
	}
}

static void
pic_unmask_irq(int irq)
{
	if (irq < 16) {
		pic_mask &= ~(1u << irq);
		pic_write_mask();
	}
}

static void
pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

const struct irq_chip pic_chip = {
    .name = "8259",
    .mask = pic_mask_irq,
    .unmask = pic_unmask_irq,
    .eoi = pic_eoi,
    .set_affinity = NULL,
};
