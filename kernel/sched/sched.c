/*
 * Threads and per-CPU round-robin scheduling (see sched.h for the model).
 *
 * Locking: a CPU's run queue lock protects its queue and the state of the
 * threads that belong to it.  schedule() holds the lock across the switch;
 * the next thread releases it (finish_switch), so no wakeup can observe a
 * thread that is half switched out.  Lock order: waitq lock, then run
 * queue lock; the thread list lock nests inside neither.
 */
#include <kernel/debug/fault.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/schedctl.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/smp.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/layout.h>

#define TIMESLICE_MS 10

void context_switch(uint32_t *save_esp, uint32_t new_esp);
void (*smp_send_reschedule)(int cpu);

DEFINE_SPINLOCK(threads_lock);
static LIST_HEAD(all_threads);
static int next_tid = 1;
static int threads_count;
static unsigned next_cpu;

const char *
thread_name(const struct thread *t)
{
	return t != NULL ? t->name : "(none)";
}

const char *
thread_state_name(int s)
{
	switch (s) {
	case T_RUNNING:
		return "R";
	case T_SLEEPING:
		return "S";
	case T_DEAD:
		return "X";
	}
	return "?";
}

static void
thread_list_add(struct thread *t)
{
	uint32_t f = spin_lock_irqsave(&threads_lock);
	t->tid = next_tid++;
	list_add_tail(&t->all_link, &all_threads);
	threads_count++;
	spin_unlock_irqrestore(&threads_lock, f);
}

void for_each_thread(void (*fn)(struct thread *t, void *arg), void *arg)
{
	struct thread *t;
	uint32_t f = spin_lock_irqsave(&threads_lock);

	list_for_each_entry(t, &all_threads, all_link)
		fn(t, arg);
	spin_unlock_irqrestore(&threads_lock, f);
}

/* The list lock goes to the caller (the hang dump) and back through
 * thread_list_unlock: a hand-over across a file-private lock, which the
 * analysis cannot follow. */
NO_LOCKCHECK bool
thread_list_trylock(unsigned spin_ms)
{
	uint64_t until = now_ms() + spin_ms;

	while (!spin_trylock(&threads_lock)) {
		if (now_ms() >= until)
			return false;
		cpu_relax();
	}
	return true;
}

NO_LOCKCHECK void
thread_list_unlock(void)
{
	spin_unlock(&threads_lock);
}

void
for_each_thread_locked(void (*fn)(struct thread *t, void *arg), void *arg)
{
	struct thread *t;

	spin_assert_held(&threads_lock);
	list_for_each_entry(t, &all_threads, all_link)
		fn(t, arg);
}

int
nr_threads(void)
{
	return threads_count;
}

void
sched_init_cpu_idle(struct thread *idle, const char *name)
{
	struct cpu *c = this_cpu();

	memset(idle, 0, sizeof(*idle));
	strlcpy(idle->name, name, sizeof(idle->name));
	idle->state = T_RUNNING;
	idle->cpu = c->id;
	INIT_LIST_HEAD(&idle->rq_link);
	spin_init(&c->rq.lock, "runqueue");
	INIT_LIST_HEAD(&c->rq.queue);
	c->idle = idle;
	c->curr = idle;
	thread_list_add(idle);
}

/* Runs first in every new thread, still holding its CPU's rq lock. */
static void finish_switch(void);

static __attribute__((noreturn)) void
thread_start(void)
{
	struct thread *t;

	finish_switch();
	sti();
	t = current;
	t->fn(t->arg);
	thread_exit();
}

static int
pick_cpu(void)
{
	for (int tries = 0; tries < MAX_CPUS; tries++) {
		int c = (int)(__sync_fetch_and_add(&next_cpu, 1) % MAX_CPUS);
		if (cpus[c].state == CPU_ONLINE)
			return c;
	}
	return cpu_id();
}

