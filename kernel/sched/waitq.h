/*
 * Wait queues: sleep until a condition holds.  The waker changes the
 * condition, then calls wake_up(); the sleeper re-checks the condition
 * after every wakeup, so spurious wakeups are harmless.  The wait_event*
 * macros return 0 once the condition holds, -EINTR if the thread was
 * interrupted (Ctrl-C) in an interruptible wait, -ETIMEDOUT on timeout.
 */
#ifndef KERNEL_WAITQ_H
#define KERNEL_WAITQ_H

#include <stdbool.h>
#include <stdint.h>
#include <kernel/lib/list.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/errno.h>

struct thread;

struct waitq {
	spinlock_t lock;
	struct list_head waiters;
};

struct wait_entry {
	struct list_head link;
	struct thread *thread;
};

#define WAITQ_INIT(name)                                                       \
	{                                                                      \
		SPINLOCK_INIT(#name), LIST_HEAD_INIT(name.waiters)             \
	}
#define DEFINE_WAITQ(name) struct waitq name = WAITQ_INIT(name)

void waitq_init(struct waitq *wq, const char *name);
void wait_entry_init(struct wait_entry *w);
void prepare_to_wait(struct waitq *wq, struct wait_entry *w,
                     bool interruptible);
void finish_wait(struct waitq *wq, struct wait_entry *w);
/* Wake every waiter; returns how many were sleeping. */
int wake_up(struct waitq *wq);
bool waitq_active(struct waitq *wq);

uint64_t now_ms(void);
bool signal_pending(void);
/* Sleep until woken, the absolute deadline (ms, UINT64_MAX = none), or,
 * when interruptible, a signal. */
void schedule_until(uint64_t deadline);

#define __wait_event(wq, cond, ms, intr)                                       \
	({                                                                     \
		int __ret = 0;                                                 \
		long __ms = (ms);                                              \
		uint64_t __deadline =                                          \
		    __ms < 0 ? UINT64_MAX : now_ms() + (uint64_t)__ms;         \
		struct wait_entry __w;                                         \
		wait_entry_init(&__w);                                         \
		for (;;) {                                                     \
			prepare_to_wait(&(wq), &__w, (intr));                  \
			if (cond)                                              \
				break;                                         \
			if ((intr) && signal_pending()) {                      \
				__ret = -EINTR;                                \
				break;                                         \
			}                                                      \
			if (now_ms() >= __deadline) {                          \
				__ret = -ETIMEDOUT;                            \
				break;                                         \
			}                                                      \
			schedule_until(__deadline);                            \
		}                                                              \
		finish_wait(&(wq), &__w);                                      \
		__ret;                                                         \
	})

#define wait_event(wq, cond)               ((void)__wait_event(wq, cond, -1, false))
#define wait_event_timeout(wq, cond, ms)   __wait_event(wq, cond, ms, false)
#define wait_event_interruptible(wq, cond) __wait_event(wq, cond, -1, true)
#define wait_event_interruptible_timeout(wq, cond, ms)                         \
	__wait_event(wq, cond, ms, true)

/* A one-shot event another thread waits for (e.g. "thread finished"). */
struct completion {
	struct waitq wq;
	volatile int done;
};

void completion_init(struct completion *c);
void complete(struct completion *c);
void wait_for_completion(struct completion *c);
/* 0, or -ETIMEDOUT / -EINTR. */
int wait_for_completion_timeout(struct completion *c, long ms, bool intr);

#endif
