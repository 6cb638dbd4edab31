/*
 * Grace periods by counting quiescent states per CPU (see rcu.h).  Each
 * CPU bumps its qs_seq at every context switch, every idle-loop pass and
 * every tick that interrupted non-reader code; a grace period is over when
 * every other CPU's counter has moved since it began.
 *
 * A CPU halted in the idle loop runs no reader at all, but may be slow to
 * answer: waking a halted vCPU takes the host's scheduler, often longer
 * than the 200 us an expedited grace period spins for, and the fallback
 * then sleeps a whole tick (idle rmmod measured 1-6 ms where a warm one
 * took 0.4).  So the idle loop marks the halt as an extended quiescent
 * state (Linux's dyntick-idle): cpu->idle_eqs goes odd before hlt, and
 * every trap makes it even again before its handler runs (an interrupt
 * handler on an idle CPU may be a reader: network receive).  A grace
 * period that sees it odd, or changed since it began, needs nothing more
 * from that CPU.
 */
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/waitq.h>
#include <kernel/locking/spinlock.h>
#include <kernel/debug/panic.h>
#include <kernel/bootparam.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/apic.h>
#include <kernel/sched/clock.h>
#include <kernel/arch/irq.h>
#include <kernel/module.h>
#include <kernel/arch/trap.h>

int rcu_skip_grace;
BOOTPARAM_BOOL(rcu_skip_grace, rcu_skip_grace,
               "DEBUG: make grace periods return at once (unsafe)", 1);

static DEFINE_SPINLOCK(rcu_lock);
static LIST_HEAD(rcu_pending);
static DEFINE_WAITQ(rcu_wq);
static DEFINE_WAITQ(rcu_done_wq);
static volatile uint64_t rcu_queued, rcu_completed;

/* The expedite IPI: a quiescent state by the tick's rule. */
static void
rcu_qs_ipi(struct trapframe *tf)
{
	struct cpu *c = this_cpu();

	if ((tf->eflags & EFLAGS_IF) && c->preempt_off == 0)
		c->qs_seq++;
	lapic_eoi();
}

static volatile unsigned long gp_started, gp_done_upto;
volatile unsigned long rcu_idle_skips;

void
rcu_idle_enter(void)
{
	struct cpu *c = this_cpu();

	ASSERT((read_eflags() & EFLAGS_IF) ==
	       0); /* nothing between us and hlt */
	ASSERT((c->idle_eqs & 1) == 0);
	/* A full barrier: our earlier reads are done before we count as
	 * quiescent. */
	__atomic_add_fetch(&c->idle_eqs, 1, __ATOMIC_SEQ_CST);
}

