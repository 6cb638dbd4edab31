/*
 * Sleeping mutexes (see mutex.h): an owner pointer set with compare-and-
 * swap, and a wait queue for the rest.
 */
#include <kernel/locking/mutex.h>
#include <kernel/sched/schedctl.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/lockorder.h>

void
mutex_init(struct mutex *m, const char *name)
{
	waitq_init(&m->wq, name);
	m->owner = NULL;
	m->name = name;
	m->rank = 0;
}

static bool
try_acquire(struct mutex *m)
{
	struct thread *expected = NULL;

	return __atomic_compare_exchange_n(&m->owner, &expected, current, false,
	                                   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* A trylock cannot deadlock: recorded, not checked. */
/* The lock primitives are what the analysis takes on trust. */
NO_LOCKCHECK bool
mutex_trylock(struct mutex *m)
{
	if (!try_acquire(m))
		return false;
	if (m->rank != 0)
		lockorder_push(m->name, m->rank);
	return true;
}

static void
check_not_recursive(struct mutex *m)
{
	if (m->owner == current)
		panic("mutex %s: recursive lock by %s", m->name, current->name);
}

NO_LOCKCHECK void
mutex_lock(struct mutex *m)
{
	bool noted;

	check_not_recursive(m);
	if (m->rank != 0)
		lockorder_check(m->name, m->rank);
	if (schedctl_active) /* a controlled run: a scheduling point */
		schedctl_point();
	if (!try_acquire(m)) { /* contended: say what we wait on */
		noted = wait_note("mutex", NULL, m->name, m);
		wait_event(m->wq, try_acquire(m));
		wait_note_end(noted);
	}
	if (m->rank != 0)
		lockorder_push(m->name, m->rank);
}

NO_LOCKCHECK int
mutex_lock_interruptible(struct mutex *m)
{
	bool noted;
	int r;

	check_not_recursive(m);
	if (m->rank != 0)
		lockorder_check(m->name, m->rank);
	if (try_acquire(m)) {
		r = 0;
	} else {
		noted = wait_note("mutex", NULL, m->name, m);
		r = wait_event_interruptible(m->wq, try_acquire(m));
		wait_note_end(noted);
	}
	if (r == 0 && m->rank != 0)
		lockorder_push(m->name, m->rank);
	return r;
}

void
mutex_assert_held(struct mutex *m)
{
	ASSERT(mutex_held(m));
}

NO_LOCKCHECK void
mutex_unlock(struct mutex *m)
{
	if (m->owner != current)
		panic("mutex %s: unlocked by %s, not its owner", m->name,
		      current->name);
	if (m->rank != 0)
		lockorder_pop(m->name, m->rank);
	__atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
	wake_up(&m->wq);
}

bool
mutex_held(const struct mutex *m)
{
	return m->owner == current;
}
