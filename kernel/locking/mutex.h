/*
 * Sleeping locks for thread context: the holder may sleep, waiters sleep
 * instead of spinning.  Not for interrupt handlers.  Unlocking a mutex
 * one does not hold panics.  mutex_unlock touches the mutex after
 * releasing it (to wake waiters), so a mutex must not be freed just
 * because another thread could take it: free it only when no thread can
 * be in mutex_unlock on it (as in Linux).  Unlock wakes every waiter;
 * fine for the few waiters modref has.
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <stdbool.h>
#include <kernel/locking/lockcheck.h>
#include <kernel/locking/lockorder.h>
#include <kernel/sched/waitq.h>

struct CAPABILITY("mutex") mutex {
	struct waitq wq;
	struct thread *volatile owner;
	const char *name;
	int rank; /* lock order class (kernel/locking/lockorder.h), 0: none */
};

#define MUTEX_INIT_RANK(n, r)                                                  \
	{                                                                      \
		WAITQ_INIT(n.wq), NULL, #n, r                                  \
	}
#define MUTEX_INIT(n)           MUTEX_INIT_RANK(n, 0)
#define DEFINE_MUTEX(n)         struct mutex n = MUTEX_INIT(n)
#define DEFINE_MUTEX_RANK(n, r) struct mutex n = MUTEX_INIT_RANK(n, r)

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m) ACQUIRE(m);
/* 0, or -EINTR if Ctrl-C arrived while waiting. */
int mutex_lock_interruptible(struct mutex *m) TRY_ACQUIRE(0, m);
bool mutex_trylock(struct mutex *m) TRY_ACQUIRE(true, m);
void mutex_unlock(struct mutex *m) RELEASE(m);
bool mutex_held(const struct mutex *m);
/* Panics unless the calling thread holds m; for the lock legends, the
 * analysis then knows it does (kernel/locking/lockcheck.h). */
void mutex_assert_held(struct mutex *m) ASSERT_CAPABILITY(m);

#endif
