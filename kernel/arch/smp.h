/*
 * Multiprocessor support: bringing up application processors, IPIs, and
 * the primitives built on them.  With one CPU every call here is correct
 * and cheap.
 *
 * Rules: calls that wait for another CPU (smp_call_on_cpu with wait,
 * smp_call_all, stop_machine, and so unmap_page's TLB shootdown) must be
 * made with interrupts enabled and no spinlock held: two CPUs waiting for
 * each other with interrupts off would never answer.  This is checked.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>

void smp_init(void);
int nr_online_cpus(void);

/* Run fn(arg) on cpu in interrupt context (interrupts off).  With wait,
 * return after it ran.  -ENODEV if that CPU is not online. */
int smp_call_on_cpu(int cpu, void (*fn)(void *), void *arg, bool wait);
/* Run fn(arg) on every other online CPU and wait for all of them. */
void smp_call_all(void (*fn)(void *), void *arg);

/* Run fn(arg) on the calling CPU while every other online CPU spins with
 * interrupts off: nothing else in the system runs meanwhile.  Sleeps to
 * serialise callers; returns fn's result. */
int stop_machine(int (*fn)(void *), void *arg);
extern volatile int stop_machine_active;

/* The idle loop's halt: cpu_idle_enter() with interrupts off right
 * before sti;hlt, cpu_idle_exit() first thing in every trap and after
 * hlt.  While halted a CPU is quiescent for RCU and a TLB shootdown
 * leaves it a note (tlb_stale) instead of an IPI: waking a halted vCPU
 * costs the host's scheduler, and an idle rmmod paid that per page. */
void cpu_idle_enter(void);
void cpu_idle_exit(void);
/* Shootdowns that left a halted CPU a note instead of an IPI. */
extern volatile unsigned long tlb_idle_skips;

#endif
