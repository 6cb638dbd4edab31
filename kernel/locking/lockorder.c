/*
 * The run-time lock order check (lockorder.h): each thread keeps the
 * ranked locks it holds, sorted by rank, so checking a lock about to be
 * taken is one compare with the top.
 */
#include <kernel/locking/lockorder.h>
#include <kernel/arch/cpu.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/debug/hangdump.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

volatile int lockorder_catch;
volatile unsigned lockorder_caught;

static struct thread *
checked_thread(void)
{
	struct cpu *c = this_cpu();

	if (c->irq_depth != 0 || panicking)
		return NULL;
	return c->curr;
}

/* The highest-ranked tracked lock t holds: the top of the sorted stack;
 * -1 for none. */
static inline int
top(const struct thread *t)
{
	return (t->nheld < LOCKORDER_DEPTH ? t->nheld : LOCKORDER_DEPTH) - 1;
}

static void __attribute__((noinline))
report(struct thread *t, const char *name, int rank)
{
	const char *worst = t->held[top(t)].name;
	int worst_rank = t->held[top(t)].rank;

	if (lockorder_catch) {
		__atomic_add_fetch(&lockorder_caught, 1, __ATOMIC_SEQ_CST);
		kprintf("lock order: %s (rank %d) taken while holding %s (rank "
		        "%d)\n",
		        name, rank, worst, worst_rank);
		return;
	}
	panic("lock order: %s (rank %d) taken while holding %s (rank %d)", name,
	      rank, worst, worst_rank);
}

/* One compare: the stack is sorted, so its top is the highest rank held. */
static inline void
check(struct thread *t, const char *name, int rank)
{
	int i = top(t);

	if (i >= 0 && t->held[i].rank > rank)
		report(t, name, rank);
}

void
lockorder_check(const char *name, int rank)
{
	struct thread *t = checked_thread();

	if (t != NULL)
		check(t, name, rank);
}

/*
 * Keep the stack sorted by rank, lowest first.  A lock taken in order
 * goes on top (nothing held ranks higher); only one taken out of order
 * without waiting (a trylock, or one lockorder_catch let through) moves
 * entries up to take its place.
 */
static inline void
push(struct thread *t, const char *name, int rank)
{
	int i = t->nheld;

	if (i < LOCKORDER_DEPTH) {
		for (; i > 0 && t->held[i - 1].rank > rank; i--)
			t->held[i] = t->held[i - 1];
		t->held[i].name = name;
		t->held[i].rank = rank;
	}
	t->nheld++;
}

void
lockorder_push(const char *name, int rank)
{
	struct thread *t = checked_thread();

	if (t != NULL)
		push(t, name, rank);
}

void
lockorder_taken(const char *name, int rank)
{
	struct thread *t = checked_thread();

	if (t == NULL)
		return;
	check(t, name, rank);
	push(t, name, rank);
}

void
lockorder_pop(const char *name, int rank)
{
	struct thread *t = checked_thread();
	int n;

	if (t == NULL || t->nheld == 0)
		return;
	n = t->nheld < LOCKORDER_DEPTH ? t->nheld : LOCKORDER_DEPTH;
	/* Usually the top one (the last taken); any one may go first. */
	if (t->nheld <= LOCKORDER_DEPTH && t->held[n - 1].name == name &&
	    t->held[n - 1].rank == rank) {
		t->nheld--;
		return;
	}
	for (int i = n - 1; i >= 0; i--) {
		if (t->held[i].name == name && t->held[i].rank == rank) {
			for (int j = i; j + 1 < n; j++)
				t->held[j] = t->held[j + 1];
			t->nheld--;
			return;
		}
	}
	if (t->nheld > LOCKORDER_DEPTH)
		t->nheld--; /* an untracked one past the depth */
}

void
lockorder_format_held(const struct thread *t, char *buf, size_t size)
{
	int n = READ_ONCE(t->nheld),
	    kept = n < LOCKORDER_DEPTH ? n : LOCKORDER_DEPTH;
	size_t len = 0;

	buf[0] = '\0';
	if (n <= 0) {
		strlcpy(buf, "-", size);
		return;
	}
	for (int i = 0; i < kept && len + 1 < size; i++) {
		char name[32];

		probe_strlcpy(name, READ_ONCE(t->held[i].name), sizeof(name));
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		                        i > 0 ? "," : "", name);
	}
	if (n > kept && len + 1 < size)
		snprintf(buf + len, size - len, ",+%d", n - kept);
}

EXPORT_SYMBOL(lockorder_catch);
EXPORT_SYMBOL(lockorder_caught);
