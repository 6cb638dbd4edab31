/*
 * Wait queues and completions (see waitq.h).
 */
#include <kernel/sched/waitq.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>

void
waitq_init(struct waitq *wq, const char *name)
{
	spin_init(&wq->lock, name);
	INIT_LIST_HEAD(&wq->waiters);
}

void
wait_entry_init(struct wait_entry *w)
{
	INIT_LIST_HEAD(&w->link);
	w->thread = current;
}

void
prepare_to_wait(struct waitq *wq, struct wait_entry *w, bool interruptible)
{
	uint32_t f = spin_lock_irqsave(&wq->lock);

	if (list_empty(&w->link))
		list_add_tail(&w->link, &wq->waiters);
	current->wait.queue = wq->lock.name;
	set_current_state(T_SLEEPING, interruptible);
	spin_unlock_irqrestore(&wq->lock, f);
}

void
finish_wait(struct waitq *wq, struct wait_entry *w)
{
	uint32_t f;

	set_current_state(T_RUNNING, false);
	current->wait.queue = NULL;
	/* Always take the lock: a waker may still be walking the list with
	 * our entry on it, and the entry lives on our stack. */
	f = spin_lock_irqsave(&wq->lock);
	if (!list_empty(&w->link))
		list_del_init(&w->link);
	spin_unlock_irqrestore(&wq->lock, f);
}

int
wake_up(struct waitq *wq)
{
	struct wait_entry *w;
	int n = 0;
	uint32_t f = spin_lock_irqsave(&wq->lock);

	list_for_each_entry(w, &wq->waiters, link) {
		if (w->thread->state == T_SLEEPING)
			n++;
		wake_up_thread(w->thread);
	}
	spin_unlock_irqrestore(&wq->lock, f);
	return n;
}

bool
waitq_active(struct waitq *wq)
{
	return !list_empty(&wq->waiters);
}

void
completion_init(struct completion *c)
{
	waitq_init(&c->wq, "completion");
	c->done = 0;
}

void
complete(struct completion *c)
{
	uint32_t f = spin_lock_irqsave(&c->wq.lock);
	struct wait_entry *w;

	c->done = 1;
	list_for_each_entry(w, &c->wq.waiters, link)
		wake_up_thread(w->thread);
	spin_unlock_irqrestore(&c->wq.lock, f);
}

int
wait_for_completion_timeout(struct completion *c, long ms, bool intr)
{
	/* The condition is re-read under the queue lock in finish_wait's
	 * wake: complete() sets done and wakes while holding that lock, so
	 * once we return, complete() has let go of *c and the caller may
	 * free it. */
	int r = __wait_event(c->wq, c->done, ms, intr);
	uint32_t f = spin_lock_irqsave(&c->wq.lock);
	if (c->done)
		r = 0;
	spin_unlock_irqrestore(&c->wq.lock, f);
	return r;
}

void
wait_for_completion(struct completion *c)
{
	wait_for_completion_timeout(c, -1, false);
}
