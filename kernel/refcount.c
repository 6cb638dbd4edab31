/*
 * The reference count's one report (kernel/refcount.h).
 */
#include <kernel/refcount.h>
#include <kernel/panic.h>
#include <kernel/printk.h>

unsigned refcount_reports;

void
refcount_report(const char *name, const char *what, int n)
{
	__atomic_add_fetch(&refcount_reports, 1, __ATOMIC_RELAXED);
	pr_err("refcount: %s: %s (%d)\n", name, what, n);
	backtrace();
}
