/*
 * Controlled scheduling (schedctl.h).  All state is under the controlled
 * CPU's run-queue lock, which the scheduler holds when it calls the
 * hooks at the bottom: the token moves only under it, so the scheduler
 * never sees it half-moved.
 */
#include <kernel/sched/schedctl.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/lib/hash.h>
#include <kernel/locking/mutex.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>

volatile int schedctl_active;
struct thread *volatile schedctl_token;

static struct {
	int n, entered, cpu;
	unsigned depth, settle_ms;
	unsigned change[SCHEDCTL_DEPTH]; /* points where the holder drops */
	/* ... or the places where it does (nat > 0) */
	struct schedctl_place at[SCHEDCTL_DEPTH - 1];
	unsigned nat;
	bool log;
	uint32_t op[SCHEDCTL_MAX]; /* each member's op ... */
	uint16_t pt[SCHEDCTL_MAX]; /* ... and its points passed in it */
	int prio[SCHEDCTL_MAX];    /* initial priorities, by member id */
	struct thread *member[SCHEDCTL_MAX];
	/* schedctl_signal_after: the point at which member i is signalled
	 * (0: none) */
	unsigned signal_at[SCHEDCTL_MAX];
	unsigned wake_at[SCHEDCTL_MAX];   /* schedctl_wake_after, the same */
	volatile bool woke[SCHEDCTL_MAX]; /* ... and it came */
	/* The holder asleep outside the group keeps the token for up to
	 * settle_ms (what it waits for is likely to end by itself, and
	 * when it ends must not decide who runs); then this passes it. */
	struct timer pass_timer;
	struct thread *sleeper; /* asleep outside since the timer's start */
	bool pass_now;          /* it was awake then: pass at its next sleep */
	/* The holder asleep on the group's doing (a drain, a member's
	 * mutex) when no other member could run: it keeps the token, and
	 * if it is the first to wake the sleep is as if it never was.
	 * Whether it slept at all can be the host's speed (a drain whose
	 * condition a timer or an RCU callback makes true), and with no
	 * other member to run there was nothing to decide. */
	struct thread *kept;
	struct schedctl_stats st;
} ctl;

/* Into the schedule's hash, low byte first (as before the helper). */
static void
fold(uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
	                (uint8_t)(v >> 24)};

	ctl.st.hash = fnv1a32_add(ctl.st.hash, b, sizeof(b));
}

static spinlock_t *
rq_lock(void)
{
	return &cpus[ctl.cpu].rq.lock;
}

static struct thread *best_runnable(void);

/* The token goes to `to` (NULL: to none, the first to wake takes it),
 * counted and folded as a switch.  Under the rq lock. */
static void
pass_to(struct thread *to)
{
	schedctl_token = to;
	ctl.sleeper = NULL;
	ctl.pass_now = false;
	ctl.st.switches++;
	fold(0x40000000u | (to != NULL ? (uint32_t)to->ctl_id : 0xffu));
}

/* The holder is off the CPU asleep: the token goes to the best runnable
 * member, or to none. */
static struct thread *
pass_token(void)
{
	struct thread *best = best_runnable();

	pass_to(best);
	return best;
}

/* The holder still sleeps outside the group settle_ms after it went to
 * sleep: its wait may need another member after all. */
static void
pass_fire(struct timer *t)
{
	uint32_t f = spin_lock_irqsave(rq_lock());
	bool kick = false;

	(void)t;
	if (ctl.sleeper == NULL || schedctl_token != ctl.sleeper) {
		ctl.sleeper = NULL;
	} else if (ctl.sleeper->state == T_RUNNING) {
		/* awake for a moment in a polling wait: pass at its next
		 * sleep, so how the poll fell does not matter */
		ctl.pass_now = true;
	} else {
		ctl.st.timed++;
		kick = pass_token() != NULL;
		if (kick)
			cpus[ctl.cpu].need_resched = 1;
	}
	spin_unlock_irqrestore(rq_lock(), f);
	if (kick && ctl.cpu != cpu_id() && smp_send_reschedule != NULL)
		smp_send_reschedule(ctl.cpu);
}