struct thread *
thread_create(const char *name, void (*fn)(void *), void *arg, int cpu)
{
	struct thread *t;
	uint32_t *sp;

	if (fault_should_fail(FAULT_THREAD))
		return NULL;
	t = kzalloc(sizeof(*t), "thread");
	if (t == NULL)
		return NULL;
	t->stack = alloc_pages(KSTACK_PAGES, "stack");
	if (t->stack == NULL) {
		kfree(t);
		return NULL;
	}
	*(uint32_t *)t->stack = STACK_MAGIC;
	strlcpy(t->name, name, sizeof(t->name));
	t->fn = fn;
	t->arg = arg;
	t->cpu = cpu >= 0 && cpu < MAX_CPUS && cpus[cpu].state == CPU_ONLINE
	             ? cpu
	             : pick_cpu();
	t->created_ms = now_ms();
	INIT_LIST_HEAD(&t->rq_link);
	/* Frame for context_switch: edi esi ebx ebp, then "return" into
	 * thread_start, whose own return address slot is never used. */
	sp = (uint32_t *)((char *)t->stack + KSTACK_SIZE);
	*--sp = 0;
	*--sp = (uint32_t)thread_start;
	*--sp = 0; /* ebp: ends backtraces */
	*--sp = 0;
	*--sp = 0;
	*--sp = 0;
	t->esp = (uint32_t)sp;
	t->state = T_SLEEPING;
	thread_list_add(t);
	wake_up_thread(t);
	return t;
}

static void
free_thread(struct thread *t)
{
	uint32_t f = spin_lock_irqsave(&threads_lock);
	list_del_init(&t->all_link);
	threads_count--;
	spin_unlock_irqrestore(&threads_lock, f);
	free_pages(t->stack, KSTACK_PAGES);
	kfree(t);
}

/* The run queue lock is taken by the thread switched away from and
 * dropped by the one switched to: across context_switch, which no
 * analysis of one function can follow. */
NO_LOCKCHECK static void
finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *dead = c->dead;

	c->dead = NULL;
	spin_unlock(&c->rq.lock);
	if (dead != NULL)
		free_thread(dead);
}

static void
check_stack(struct thread *t)
{
	if (t->stack != NULL && *(uint32_t *)t->stack != STACK_MAGIC)
		panic("stack overflow in thread %s (tid %d)", t->name, t->tid);
}

/*
 * preempt: the switch is involuntary (an interrupt found need_resched).
 * The thread may have just set itself T_SLEEPING and not yet armed what
 * will wake it (a timer, say): it must stay runnable, or it could sleep
 * forever.  It re-enters schedule() itself when it gets there.
 */
NO_LOCKCHECK static void
__schedule(bool preempt)
{
	uint32_t f = local_irq_save();
	struct cpu *c = this_cpu();
	struct thread *prev = c->curr, *next, *t;

	if (c->locks_held != 0)
		panic("schedule() with %d spinlock(s) held", c->locks_held);
	if (c->irq_depth != 0)
		panic("schedule() in interrupt context");
	check_stack(prev);
	spin_lock(&c->rq.lock);
	c->need_resched = 0;
	c->qs_seq++;
	if ((prev->state == T_RUNNING || (preempt && prev->state != T_DEAD)) &&
	    prev != c->idle && !prev->on_rq) {
		list_add_tail(&prev->rq_link, &c->rq.queue);
		prev->on_rq = true;
		c->rq.nr_running++;
	}
	if (prev->ctl && prev == schedctl_token && !preempt &&
	    prev->state != T_RUNNING)
		schedctl_blocked(prev); /* the token goes on */
	next = c->idle;
	list_for_each_entry(t, &c->rq.queue, rq_link) {
		if (!schedctl_may_run(t)) /* a member without the token */
			continue;
		list_del_init(&t->rq_link);
		t->on_rq = false;
		c->rq.nr_running--;
		next = t;
		break;
	}
	if (next == prev) {
		spin_unlock(&c->rq.lock);
		local_irq_restore(f);
		return;
	}
	if (prev->state == T_DEAD)
		c->dead = prev;
	c->nr_switches++;
	next->nr_switches++;
	c->curr = next;
	context_switch(&prev->esp, next->esp);
	finish_switch();
	local_irq_restore(f);
}

void
schedule(void)
{
	__schedule(false);
	if (current->ctl)
		schedctl_resumed();
}

void
preempt_schedule_irq(void)
{
	__schedule(true);
}

void
thread_yield(void)
{
	schedule();
}

void
thread_exit(void)
{
	cli();
	current->state = T_DEAD;
	schedule();
	panic("dead thread %s was scheduled", current->name);
}

