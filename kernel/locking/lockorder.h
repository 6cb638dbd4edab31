/*
 * Lock order, checked at run time.  A lock may carry a rank (its class);
 * a thread that holds a ranked lock may only take ranked locks of the
 * same or a higher rank.  Taking a lower one panics with both names:
 *
 *   lock order: rtnl_mutex (rank 20) taken while holding
 *   dev->holders.lock (rank 60)
 *
 * before it can deadlock against a thread taking them the documented
 * way.  Unranked locks (rank 0) are not checked.  Checked in thread
 * context only (an interrupt handler's locks are its own), like the
 * other lock debugging always on (spinlock.h).  The ranks, lowest taken
 * first - each subsystem's internal header writes its part out:
 *
 *   module_mutex   10   modloader: every module state change
 *   rtnl           20   net: registration, up/down, notifiers
 *   neigh_lock     30   net: the ARP table (drops device references)
 *   dev->xmit_lock 40   net: around ndo_start_xmit
 *   holders.lock   60   ref_tracker: a device's or module's holders (a leaf)
 *
 * lockorder_catch (for the lockorder ktest only) turns the panic into a
 * line and a count, so a test can take two locks the wrong way round.
 */
#ifndef KERNEL_LOCKORDER_H
#define KERNEL_LOCKORDER_H

#include <stddef.h>

enum lock_rank {
	LOCK_RANK_NONE = 0,
	LOCK_RANK_MODULE = 10,
	LOCK_RANK_RTNL = 20,
	LOCK_RANK_NEIGH = 30,
	LOCK_RANK_XMIT = 40,
	LOCK_RANK_TRACK = 60,
};

#define LOCKORDER_DEPTH 8

/* Called by the lock primitives for ranked locks: check before waiting
 * for a lock (a wrong order panics before it can deadlock), push once
 * it is held; taken = check and push, for a lock that was free at the
 * first try (nothing waited, one call instead of two). */
void lockorder_check(const char *name, int rank);
void lockorder_push(const char *name, int rank);
void lockorder_taken(const char *name, int rank);
void lockorder_pop(const char *name, int rank);

struct thread;
/* The ranked locks t holds, lowest rank first (the order taken, but for
 * a trylock that took a lower rank), for `ps -w` and the hang
 * dump: "module_mutex,rtnl_mutex", "-" for none, "+N" past the depth
 * kept.  Reads another thread's list without a lock: its names through
 * fault-safe probes (kernel/debug/hangdump.h). */
void lockorder_format_held(const struct thread *t, char *buf, size_t size);

extern volatile int lockorder_catch;
extern volatile unsigned lockorder_caught;

#endif
