/*
 * The hang dump: the guest's state in one block of grep-able lines, for
 * when something is stuck and nobody can type a command.
 *
 *   hangdump: begin (serial Ctrl-T, cpu 0, up 12.345 s)
 *   hangdump: cpu   0    0 online   init    812  1204   37 irq_depth=1 spinlocks=1 preempt_off=1 need_resched=0 runnable=0 rq_lock=free qs=1204 (dumping)
 *   hangdump: thread    3   0 S          40       31  init  wait=drain:rmmod:netsim queue=drain_wq until=+85ms intr=1 sig=0 held=-
 *   hangdump:     [<c0104a2e>] schedule_until+0x4e/0x80
 *   hangdump: module netsim: refcount 1 (percpu), state GOING
 *   hangdump: end (7 threads, 4 ms)
 *
 * Sections: every CPU (a `cpus` line and what it is doing), every thread
 * (a `ps -w` line: what it waits on - mutex and its owner, drain, grace
 * period and the CPU it waits for, wait queue, sleep and its deadline -
 * and the ranked locks the lock order checker sees it hold), each
 * switched-out thread's stack, then what subsystems add with
 * HANGDUMP_PART (the module list).
 *
 * Ctrl-T (HANGDUMP_BYTE, 0x14, BSD's "status" key) on the serial line
 * asks for it from the receive interrupt (console_input), so it comes
 * while the shell or any thread is stuck, as long as the CPU that takes
 * the serial interrupt has interrupts on; the `hangdump` command prints
 * the same.  The dump runs with interrupts off and never waits for a
 * lock a stuck thread could hold: it tries the thread list and console
 * locks for a bounded time and says "(busy ...)" or writes unlocked
 * when it cannot have them; everything else it reads without locks
 * (see hangdump.c for why that is safe enough for a diagnostic).
 */
#ifndef KERNEL_HANGDUMP_H
#define KERNEL_HANGDUMP_H

#include <stddef.h>

#define HANGDUMP_BYTE   0x14 /* Ctrl-T */
#define HANGDUMP_PREFIX "hangdump: "

/* A subsystem's section of the dump: fn prints with hangdump_printf,
 * runs with interrupts off inside an RCU read-side section, and must
 * take no lock it could wait for. */
struct hangdump_part {
	const char *name;
	void (*fn)(void);
};

#define HANGDUMP_PART(n, f)                                                    \
	static const struct hangdump_part __hangdump_##n                       \
	    __attribute__((section(".hangdump"), used, aligned(4))) = {#n, f}

/* Print the dump; why says who asked ("serial Ctrl-T", "command"). */
void hangdump(const char *why);

/* One line of the dump from a part: HANGDUMP_PREFIX, the text, '\n'. */
void hangdump_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Copy a string another CPU may free or unmap meanwhile, reading it
 * through fault-safe probes: "" for NULL, "?" if unreadable, cut at
 * size - 1.  Returns the length copied. */
size_t probe_strlcpy(char *dst, const char *src, size_t size);

#endif
