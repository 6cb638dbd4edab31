/*
 * The reference count's one report (kernel/locking/refcount.h).
 */
#include <kernel/locking/refcount.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>

unsigned refcount_reports;

void
refcount_report(const char *name, const char *what, int n)
{
	__atomic_add_fetch(&refcount_reports, 1, __ATOMIC_RELAXED);
	pr_err("refcount: %s: %s (%d)\n", name, what, n);
	backtrace();
}

void
refcount_inc_report(refcount_t *r, const char *name, int old)
{
	if (old >= REFCOUNT_SATURATED) {
		__atomic_store_n(&r->n, REFCOUNT_SATURATED, __ATOMIC_RELAXED);
		refcount_report(name, "saturated: leaked for good",
		                REFCOUNT_SATURATED);
	} else if (old == 0) {
		refcount_report(
		    name, "increment from zero (a use after the last put)",
		    old);
	} else {
		refcount_report(name,
		                "increment from below zero (a put one too many "
		                "before it)",
		                old);
	}
}