static void
do_wake(struct thread *t, bool only_interruptible)
{
	struct cpu *c = &cpus[t->cpu];
	uint32_t f = spin_lock_irqsave(&c->rq.lock);
	bool kick = false;

	if (t->state == T_SLEEPING &&
	    (!only_interruptible || t->interruptible)) {
		t->state = T_RUNNING;
		if (t->ctl)
			schedctl_woken(t);
		if (!t->on_rq && c->curr != t) {
			list_add_tail(&t->rq_link, &c->rq.queue);
			t->on_rq = true;
			c->rq.nr_running++;
			if (c->curr == c->idle)
				c->need_resched = 1;
			kick = c != this_cpu();
		}
	}
	spin_unlock_irqrestore(&c->rq.lock, f);
	/* Not t->cpu: once the lock is dropped t may have run, exited and
	 * been freed. */
	if (kick && smp_send_reschedule != NULL)
		smp_send_reschedule(c->id);
}

void
wake_up_thread(struct thread *t)
{
	do_wake(t, false);
}

void
thread_signal(struct thread *t)
{
	t->sigpending = true;
	do_wake(t, true);
}

bool
signal_pending(void)
{
	return current->sigpending;
}

void
clear_signal(void)
{
	current->sigpending = false;
}

void
set_current_state(int state, bool interruptible)
{
	struct thread *t = current;

	t->interruptible = interruptible;
	/* xchg is a full barrier: the state store is visible before the
	 * caller re-reads its wait condition, so a waker cannot slip in
	 * between and see us still running. */
	__atomic_exchange_n(&t->state, state, __ATOMIC_SEQ_CST);
}

void
sched_tick(unsigned ms)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->curr;

	t->runtime_ms += ms;
	t->slice_ms += ms;
	if (t == c->idle) {
		if (!list_empty(&c->rq.queue))
			c->need_resched = 1;
	} else if (t->slice_ms >= TIMESLICE_MS) {
		t->slice_ms = 0;
		c->need_resched = 1;
	}
}

void
idle_loop(void)
{
	struct cpu *c = this_cpu();

	for (;;) {
		cli();
		c->qs_seq++;
		if (list_empty(&c->rq.queue) && !c->need_resched) {
			cpu_idle_enter();
			sti_hlt();
			cpu_idle_exit(); /* a trap did it already, unless spurious */
		} else {
			sti();
		}
		schedule();
	}
}

static void
wake_timer_fn(struct timer *t)
{
	wake_up_thread(t->data);
}

bool
wait_note(const char *kind, const char *what, const char *name, const void *obj)
{
	struct thread_wait *w = &current->wait;

	if (w->kind != NULL)
		return false; /* an outer wait said what this one is for */
	w->what = what;
	w->name = name;
	w->obj = obj;
	/* Last, so a reader that sees the kind sees its details. */
	__atomic_store_n(&w->kind, kind, __ATOMIC_RELEASE);
	return true;
}

void
wait_note_end(bool noted)
{
	if (noted)
		__atomic_store_n(&current->wait.kind, NULL, __ATOMIC_RELEASE);
}

void
schedule_until(uint64_t deadline)
{
	struct thread *t = current;
	struct timer tm;

	if (deadline == UINT64_MAX) {
		schedule();
		return;
	}
	timer_init(&tm, wake_timer_fn, t);
	timer_add(&tm, deadline);
	t->wait.deadline = deadline;
	schedule();
	t->wait.deadline = 0;
	timer_del(&tm);
}

static int
sleep_until(uint64_t deadline, bool intr)
{
	bool noted = wait_note("sleep", NULL, NULL, NULL);
	int r;

	for (;;) {
		set_current_state(T_SLEEPING, intr);
		if (now_ms() >= deadline) {
			r = 0;
			break;
		}
		if (intr && signal_pending()) {
			r = -EINTR;
			break;
		}
		schedule_until(deadline);
	}
	set_current_state(T_RUNNING, false);
	wait_note_end(noted);
	return r;
}

void
msleep(unsigned ms)
{
	sleep_until(now_ms() + ms, false);
}

int
msleep_interruptible(unsigned ms)
{
	return sleep_until(now_ms() + ms, true);
}
