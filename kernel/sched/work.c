/*
 * The kworker thread and its queue (see work.h).  One worker keeps order
 * simple: works run one at a time in the order they were queued.
 */
#include <kernel/sched/work.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/sched.h>
#include <kernel/debug/panic.h>
#include <kernel/arch/x86.h>

static DEFINE_SPINLOCK(work_lock);
static LIST_HEAD(work_list);
static DEFINE_WAITQ(work_wq);
static DEFINE_WAITQ(work_done_wq);

void
work_init(struct work *w, void (*fn)(struct work *))
{
	INIT_LIST_HEAD(&w->link);
	w->fn = fn;
	w->queued = false;
	w->running = false;
	w->canceling = 0;
}

bool
schedule_work(struct work *w)
{
	bool queued = false;
	uint32_t f = spin_lock_irqsave(&work_lock);

	if (!w->queued && w->canceling == 0) {
		w->queued = true;
		list_add_tail(&w->link, &work_list);
		queued = true;
	}
	spin_unlock_irqrestore(&work_lock, f);
	if (queued)
		wake_up(&work_wq);
	return queued;
}

/*
 * A running work may queue itself again (a poll loop, a retry).  While
 * we cancel, schedule_work() refuses it, so once the running instance is
 * done nothing can bring it back; waiting in a loop instead would
 * livelock against a work that re-queues itself on our CPU.
 */
bool
cancel_work_sync(struct work *w)
{
	bool was = false;
	uint32_t f = spin_lock_irqsave(&work_lock);

	w->canceling++;
	if (w->queued) {
		list_del_init(&w->link);
		w->queued = false;
		was = true;
	}
	spin_unlock_irqrestore(&work_lock, f);
	wait_event(work_done_wq, !READ_ONCE(w->running));
	f = spin_lock_irqsave(&work_lock);
	w->canceling--;
	spin_unlock_irqrestore(&work_lock, f);
	return was;
}

static bool
work_available(void)
{
	return !list_empty(&work_list);
}

static void
kworker(void *arg)
{
	(void)arg;
	for (;;) {
		struct work *w;
		uint32_t f;

		wait_event(work_wq, work_available());
		f = spin_lock_irqsave(&work_lock);
		if (list_empty(&work_list)) {
			spin_unlock_irqrestore(&work_lock, f);
			continue;
		}
		w = list_first_entry(&work_list, struct work, link);
		list_del_init(&w->link);
		w->queued = false;
		w->running = true;
		spin_unlock_irqrestore(&work_lock, f);
		w->fn(w);
		/* w may be freed by its owner once running is clear. */
		f = spin_lock_irqsave(&work_lock);
		w->running = false;
		spin_unlock_irqrestore(&work_lock, f);
		wake_up(&work_done_wq);
	}
}

void
workqueue_init(void)
{
	if (thread_create("kworker", kworker, NULL, 0) == NULL)
		panic("cannot start kworker");
}
