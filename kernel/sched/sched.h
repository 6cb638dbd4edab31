/*
 * Kernel threads and the scheduler.  Each CPU has its own run queue and
 * runs its threads round-robin with a 10 ms time slice; a thread stays on
 * the CPU it was created on (no migration), which keeps per-CPU data
 * stable for the thread and makes wakeups simple: a wakeup takes the
 * sleeper's run queue lock, so it cannot race with that CPU switching the
 * sleeper out.  Preemption happens on return from an interrupt when the
 * interrupted code held no spinlock and had interrupts on.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <kernel/lib/list.h>
#include <kernel/locking/lockorder.h>
#include <kernel/locking/spinlock.h>

enum thread_state { T_RUNNING, T_SLEEPING, T_DEAD };

/*
 * A sleeping thread's wait, as far as the scheduler knows it.  kind and
 * name come from the wait primitive that knows what the wait is for
 * (mutex_lock: "mutex" and the mutex's name, obj the mutex; drain_wait:
 * "drain", what drains and whose; a plain sleep: "sleep"); queue is the
 * wait queue the thread is on (prepare_to_wait .. finish_wait), deadline
 * the wakeup time of a timed sleep (schedule_until), 0 when none.  All
 * names are string constants or live as long as the wait does.
 */
struct thread_wait {
	const char *kind;
	const char *what;
	const char *name;
	const void *obj;
	const char *queue;
	uint64_t deadline;
};

/* Every thread, for ps and the hang dump (sched.c); named here for the
 * legend below. */
extern spinlock_t threads_lock;

/* The legend: which lock guards each field (GUARDED_BY ones checked by
 * make lint).  "rq": the run queue lock of the thread's CPU, cpus[cpu]
 * .rq.lock, which no annotation can name; "own": written by the thread
 * itself only, read by others as a snapshot; "immutable": set before
 * the thread first runs. */
struct thread {
	uint32_t esp;       /* rq: saved stack pointer while switched out */
	int tid;            /* immutable */
	char name[24];      /* immutable */
	volatile int state; /* rq (the thread sets T_SLEEPING) */
	bool interruptible; /* own: in an interruptible wait */
	bool on_rq;         /* rq */
	volatile bool sigpending;    /* atomic: Ctrl-C not yet consumed */
	struct out_capture *capture; /* own: printk.h, output kept */
	struct fault_ctx *fault;     /* own: fault.h, failures to inject */
	int cpu;                     /* immutable: threads do not move */
	struct list_head rq_link;    /* rq */
	struct list_head all_link GUARDED_BY(threads_lock);
	void *stack;          /* immutable: lowest address of the stack */
	void (*fn)(void *);   /* immutable */
	void *arg;            /* immutable */
	uint64_t nr_switches; /* rq */
	uint64_t created_ms;  /* immutable */
	uint64_t runtime_ms;  /* rq */
	unsigned slice_ms;    /* rq */
	/* What the thread sleeps on, for `ps -w` and the hang dump
	 * (kernel/debug/hangdump.h).  Written by the thread itself around its
	 * waits, read by others without a lock (a diagnostic: see
	 * hangdump.c for why that is safe enough). */
	struct thread_wait wait;
	/* A member of a controlled run (kernel/sched/schedctl.h): runs only
	 * while it holds the token; rq of the controlled CPU. */
	bool ctl;
	bool ctl_redecide; /* got the token by waking first */
	int ctl_id, ctl_prio;
	/* own: drain_waits that did not end at their first look: a caller
	 * that must never wait (rmmod -n) can tell that it did */
	unsigned drain_waits;
	/* own: ranked locks held, sorted by rank (kernel/locking/lockorder.h) */
	struct {
		const char *name;
		int rank;
	} held[LOCKORDER_DEPTH];
	int nheld;
};

#define STACK_MAGIC 0x57ac4bad

/* Make the calling boot context this CPU's idle thread. */
void sched_init_cpu_idle(struct thread *idle, const char *name);
/* cpu -1: pick one round-robin among online CPUs. */
struct thread *thread_create(const char *name, void (*fn)(void *), void *arg,
                             int cpu);
__attribute__((noreturn)) void thread_exit(void);
/* Run fn(arg) in a thread on that (online) CPU and wait for it, passing
 * Ctrl-C on: fn's result, -ENODEV (no such CPU) or -ENOMEM (no thread).
 * kernel/sched/thread_run.c. */
int thread_run_on(int cpu, const char *name, int (*fn)(void *), void *arg);
void schedule(void);
/* From interrupt return only: switch away without sleeping. */
void preempt_schedule_irq(void);
void thread_yield(void);
void wake_up_thread(struct thread *t);
/* Deliver an interrupt (Ctrl-C): set pending, wake an interruptible sleep. */
void thread_signal(struct thread *t);
void clear_signal(void);
void set_current_state(int state, bool interruptible);
/* Called from each CPU's tick with the milliseconds it stands for. */
void sched_tick(unsigned ms);
__attribute__((noreturn)) void idle_loop(void);
const char *thread_name(const struct thread *t);
const char *thread_state_name(int state);

/* Say what the calling thread is about to wait on (see struct
 * thread_wait) and pass what it returns to wait_note_end when the wait
 * is over.  An outer note wins: a mutex or drain that waits through a
 * wait queue or a sleep stays named as the mutex or drain. */
bool wait_note(const char *kind, const char *what, const char *name,
               const void *obj);
void wait_note_end(bool noted);

/* "  12   0 S          40       31  init" (ps's columns). */
void thread_format(const struct thread *t, char *buf, size_t size);
/* What t waits on and holds, for `ps -w` and the hang dump:
 * "wait=mutex:module_mutex owner=7:init queue=module_mutex.wq intr=0
 * sig=0 held=rtnl_mutex", "wait=sleep until=+850ms intr=1 sig=0
 * held=-"; a running thread: "wait=- sig=0 held=-", or inside a noted
 * wait (between two looks at its condition) "wait=drain:rmmod:netsim
 * sig=0 held=-".  Reads another
 * thread's fields without its locks (struct thread_wait), every pointer
 * through a fault-safe probe: call it with the thread list locked
 * (for_each_thread*), so t itself cannot be freed. */
void thread_format_wait(const struct thread *t, char *buf, size_t size);

void msleep(unsigned ms);
/* 0, or -EINTR if interrupted first. */
int msleep_interruptible(unsigned ms);

/* Visit every thread under the thread-list lock (fn must not sleep). */
void for_each_thread(void (*fn)(struct thread *t, void *arg), void *arg);
/* For the hang dump, which must not wait for a stuck CPU: take the
 * thread-list lock if it comes within spin_ms (interrupts off; false if
 * it stayed taken), visit threads under it, release it.  While it is
 * held no thread (nor its stack) can be freed. */
bool thread_list_trylock(unsigned spin_ms);
void thread_list_unlock(void);
void for_each_thread_locked(void (*fn)(struct thread *t, void *arg), void *arg);
int nr_threads(void);

/* Set by SMP: ask another CPU to reschedule (an idle CPU is halted). */
extern void (*smp_send_reschedule)(int cpu);

#endif
