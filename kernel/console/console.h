/*
 * The serial console: output for printk/kprintf, and line input for the
 * shell.  Input bytes arrive from the UART interrupt; the line editor runs
 * in the reading thread.  While a command runs in the foreground, Ctrl-C
 * is not queued as input but delivered to that thread as an interrupt
 * (see thread_signal), so any interruptible wait in the command ends with
 * -EINTR.  Ctrl-T is never queued either: it prints the hang dump
 * (kernel/debug/hangdump.h) from the interrupt.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;

#define CONSOLE_LINE_MAX 256 /* including the terminating NUL */

struct console_line {
	char text[CONSOLE_LINE_MAX];
	size_t len;
	bool too_long;    /* more than CONSOLE_LINE_MAX-1 characters typed */
	int bad_byte;     /* first non-printable byte seen, or -1 */
	bool interrupted; /* Ctrl-C typed: the line was discarded */
};

void console_write(const char *s, size_t n);
/* For the hang dump, which must not wait for a CPU that may be stuck:
 * take the output lock if it comes within ms (interrupts off), write
 * with console_write_unlocked (under the lock, or without it when it
 * did not come), release with console_out_unlock if it was taken. */
bool console_out_trylock(unsigned ms);
void console_out_unlock(void);
void console_write_unlocked(const char *s, size_t n);
/* The console's last line is unfinished (a prompt, an echo): output
 * that must start a line of its own writes "\n" first. */
bool console_mid_line(void);
/* Called by the UART driver with interrupts off. */
void console_input(uint8_t byte);
/* Block until a full line is typed; echoes and edits as it goes. */
void console_readline(struct console_line *line);
/* The thread that receives Ctrl-C while a command runs (NULL: none).  A
 * Ctrl-C already typed ahead (after Enter, before the command started)
 * is delivered to the new foreground thread at once. */
void console_set_foreground(struct thread *t);

void uart_init(void);
void uart_putc(char c);
void uart_enable_irq(void);

#endif
