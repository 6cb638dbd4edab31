/*
 * Per-CPU state.  Each CPU's %gs segment starts at its struct cpu, so
 * this_cpu() is one load.  Threads never migrate between CPUs, so a
 * thread may cache this_cpu() for as long as it runs; fields that other
 * CPUs read are marked and read with READ_ONCE.
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stddef.h>
#include <stdint.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/list.h>

#define MAX_CPUS 8

/* A per-CPU counter slot, one cache line each, so that CPUs updating
 * their own slot never write the same line (the point of per-CPU
 * counters).  Arrays of these are indexed by cpu_id(); only the stride
 * matters, so nothing is asked of the allocator's alignment. */
#define CACHE_LINE 64
struct pcpu_slot {
	volatile int n;
	char pad[CACHE_LINE - sizeof(int)];
};

/* *p += v in one unlocked instruction, returning what *p was: whole
 * against an interrupt on this CPU, so enough for a slot no other CPU
 * writes (a thread never changes CPU), without the locked add that
 * TCG runs as a helper call. */
static inline int
cpu_local_fetch_add(volatile int *p, int v)
{
	__asm__ volatile("xaddl %0, %1" : "+r"(v), "+m"(*p));
	return v;
}

struct thread;

struct runqueue {
	spinlock_t lock;
	struct list_head queue; /* runnable threads, not the running one */
	unsigned nr_running;
};

enum cpu_state { CPU_OFFLINE, CPU_BOOTING, CPU_ONLINE, CPU_STOPPED };

struct cpu {
	struct cpu *self; /* must be first: this_cpu() reads %gs:0 */
	int id;
	int apic_id;
	volatile enum cpu_state state;
	struct thread *curr;
	struct thread *idle;
	struct thread *dead; /* exited thread whose stack we just left */
	struct runqueue rq;
	int irq_depth;   /* >0 while in an interrupt handler */
	int locks_held;  /* spinlocks held by this CPU */
	int preempt_off; /* >0: no preemption on IRQ return */
	volatile int need_resched;
	uint64_t nr_irqs;
	uint64_t nr_switches;
	uint64_t nr_ipis;
	/* TSC cycles spent halted in the idle loop (idle_since: when this
	 * halt began, 0 when not halted); only this CPU writes them. */
	uint64_t idle_tsc, idle_since;
	uint64_t qs_seq; /* quiescent states passed (RCU-like) */
	/* Odd while halted in the idle loop with no handler running: an
	 * extended quiescent state (kernel/locking/rcu.c).  The idle loop makes it
	 * odd before hlt; any interrupt or exception makes it even first. */
	volatile uint32_t idle_eqs;
	/* Set by a TLB shootdown that found this CPU halted in the idle
	 * loop and skipped its IPI: cpu_idle_exit flushes the whole TLB. */
	volatile uint32_t tlb_stale;
	uintptr_t fixup_eip; /* see probe.S: where a probed fault resumes */
	uint32_t lapic_ticks_per_ms;
};

/* this_cpu_id (kernel/locking/spinlock.h) reads id at %gs:4. */
_Static_assert(offsetof(struct cpu, id) == 4, "struct cpu: id at offset 4");

extern struct cpu cpus[MAX_CPUS];
extern int nr_cpus; /* CPUs present (discovered) */

static inline struct cpu *
this_cpu(void)
{
	return (struct cpu *)(uintptr_t)gs_read32(0);
}

static inline int
cpu_id(void)
{
	return this_cpu_id(); /* this_cpu()->id in one load */
}

static inline struct thread *
current_thread(void)
{
	return this_cpu()->curr;
}

#define current (current_thread())

static inline void
preempt_disable(void)
{
	this_cpu()->preempt_off++;
	__asm__ volatile("" ::: "memory");
}

static inline void
preempt_enable(void)
{
	__asm__ volatile("" ::: "memory");
	this_cpu()->preempt_off--;
}

const char *cpu_state_name(enum cpu_state s);
/* A `cpus` line (kernel/sched/thread_show.c): curr names its current thread. */
void cpu_format(const struct cpu *c, const char *curr, char *buf, size_t size);

/* Set up the GDT (with this CPU's %gs segment) on the calling CPU. */
void cpu_init_segments(int id);
bool in_interrupt(void);

#endif