int
schedctl_begin(const struct schedctl_config *c)
{
	uint64_t s = c->seed;
	unsigned depth = c->nat > 0 ? c->nat + 1 : c->depth;

	if (c->n < 1 || c->n > SCHEDCTL_MAX || depth < 1 ||
	    depth > SCHEDCTL_DEPTH || c->cpu < 0 || c->cpu >= MAX_CPUS ||
	    schedctl_active)
		return -EINVAL;
	for (unsigned i = 0; i < c->nat; i++)
		if (c->at[i].member >= c->n)
			return -EINVAL;
	memset(&ctl, 0, sizeof(ctl));
	ctl.nat = c->nat;
	memcpy(ctl.at, c->at, c->nat * sizeof(*c->at));
	ctl.log = c->log;
	ctl.n = c->n;
	ctl.cpu = c->cpu;
	ctl.depth = depth;
	ctl.settle_ms = c->settle_ms;
	/* Initial priorities depth .. depth+n-1, a permutation from the
	 * seed (Fisher-Yates); the change points get 0 .. depth-2, below
	 * all of them. */
	for (int i = 0; i < c->n; i++)
		ctl.prio[i] = (int)depth + i;
	for (int i = c->n - 1; i > 0; i--) {
		int j = (int)(splitmix64(&s) % (uint64_t)(i + 1)),
		    x = ctl.prio[i];

		ctl.prio[i] = ctl.prio[j];
		ctl.prio[j] = x;
	}
	for (unsigned i = 0; i + 1 < depth && c->nat == 0; i++)
		ctl.change[i] =
		    1 + (unsigned)(splitmix64(&s) % (c->steps ? c->steps : 1));
	ctl.st.hash = FNV1A32_INIT;
	timer_init(&ctl.pass_timer, pass_fire, NULL);
	schedctl_token = NULL;
	__atomic_store_n(&schedctl_active, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The runnable member of highest priority (the caller too, if it is
 * still runnable); NULL if every member sleeps. */
static struct thread *
best_runnable(void)
{
	struct thread *best = NULL;

	for (int i = 0; i < ctl.n; i++) {
		struct thread *t = ctl.member[i];

		if (t != NULL && t->state == T_RUNNING &&
		    (best == NULL || t->ctl_prio > best->ctl_prio))
			best = t;
	}
	return best;
}

void
schedctl_enter(int id)
{
	struct thread *me = current;
	uint32_t f;

	ASSERT(me->cpu == ctl.cpu && id >= 0 && id < ctl.n);
	f = spin_lock_irqsave(rq_lock());
	me->ctl = true;
	me->ctl_id = id;
	me->ctl_prio = ctl.prio[id];
	ctl.member[id] = me;
	if (++ctl.entered == ctl.n)
		schedctl_token = best_runnable();
	spin_unlock_irqrestore(rq_lock(), f);
	while (schedctl_token != me) /* skipped by the scheduler till then */
		schedule();
}

/* A member asleep on something no member holds (a grace period, a
 * timer, the drain): it will wake by itself, and soon. */
static bool
sleeps_outside(const struct thread *t)
{
	const struct mutex *m;

	if (t->state != T_SLEEPING)
		return false;
	/* a drain wakes at a kick or after points (drain.c): a member's
	 * doing either way, so it is waited for as a member is */
	if (t->wait.kind != NULL && strcmp(t->wait.kind, "drain") == 0)
		return false;
	if (t->wait.kind == NULL || strcmp(t->wait.kind, "mutex") != 0)
		return true;
	m = t->wait.obj;
	return m->owner == NULL || !m->owner->ctl;
}

/* Before a decision: let members that sleep outside the group wake (up
 * to settle_ms), so how long that took does not change who is runnable
 * now.  The holder keeps the token (it yields, it does not sleep). */
static void
settle(void)
{
	uint64_t end = now_ms() + ctl.settle_ms;
	bool waited = false;

	for (;;) {
		bool any = false;

		for (int i = 0; i < ctl.n && !any; i++)
			any = ctl.member[i] != NULL &&
			      ctl.member[i] != current &&
			      sleeps_outside(ctl.member[i]);
		if (!any)
			break;
		if (now_ms() >= end) {
			ctl.st.timed++;
			ctl.st.timed_settle++;
			break;
		}
		waited = true;
		thread_yield();
		cpu_relax();
	}
	if (waited)
		ctl.st.settles++;
}

static bool
same_place(const struct schedctl_place *a, const struct schedctl_place *b)
{
	return a->member == b->member && a->op == b->op && a->point == b->point;
}

void
schedctl_op(uint32_t idx)
{
	struct thread *me = current;
	uint32_t f;

	if (!me->ctl)
		return;
	f = spin_lock_irqsave(rq_lock());
	ctl.op[me->ctl_id] = idx;
	ctl.pt[me->ctl_id] = 0;
	spin_unlock_irqrestore(rq_lock(), f);
}

void
schedctl_point(void)
{
	struct thread *me = current, *best, *sig[SCHEDCTL_MAX],
	              *wake[SCHEDCTL_MAX];
	struct schedctl_place here;
	bool changed = false;
	int nsig = 0, nwake = 0;
	uint32_t f;

	if (!me->ctl || schedctl_token != me)
		return;
	if (ctl.sleeper == me) { /* its outside wait is over */
		timer_del(&ctl.pass_timer);
		f = spin_lock_irqsave(rq_lock());
		ctl.sleeper = NULL;
		ctl.pass_now = false;
		spin_unlock_irqrestore(rq_lock(), f);
	}
	settle();
	f = spin_lock_irqsave(rq_lock());
	ctl.st.points++;
	for (int i = 0; i < ctl.n; i++) {
		if (ctl.member[i] == NULL)
			continue;
		if (ctl.signal_at[i] != 0 &&
		    ctl.signal_at[i] <= ctl.st.points) {
			ctl.signal_at[i] = 0;
			sig[nsig++] = ctl.member[i];
		}
		if (ctl.wake_at[i] != 0 && ctl.wake_at[i] <= ctl.st.points) {
			ctl.wake_at[i] = 0;
			ctl.woke[i] = true;
			wake[nwake++] = ctl.member[i];
		}
	}
	here = (struct schedctl_place){.op = ctl.op[me->ctl_id],
	                               .point = ctl.pt[me->ctl_id],
	                               .member = (uint16_t)me->ctl_id};
	if (ctl.pt[me->ctl_id] < UINT16_MAX) /* a place past it: none */
		ctl.pt[me->ctl_id]++;
	for (unsigned k = 0; k + 1 < ctl.depth; k++)
		if (ctl.nat > 0 ? same_place(&ctl.at[k], &here)
		                : ctl.change[k] == ctl.st.points) {
			me->ctl_prio = (int)(ctl.depth - 2 - k);
			if (ctl.st.changes < SCHEDCTL_DEPTH - 1)
				ctl.st.changed[ctl.st.changes] = here;
			ctl.st.changes++;
			changed = true;
		}
	best = best_runnable();
	if (best != me) {
		schedctl_token = best;
		ctl.st.switches++;
	}
	fold(ctl.st.points);
	fold((uint32_t)best->ctl_id);
	spin_unlock_irqrestore(rq_lock(), f);
	/* A member signalled here cannot exit before we are done: it
	 * needs the token, which we hold till the schedule() below. */
	if (changed && ctl.log) { /* on the console, not in an op's output */
		struct out_capture *c = out_capture_suspend();

		kprintf("schedctl: change point at %u.%u.%u\n", here.member,
		        (unsigned)here.op, here.point);
		out_capture_resume(c);
	}
	for (int i = 0; i < nsig; i++)
		thread_signal(sig[i]);
	for (int i = 0; i < nwake; i++)
		wake_up_thread(wake[i]);
	if (best != me)
		schedule(); /* runnable, skipped till the token comes back */
}

void
schedctl_note(uint32_t v)
{
	uint32_t f;

	if (!current->ctl)
		return;
	f = spin_lock_irqsave(rq_lock());
	fold(0x80000000u | v);
	spin_unlock_irqrestore(rq_lock(), f);
}

/* The calling member's at[] slot: the point `points` from now (0:
 * none); true if the caller is a member. */
static bool
arm_at(unsigned *at, unsigned points)
{
	uint32_t f;

	if (!current->ctl)
		return false;
	f = spin_lock_irqsave(rq_lock());
	at[current->ctl_id] = points == 0 ? 0 : ctl.st.points + points;
	spin_unlock_irqrestore(rq_lock(), f);
	return true;
}

void
schedctl_signal_after(unsigned points)
{
	arm_at(ctl.signal_at, points);
}

void
schedctl_wake_after(unsigned points)
{
	if (arm_at(ctl.wake_at, points))
		ctl.woke[current->ctl_id] = false;
}

bool
schedctl_woke(void)
{
	return current->ctl && ctl.woke[current->ctl_id];
}

void
schedctl_end(struct schedctl_stats *st)
{
	uint32_t f;

	timer_del(&ctl.pass_timer);
	f = spin_lock_irqsave(rq_lock());

	*st = ctl.st;
	/* The members left are ordinary threads again: one the tick
	 * preempted between its last op and its exit must still get there
	 * (with no token left it would be skipped for good), and no hook
	 * may treat it as a member of a run that is over. */
	for (int i = 0; i < ctl.n; i++)
		if (ctl.member[i] != NULL) {
			ctl.member[i]->ctl = false;
			ctl.member[i]->ctl_redecide = false;
			ctl.member[i] = NULL;
		}
	ctl.kept = NULL;
	schedctl_token = NULL;
	__atomic_store_n(&schedctl_active, 0, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(rq_lock(), f);
}

/* ---- the scheduler's hooks, under the CPU's rq lock ---------------------- */

bool
schedctl_may_run(const struct thread *t)
{
	return !t->ctl || t == schedctl_token;
}

/* The holder leaves the CPU asleep or dead: the token goes on
 * (pass_token), unless it sleeps outside the group (then pass_fire). */
void
schedctl_blocked(struct thread *prev)
{
	if (prev->state == T_DEAD)
		ctl.member[prev->ctl_id] = NULL;
	if (prev->state == T_SLEEPING && sleeps_outside(prev) &&
	    ctl.settle_ms != 0 && !ctl.pass_now) {
		/* keeps the token a while (pass_fire); a polling wait's
		 * next sleep does not restart the clock */
		if (ctl.sleeper != prev) {
			ctl.sleeper = prev;
			timer_add(&ctl.pass_timer, now_ms() + ctl.settle_ms);
		}
		return;
	}
	if (ctl.pass_now)
		ctl.st.timed++;
	else if (prev->state == T_SLEEPING && best_runnable() == NULL) {
		ctl.kept = prev;
		ctl.sleeper = NULL; /* as pass_token: no timed pass due */
		return;
	}
	pass_token();
}

/* Every member slept: the first to wake takes the token, but which one
 * that is depends on time, so it decides again (schedctl_resumed) before
 * it runs on.  The kept holder waking first just goes on; another member
 * waking first takes the token from it as from no one (the pass the
 * holder's sleep would have made is counted now, so the hash is the
 * same as if it had been made then). */
void
schedctl_woken(struct thread *t)
{
	if (ctl.kept != NULL) {
		struct thread *k = ctl.kept;

		ctl.kept = NULL;
		if (k == t)
			return;
		pass_to(NULL); /* the pass its sleep put off */
	}
	if (schedctl_token == NULL) {
		schedctl_token = t;
		t->ctl_redecide = true;
		ctl.st.wakes++;
	}
}

void
schedctl_resumed(void)
{
	if (!current->ctl_redecide)
		return;
	current->ctl_redecide = false;
	schedctl_point();
}
