/*
 * Console output and the line editor (see console.h).
 *
 * Input path: UART IRQ -> console_input() -> ring buffer -> the reading
 * thread, woken through a wait queue, edits and echoes.  Ctrl-C typed
 * while a foreground command runs bypasses the ring and interrupts that
 * command instead, and Ctrl-T prints the hang dump (hangdump.h) right
 * there, in the interrupt.  Bytes that arrive while the ring is full are dropped
 * and counted, never blocking the interrupt handler.
 */
#include <kernel/console/console.h>
#include <kernel/sched/clock.h>
#include <kernel/debug/hangdump.h>
#include <kernel/locking/spinlock.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

#define RING_SIZE 1024
#define CTRL_C    0x03
#define CTRL_U    0x15
#define BACKSPACE 0x08
#define DEL       0x7f

static DEFINE_SPINLOCK(console_out_lock);
static DEFINE_SPINLOCK(console_in_lock);
static uint8_t ring[RING_SIZE];
static unsigned ring_head, ring_tail; /* head: next write; tail: next read */
static struct thread *foreground;
static DEFINE_WAITQ(input_wq);

/* The last byte written was not a line end (the prompt, an echo). */
static volatile bool mid_line;

static void
write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
	if (n > 0)
		mid_line = s[n - 1] != '\n';
}

bool
console_mid_line(void)
{
	return mid_line;
}

void
console_write(const char *s, size_t n)
{
	uint32_t f;

	if (panicking) {
		write_raw(s, n);
		return;
	}
	f = spin_lock_irqsave(&console_out_lock);
	write_raw(s, n);
	spin_unlock_irqrestore(&console_out_lock, f);
}

/* The lock goes to the caller (the panic path) and comes back through
 * console_out_unlock: a hand-over the analysis cannot follow across a
 * lock that is private to this file. */
NO_LOCKCHECK bool
console_out_trylock(unsigned ms)
{
	uint64_t until = now_ms() + ms;

	while (!spin_trylock(&console_out_lock)) {
		if (now_ms() >= until)
			return false;
		cpu_relax();
	}
	return true;
}

NO_LOCKCHECK void
console_out_unlock(void)
{
	spin_unlock(&console_out_lock);
}

void
console_write_unlocked(const char *s, size_t n)
{
	write_raw(s, n);
}

void
console_input(uint8_t byte)
{
	/* Not queued and not under the input lock: the dump is for when
	 * the reader (or anything else) is stuck. */
	if (byte == HANGDUMP_BYTE) {
		hangdump("serial Ctrl-T");
		return;
	}
	spin_lock(&console_in_lock);
	if (byte == CTRL_C && foreground != NULL) {
		thread_signal(foreground);
	} else if (ring_head - ring_tail < RING_SIZE) {
		ring[ring_head++ % RING_SIZE] = byte;
	} /* else dropped: the ring is full */
	spin_unlock(&console_in_lock);
	wake_up(&input_wq);
}

/* Remove the first byte b still queued in the ring; true if found.
 * console_in_lock held. */
static bool
ring_take(uint8_t b)
{
	for (unsigned i = ring_tail; i != ring_head; i++) {
		if (ring[i % RING_SIZE] != b)
			continue;
		for (unsigned j = i; j + 1 != ring_head; j++)
			ring[j % RING_SIZE] = ring[(j + 1) % RING_SIZE];
		ring_head--;
		return true;
	}
	return false;
}

void
console_set_foreground(struct thread *t)
{
	uint32_t f = spin_lock_irqsave(&console_in_lock);

	foreground = t;
	/* A Ctrl-C typed right after Enter, before the command started,
	 * is waiting in the ring: it was meant for this command. */
	if (t != NULL && ring_take(CTRL_C))
		thread_signal(t);
	spin_unlock_irqrestore(&console_in_lock, f);
}

static bool
input_ready(void)
{
	return READ_ONCE(ring_head) != READ_ONCE(ring_tail);
}

static uint8_t
next_byte(void)
{
	uint32_t f;
	uint8_t b;

	wait_event(input_wq, input_ready());
	f = spin_lock_irqsave(&console_in_lock);
	b = ring[ring_tail++ % RING_SIZE];
	spin_unlock_irqrestore(&console_in_lock, f);
	return b;
}

static void
echo(const char *s)
{
	console_write(s, strlen(s));
}

void
console_readline(struct console_line *line)
{
	static bool last_was_cr;

	line->len = 0;
	line->too_long = false;
	line->bad_byte = -1;
	line->interrupted = false;
	for (;;) {
		uint8_t c = next_byte();
		bool was_cr = last_was_cr;

		last_was_cr = c == '\r';
		if (c == '\n' && was_cr)
			continue; /* CR LF is one line end */
		if (c == '\r' || c == '\n') {
			echo("\n");
			break;
		}
		if (c == CTRL_C) {
			echo("^C\n");
			line->interrupted = true;
			line->len = 0;
			break;
		}
		if (c == CTRL_U) {
			while (line->len > 0) {
				echo("\b \b");
				line->len--;
			}
			line->too_long = false;
			line->bad_byte = -1;
			continue;
		}
		if (c == DEL || c == BACKSPACE) {
			if (line->len > 0) {
				echo("\b \b");
				line->len--;
			}
			continue;
		}
		if (c < 0x20 || c > 0x7e) {
			if (line->bad_byte < 0)
				line->bad_byte = c;
			continue;
		}
		if (line->len + 1 >= CONSOLE_LINE_MAX) {
			line->too_long = true;
			continue;
		}
		line->text[line->len++] = (char)c;
		console_write((const char *)&c, 1);
	}
	line->text[line->len] = '\0';
}
