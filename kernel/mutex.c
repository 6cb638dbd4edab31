/*
 * Sleeping mutexes (see mutex.h): an owner pointer set with compare-and-
 * swap, and a wait queue for the rest.
 */
#include <kernel/mutex.h>
#include <kernel/sched.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>

void
mutex_init(struct mutex *m, const char *name)
{
	waitq_init(&m->wq, name);
	m->owner = NULL;
	m->name = name;
}

bool
mutex_trylock(struct mutex *m)
{
	struct thread *expected = NULL;

	return __atomic_compare_exchange_n(&m->owner, &expected, current, false,
	                                   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void
check_not_recursive(struct mutex *m)
{
	if (m->owner == current)
		panic("mutex %s: recursive lock by %s", m->name, current->name);
}

void
mutex_lock(struct mutex *m)
{
	check_not_recursive(m);
	wait_event(m->wq, mutex_trylock(m));
}

int
mutex_lock_interruptible(struct mutex *m)
{
	check_not_recursive(m);
	return wait_event_interruptible(m->wq, mutex_trylock(m));
}

void
mutex_unlock(struct mutex *m)
{
	if (m->owner != current)
		panic("mutex %s: unlocked by %s, not its owner", m->name,
		      current->name);
	__atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
	wake_up(&m->wq);
}

bool
mutex_held(const struct mutex *m)
{
	return m->owner == current;
}
