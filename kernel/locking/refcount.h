/*
 * One reference count type, for every counted object (modules, devices,
 * neighbours, routes, sockets, DHCP clients).  Only this code touches a
 * count; what is wrong with one is reported here, in one form:
 *
 *   refcount: neighbour: increment from zero (a use after the last put)
 *   refcount: dst: decrement below zero (-1): put one too many
 *   refcount: socket: saturated at 1073741823: leaked for good
 *
 * with the caller's backtrace.  A saturated count stays saturated (the
 * object leaks rather than being freed under a holder); a decrement
 * below zero is undone where the caller can still own the object
 * (refcount_dec_and_test), and only reported where it cannot
 * (refcount_dec_return: the object may be gone).
 *
 * Memory ordering, stated once: an increment is relaxed (whoever takes a
 * reference reaches the object through something that holds one, which
 * orders it already); a decrement is a release (what this holder did to
 * the object happens before the count drops); the decrement that reaches
 * zero is followed by an acquire fence (the one who frees sees every
 * holder's writes).  Reads are sequentially consistent, and so is
 * refcount_inc_full: a try-hold that counts itself in and then checks
 * the object's state, against an owner that publishes the state and then
 * reads the count, needs store-to-load order on both sides (either the
 * owner sees the hold or the holder sees the state).  On x86 neither
 * costs an instruction more.
 *
 * Counts that are kept per CPU first (modref=percpu, devref=percpu) are
 * kernel/locking/pcpu_counter.h's; these are the one-atomic ones.
 */
#ifndef KERNEL_REFCOUNT_H
#define KERNEL_REFCOUNT_H

#include <stdbool.h>

typedef struct refcount {
	volatile int n;
} refcount_t;

#define REFCOUNT_SATURATED (0x7fffffff / 2)

/* Out of line: the report (with the caller's backtrace) and its count. */
void refcount_report(const char *name, const char *what, int n);
extern unsigned refcount_reports;

static inline void
refcount_set(refcount_t *r, int n)
{
	__atomic_store_n(&r->n, n, __ATOMIC_RELEASE);
}

/* For a count kept in parts (the shared part of a per-CPU counter,
 * kernel/locking/pcpu_counter.h): add delta, either sign, unchecked - a
 * part alone may be below zero.  Ordered like every add there. */
static inline void
refcount_add_parts(refcount_t *r, int delta)
{
	__atomic_add_fetch(&r->n, delta, __ATOMIC_SEQ_CST);
}

static inline int
refcount_read(const refcount_t *r)
{
	return __atomic_load_n(&r->n, __ATOMIC_SEQ_CST);
}

/* Out of line: an increment found old out of its range (saturated, or
 * from zero or below): a saturated count is kept saturated; reported. */
void refcount_inc_report(refcount_t *r, const char *name, int old);

/* Another reference while holding one: never from zero. */
static inline void
refcount_inc(refcount_t *r, const char *name)
{
	int old = __atomic_fetch_add(&r->n, 1, __ATOMIC_RELAXED);

	if (__builtin_expect(old <= 0 || old >= REFCOUNT_SATURATED, 0))
		refcount_inc_report(r, name, old);
}

/* refcount_inc ordered before the caller's next load (above), for a
 * count whose base comes later than its first holds (a device's: 0
 * until it is registered), so from zero is allowed. */
static inline void
refcount_inc_full(refcount_t *r, const char *name)
{
	int old = __atomic_fetch_add(&r->n, 1, __ATOMIC_SEQ_CST);

	if (__builtin_expect(old < 0 || old >= REFCOUNT_SATURATED, 0))
		refcount_inc_report(r, name, old);
}

/* A reference unless the count is zero (the object is on its way out):
 * false then, and nothing taken. */
static inline bool
refcount_inc_not_zero(refcount_t *r, const char *name)
{
	int old = __atomic_load_n(&r->n, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return false;
		if (__builtin_expect(old >= REFCOUNT_SATURATED, 0)) {
			refcount_report(name, "saturated: leaked for good",
			                old);
			return true;
		}
	} while (!__atomic_compare_exchange_n(
	    &r->n, &old, old + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/* Drop a reference; true if it was the last (the caller frees).  One
 * too many is reported and undone: the count was not ours to drop. */
static inline bool
refcount_dec_and_test(refcount_t *r, const char *name)
{
	int old = __atomic_fetch_sub(&r->n, 1, __ATOMIC_RELEASE);

	if (old == 1) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return true;
	}
	if (__builtin_expect(old <= 0 || old >= REFCOUNT_SATURATED, 0)) {
		__atomic_fetch_add(&r->n, 1, __ATOMIC_RELAXED);
		if (old <= 0)
			refcount_report(
			    name, "decrement below zero: put one too many",
			    old - 1);
	}
	return false;
}

/* Drop a reference and return what is left (a count with a base that
 * its owner drops last, a device's).  Below zero is reported, not
 * undone: the object may already be gone, and r with it, so the report
 * reads nothing through r. */
static inline int
refcount_dec_return(refcount_t *r, const char *name)
{
	int n = __atomic_sub_fetch(&r->n, 1, __ATOMIC_RELEASE);

	if (n == 0)
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	else if (__builtin_expect(n < 0, 0))
		refcount_report(name, "decrement below zero: put one too many",
		                n);
	return n;
}

/* Drop a reference unless it is the last (a biased count: the last is
 * the owner's bias, not a holder's).  false: nothing dropped, reported. */
static inline bool
refcount_dec_not_one(refcount_t *r, const char *name)
{
	int old = __atomic_load_n(&r->n, __ATOMIC_RELAXED);

	do {
		if (__builtin_expect(old <= 1, 0)) {
			refcount_report(
			    name, "decrement of its base: put one too many",
			    old - 1);
			return false;
		}
	} while (!__atomic_compare_exchange_n(
	    &r->n, &old, old - 1, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	return true;
}

/* 1 -> 0 in one step, or nothing: the owner's bias is the only
 * reference left, and from now on no refcount_inc_not_zero succeeds. */
static inline bool
refcount_dec_if_one(refcount_t *r)
{
	int one = 1;

	return __atomic_compare_exchange_n(&r->n, &one, 0, false,
	                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

#endif
