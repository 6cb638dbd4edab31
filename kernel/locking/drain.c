/*
 * Drain: wait for a condition, woken by kicks, reporting each second
 * (kernel/locking/drain.h).
 */
#include <kernel/locking/drain.h>
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/schedctl.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/waitq.h>

volatile int drain_waiters;
static volatile unsigned drain_gen;
static DEFINE_WAITQ(drain_wq);

void
drain_wake(void)
{
	__atomic_add_fetch(&drain_gen, 1, __ATOMIC_SEQ_CST);
	if (waitq_active(&drain_wq))
		wake_up(&drain_wq);
}

int
drain_wait(const struct drain *d)
{
	uint64_t start = now_ms(), next = start + 1000;
	bool noted = wait_note("drain", d->what, d->name, NULL), waited = false;
	int r = 0;

	__atomic_add_fetch(&drain_waiters, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		unsigned gen = __atomic_load_n(&drain_gen, __ATOMIC_SEQ_CST);
		uint64_t now, until;

		if (d->done(d->arg))
			break;
		if (!waited) {
			current->drain_waits++;
			waited = true;
		}
		now = now_ms();
		if (now >= next) {
			if (d->report != NULL)
				d->report(d->arg,
				          (unsigned)((now - start) / 1000));
			next += 1000;
			if (next <= now)
				next = now + 1000;
		}
		until = now + DRAIN_FALLBACK_MS < next ? now + DRAIN_FALLBACK_MS
		                                       : next;
		/* A member of a controlled run looks again after points of
		 * the others, not after ms: when is then the seed's (its
		 * report still comes by the clock, each second). */
		if (current->ctl) {
			until = next;
			schedctl_wake_after(DRAIN_FALLBACK_POINTS);
		}
		r = __wait_event(
		    drain_wq,
		    __atomic_load_n(&drain_gen, __ATOMIC_SEQ_CST) != gen ||
		        schedctl_woke(),
		    (long)(until - now), d->interruptible);
		schedctl_wake_after(0);
		if (r == -EINTR)
			break;
		r = 0;
	}
	__atomic_sub_fetch(&drain_waiters, 1, __ATOMIC_SEQ_CST);
	wait_note_end(noted);
	return r;
}
EXPORT_SYMBOL(drain_wake);
EXPORT_SYMBOL(drain_waiters);
