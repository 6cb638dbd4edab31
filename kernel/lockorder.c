/*
 * The run-time lock order check (lockorder.h): each thread keeps the
 * ranked locks it holds, in the order taken.
 */
#include <kernel/lockorder.h>
#include <kernel/cpu.h>
#include <kernel/module.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/hangdump.h>
#include <kernel/string.h>
#include <kernel/x86.h>

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

static void
check(struct thread *t, const char *name, int rank)
{
	int worst = -1;

	for (int i = 0; i < t->nheld && i < LOCKORDER_DEPTH; i++)
		if (t->held[i].rank > rank &&
		    (worst < 0 || t->held[i].rank > t->held[worst].rank))
			worst = i;
	if (worst < 0)
		return;
	if (lockorder_catch) {
		__atomic_add_fetch(&lockorder_caught, 1, __ATOMIC_SEQ_CST);
		kprintf("lock order: %s (rank %d) taken while holding %s (rank "
		        "%d)\n",
		        name, rank, t->held[worst].name, t->held[worst].rank);
		return;
	}
	panic("lock order: %s (rank %d) taken while holding %s (rank %d)", name,
	      rank, t->held[worst].name, t->held[worst].rank);
}

void
lockorder_check(const char *name, int rank)
{
	struct thread *t = checked_thread();

	if (t != NULL)
		check(t, name, rank);
}

static void
push(struct thread *t, const char *name, int rank)
{
	if (t->nheld < LOCKORDER_DEPTH) {
		t->held[t->nheld].name = name;
		t->held[t->nheld].rank = rank;
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
	/* Usually the last one taken; any one may go first. */
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