void
rcu_idle_exit(void)
{
	struct cpu *c = this_cpu();
	uint32_t v = c->idle_eqs;

	/* A full barrier before the handler's first read.  A CAS, because
	 * the idle loop (after hlt) and a trap interrupting it both call
	 * this: only one makes the step. */
	if (v & 1)
		__atomic_compare_exchange_n(&c->idle_eqs, &v, v + 1, false,
		                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

unsigned long
rcu_gp_cookie(void)
{
	return __atomic_load_n(&gp_started, __ATOMIC_SEQ_CST) + 1;
}

bool
rcu_gp_passed(unsigned long cookie)
{
	return __atomic_load_n(&gp_done_upto, __ATOMIC_SEQ_CST) >= cookie;
}

static void cpus_pass_qs(bool expedite);

static void
grace_period(bool expedite)
{
	unsigned long my = __atomic_add_fetch(&gp_started, 1, __ATOMIC_SEQ_CST);
	unsigned long done = __atomic_load_n(&gp_done_upto, __ATOMIC_SEQ_CST);

	cpus_pass_qs(expedite);
	while (done < my &&
	       !__atomic_compare_exchange_n(&gp_done_upto, &done, my, false,
	                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

void
rcu_gp_wait(unsigned long cookie)
{
	if (!rcu_gp_passed(cookie))
		grace_period(true);
}

static void
cpus_pass_qs(bool expedite)
{
	uint64_t seen[MAX_CPUS];
	uint32_t seen_eqs[MAX_CPUS];
	int me = cpu_id();

	if (this_cpu()->preempt_off != 0)
		panic("synchronize_rcu() inside a read-side section");
	if (rcu_skip_grace)
		return;
	/* The caller's unlinking stores are visible before we look. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < MAX_CPUS; i++) {
		seen[i] = READ_ONCE(cpus[i].qs_seq);
		seen_eqs[i] =
		    __atomic_load_n(&cpus[i].idle_eqs, __ATOMIC_SEQ_CST);
	}
	for (int i = 0; i < MAX_CPUS; i++) {
		/* For the hang dump: which CPU a grace period waits for. */
		static const char *const waits_for[MAX_CPUS] = {
		    "cpu0", "cpu1", "cpu2", "cpu3",
		    "cpu4", "cpu5", "cpu6", "cpu7"};
		struct cpu *c = &cpus[i];
		bool noted;

		if (i == me || c->state != CPU_ONLINE)
			continue;
		/* Halted in the idle loop now, or since we began: no reader
		 * there can have seen what the caller unlinked. */
		if (seen_eqs[i] & 1) {
			__atomic_add_fetch(&rcu_idle_skips, 1,
			                   __ATOMIC_RELAXED);
			continue;
		}
		noted = wait_note("rcu_gp", NULL, waits_for[i], NULL);
		while (READ_ONCE(c->qs_seq) == seen[i] &&
		       READ_ONCE(c->idle_eqs) == seen_eqs[i]) {
			uint64_t until;

			if (!expedite) {
				msleep(1);
				continue;
			}
			/* Ask, then spin briefly: the answer takes
			 * microseconds unless that CPU is in a reader. */
			lapic_send_ipi(c->apic_id, VEC_RCU_QS, false);
			until = now_us() + 200;
			while (READ_ONCE(c->qs_seq) == seen[i] &&
			       READ_ONCE(c->idle_eqs) == seen_eqs[i] &&
			       now_us() < until)
				cpu_relax();
			if (READ_ONCE(c->qs_seq) == seen[i] &&
			    READ_ONCE(c->idle_eqs) == seen_eqs[i])
				msleep(1);
		}
		wait_note_end(noted);
	}
}

void
synchronize_rcu(void)
{
	grace_period(false);
}

void
synchronize_rcu_expedited(void)
{
	grace_period(true);
}
EXPORT_SYMBOL(synchronize_rcu_expedited);

void
call_rcu(struct rcu_head *h, void (*fn)(struct rcu_head *h))
{
	uint32_t f = spin_lock_irqsave(&rcu_lock);

	h->fn = fn;
	list_add_tail(&h->link, &rcu_pending);
	rcu_queued++;
	spin_unlock_irqrestore(&rcu_lock, f);
	wake_up(&rcu_wq);
}

void
rcu_barrier(void)
{
	uint64_t target;
	uint32_t f = spin_lock_irqsave(&rcu_lock);

	target = rcu_queued;
	spin_unlock_irqrestore(&rcu_lock, f);
	wait_event(rcu_done_wq, READ_ONCE(rcu_completed) >= target);
}

static bool
rcu_work_pending(void)
{
	return !list_empty(&rcu_pending);
}

static void
rcu_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct list_head batch;
		uint64_t n = 0;
		uint32_t f;

		wait_event(rcu_wq, rcu_work_pending());
		INIT_LIST_HEAD(&batch);
		f = spin_lock_irqsave(&rcu_lock);
		while (!list_empty(&rcu_pending)) {
			struct list_head *e = rcu_pending.next;
			list_del_init(e);
			list_add_tail(e, &batch);
			n++;
		}
		spin_unlock_irqrestore(&rcu_lock, f);
		synchronize_rcu();
		while (!list_empty(&batch)) {
			struct rcu_head *h =
			    list_first_entry(&batch, struct rcu_head, link);
			list_del_init(&h->link);
			h->fn(h);
		}
		f = spin_lock_irqsave(&rcu_lock);
		rcu_completed += n;
		spin_unlock_irqrestore(&rcu_lock, f);
		wake_up(&rcu_done_wq);
	}
}

void
rcu_init(void)
{
	vector_register(VEC_RCU_QS, rcu_qs_ipi);
	if (thread_create("rcu", rcu_thread, NULL, 0) == NULL)
		panic("cannot start the rcu thread");
}
