/*
 * Grace periods by counting quiescent states per CPU (see rcu.h).  Each
 * CPU bumps its qs_seq at every context switch, every idle-loop pass and
 * every tick that interrupted non-reader code; a grace period is over when
 * every other CPU's counter has moved since it began.  (An idle CPU is no
 * exception: interrupt handlers running on it may be readers.)
 */
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/waitq.h>
#include <kernel/spinlock.h>
#include <kernel/panic.h>
#include <kernel/bootparam.h>
#include <kernel/x86.h>
#include <kernel/apic.h>
#include <kernel/clock.h>
#include <kernel/irq.h>
#include <kernel/module.h>
#include <kernel/trap.h>

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
	int me = cpu_id();

	if (this_cpu()->preempt_off != 0)
		panic("synchronize_rcu() inside a read-side section");
	if (rcu_skip_grace)
		return;
	for (int i = 0; i < MAX_CPUS; i++)
		seen[i] = READ_ONCE(cpus[i].qs_seq);
	for (int i = 0; i < MAX_CPUS; i++) {
		/* For the hang dump: which CPU a grace period waits for. */
		static const char *const waits_for[MAX_CPUS] = {
		    "cpu0", "cpu1", "cpu2", "cpu3",
		    "cpu4", "cpu5", "cpu6", "cpu7"};
		struct cpu *c = &cpus[i];
		bool noted;

		if (i == me || c->state != CPU_ONLINE)
			continue;
		noted = wait_note("rcu_gp", NULL, waits_for[i], NULL);
		/* No shortcut for a CPU whose current thread is idle: an
		 * interrupt handler there (network receive) may be inside
		 * a read-side section.  An idle CPU passes a quiescent
		 * state at every tick and idle-loop pass anyway. */
		while (READ_ONCE(c->qs_seq) == seen[i]) {
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
			       now_us() < until)
				cpu_relax();
			if (READ_ONCE(c->qs_seq) == seen[i])
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
