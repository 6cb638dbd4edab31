/*
 * The invariant checker registry (invariant.h).  Built-in checkers live
 * in the .invariants section; a module's are on a list, and each is run
 * with a reference on its owner (the owner rule), so an rmmod cannot
 * unmap a checker while it runs.
 */
#include <kernel/debug/invariant.h>
#include <kernel/bootparam.h>
#include <kernel/console/printk.h>
#include <kernel/locking/spinlock.h>

extern struct invariant __invariants_start[], __invariants_end[];
static LIST_HEAD(dynamic_invariants);
static DEFINE_SPINLOCK(invariants_lock);

int debug_invariants;
BOOTPARAM_BOOL(debug_invariants, debug_invariants,
               "subsystems check their own tables on every change and "
               "panic at the first broken rule",
               1);

void
__invariant_register(struct invariant *inv, struct module *owner)
{
	uint32_t f = spin_lock_irqsave(&invariants_lock);

	inv->owner = owner;
	list_add_tail(&inv->link, &dynamic_invariants);
	spin_unlock_irqrestore(&invariants_lock, f);
}

void
invariant_unregister(struct invariant *inv)
{
	uint32_t f = spin_lock_irqsave(&invariants_lock);

	list_del_init(&inv->link);
	spin_unlock_irqrestore(&invariants_lock, f);
}

static int
run_one(const struct invariant *inv, const char *when)
{
	char buf[INVARIANT_WHY_MAX];
	const char *why;

	buf[0] = '\0';
	why = inv->check(buf, sizeof(buf));
	if (why == NULL)
		return 0;
	printk(LOG_ERR, "invariant: %s: %s (%s)\n", inv->name, why, when);
	return 1;
}

/* The n-th registered checker with a reference on its owner, or NULL.
 * (Walked by index so the lock is not held while a checker runs.) */
static struct invariant *
dynamic_get(int n)
{
	struct invariant *inv;
	uint32_t f = spin_lock_irqsave(&invariants_lock);
	int i = 0;

	list_for_each_entry(inv, &dynamic_invariants, link) {
		if (i++ != n)
			continue;
		if (!try_module_get(inv->owner))
			inv = NULL; /* going: its exit unregisters it */
		spin_unlock_irqrestore(&invariants_lock, f);
		return inv != NULL ? inv : dynamic_get(n + 1);
	}
	spin_unlock_irqrestore(&invariants_lock, f);
	return NULL;
}

int
invariants_check(const char *when)
{
	struct invariant *inv;
	int bad = 0;

	for (inv = __invariants_start; inv < __invariants_end; inv++)
		bad += run_one(inv, when);
	for (int i = 0; (inv = dynamic_get(i)) != NULL; i++) {
		bad += run_one(inv, when);
		module_put(inv->owner);
	}
	return bad;
}
