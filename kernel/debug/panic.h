/*
 * Fatal errors.  panic() stops every CPU, prints the fixed marker line
 * "KERNEL PANIC: <reason>" with a backtrace, and leaves QEMU through
 * isa-debug-exit with the panic code.  BUG_ON/ASSERT are for invariants
 * the kernel relies on; they are always compiled in.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stddef.h>
#include <stdint.h>

struct trapframe;

/* Values written to the isa-debug-exit port; QEMU exits with 2*v+1. */
#define EXIT_SUCCESS_CODE 0x10 /* QEMU status 33 */
#define EXIT_FAILURE_CODE 0x11 /* QEMU status 35 */
#define EXIT_PANIC_CODE   0x12 /* QEMU status 37 */

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt,
                                                           ...);
__attribute__((noreturn)) void machine_exit(int code);

/* Print "  [<addr>] sym+off/size" lines walking saved frame pointers. */
void backtrace_from(uintptr_t eip, uintptr_t ebp);
/* The walk itself: fn for each of at most max frames, reading the stack
 * through fault-safe probes.  0, or the frame pointer it could not read. */
uintptr_t backtrace_walk(uintptr_t eip, uintptr_t ebp, int max,
                         void (*fn)(uintptr_t eip, void *arg), void *arg);
/* One frame as backtrace_from prints it: "    [<addr>] sym+off/size". */
void backtrace_format_frame(uintptr_t eip, char *buf, size_t size);
void backtrace(void);
/* Print the words near the top of a stack that look like return
 * addresses (prefixed "?"): they name the caller of a frameless leaf
 * function, which the frame-pointer walk skips. */
void backtrace_scan_stack(uintptr_t esp, int words);

extern volatile int panicking;

#define BUG_ON(c)                                                              \
	do {                                                                   \
		if (c)                                                         \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #c);     \
	} while (0)
#define ASSERT(c) BUG_ON(!(c))

/* First step of a fatal report: claim the console, stop other CPUs.
 * A second CPU that panics meanwhile halts here quietly. */
void panic_begin(void);
/* Set by SMP bring-up: stop every other CPU (NMI-like IPI). */
extern void (*panic_stop_others)(void);

#endif
