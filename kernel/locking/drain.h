/*
 * Drain: wait until a condition holds, telling the console once a second
 * what is still in the way.  rmmod waits for a module's references
 * (modloader/unload.c), unregister_netdev for a device's
 * (net/core/unregister.c).
 *
 *   drain_wait(&d)   calls d.done(d.arg) until it returns true (0) or,
 *                    if d.interruptible, Ctrl-C arrives (-EINTR).  d.report
 *                    (may be NULL) runs each whole second the wait lasts,
 *                    after a done() that said no, with the seconds waited.
 *                    done and report run in thread context with nothing
 *                    held and may sleep (take rtnl, stop_machine).
 *   drain_kick()     "something a drain may wait for has changed": the
 *                    last module_put and every dev_put call it.  Costs a
 *                    fence and one load while nobody drains.
 *
 * Event-driven: between looks the waiter sleeps until a kick, the next
 * report, or the fallback look (DRAIN_FALLBACK_MS: for conditions whose
 * owners do not kick, e.g. a module's can_unload veto over its own
 * objects).  A kick cannot be lost: the waiter counts itself in before it
 * samples the kick generation and then looks; a kicker changes its state
 * before it checks for waiters, so either the look sees the change or
 * the kick moves the generation the sleeper waits on (both sides order
 * with a full fence).
 */
#ifndef KERNEL_DRAIN_H
#define KERNEL_DRAIN_H

#include <stdbool.h>

#define DRAIN_FALLBACK_MS     100
#define DRAIN_FALLBACK_POINTS 10 /* the same in a controlled run */

struct drain {
	bool (*done)(void *arg);
	void (*report)(void *arg, unsigned seconds);
	void *arg;
	bool interruptible;
	/* For `ps -w` and the hang dump: what drains ("rmmod") and whose
	 * references (the module's or device's name; must live as long as
	 * the wait). */
	const char *what, *name;
};

int drain_wait(const struct drain *d);

extern volatile int drain_waiters;
void drain_wake(void);

static inline void
drain_kick(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&drain_waiters, __ATOMIC_RELAXED) != 0)
		drain_wake();
}

#endif
