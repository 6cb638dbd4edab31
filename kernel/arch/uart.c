/*
 * 16550 UART on COM1: polled output, interrupt-driven input.  Register
 * offsets and bits from the PC16550D datasheet (National, 1995), sec. 8.
 */
#include <kernel/console/console.h>
#include <kernel/arch/irq.h>
#include <kernel/arch/x86.h>

#define COM1     0x3f8
#define COM1_IRQ 4

#define RBR 0 /* receive buffer (read, DLAB=0) */
#define THR 0 /* transmit holding (write, DLAB=0) */
#define IER 1 /* interrupt enable (DLAB=0) */
#define DLL 0 /* divisor latch low (DLAB=1) */
#define DLM 1 /* divisor latch high (DLAB=1) */
#define FCR 2 /* FIFO control (write) */
#define LCR 3 /* line control */
#define MCR 4 /* modem control */
#define LSR 5 /* line status */

#define IER_RDA          0x01 /* received data available */
#define LCR_8N1          0x03
#define LCR_DLAB         0x80
#define FCR_ENABLE_CLEAR 0x07 /* enable FIFOs, clear both */
#define MCR_DTR_RTS_OUT2 0x0b /* OUT2 gates the IRQ line on PCs */
#define LSR_DR           0x01
#define LSR_THRE         0x20

void
uart_init(void)
{
	outb(COM1 + IER, 0);
	outb(COM1 + LCR, LCR_DLAB);
	outb(COM1 + DLL, 1); /* 115200 baud */
	outb(COM1 + DLM, 0);
	outb(COM1 + LCR, LCR_8N1);
	outb(COM1 + FCR, FCR_ENABLE_CLEAR);
	outb(COM1 + MCR, MCR_DTR_RTS_OUT2);
}

void
uart_putc(char c)
{
	while ((inb(COM1 + LSR) & LSR_THRE) == 0)
		cpu_relax();
	outb(COM1 + THR, (uint8_t)c);
}

static void
uart_irq(void *arg)
{
	(void)arg;
	while (inb(COM1 + LSR) & LSR_DR)
		console_input(inb(COM1 + RBR));
}

void
uart_enable_irq(void)
{
	irq_register(COM1_IRQ, uart_irq, NULL, "uart");
	outb(COM1 + IER, IER_RDA);
}
