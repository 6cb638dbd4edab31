/*
 * How a thread and a CPU are described: one formatter each, shared by
 * `ps`, `cpus` and the hang dump (kernel/debug/hangdump.h), so the dump reads
 * like the commands a person already knows.
 *
 * The wait description reads another thread's fields with no lock of
 * that thread: the caller holds the thread list (t cannot be freed), and
 * every pointer met on the way (wait names, a mutex's owner) is read
 * through fault-safe probes, so a wait that ends meanwhile gives a stale
 * line, never a fault.
 */
#include <kernel/arch/cpu.h>
#include <kernel/debug/hangdump.h>
#include <kernel/arch/irq.h>
#include <kernel/locking/mutex.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>
#include <stdarg.h>

void
thread_format(const struct thread *t, char *buf, size_t size)
{
	snprintf(buf, size, "%4d %3d %-2s %10u %8u  %s", t->tid, t->cpu,
	         thread_state_name(t->state), (unsigned)t->nr_switches,
	         (unsigned)t->runtime_ms, t->name);
}

/* snprintf at buf + *len, keeping *len within the buffer (a line cut
 * short stays a valid string). */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* " owner=TID:NAME" of the mutex m, read without its lock. */
static void
append_owner(char *buf, size_t size, size_t *len, const struct mutex *m)
{
	uint32_t owner, tid;
	char name[sizeof(((struct thread *)0)->name)];

	if (probe_read32((const void *)&m->owner, &owner) != 0) {
		append(buf, size, len, " owner=?");
	} else if (owner == 0) {
		append(buf, size, len, " owner=none");
	} else if (probe_read32(&((const struct thread *)owner)->tid, &tid) !=
	           0) {
		append(buf, size, len, " owner=?");
	} else {
		probe_strlcpy(name, ((const struct thread *)owner)->name,
		              sizeof(name));
		append(buf, size, len, " owner=%d:%s", (int)tid, name);
	}
}

void
thread_format_wait(const struct thread *t, char *buf, size_t size)
{
	const char *kind = __atomic_load_n(&t->wait.kind, __ATOMIC_ACQUIRE);
	const char *queue = READ_ONCE(t->wait.queue);
	uint64_t deadline = READ_ONCE(t->wait.deadline);
	bool sleeping = READ_ONCE(t->state) == T_SLEEPING;
	char k[16], what[24], name[32], q[32], held[96];
	size_t len = 0;

	buf[0] = '\0';
	/* A running thread inside a noted wait (between two looks at its
	 * condition, say) is named with it: that is where it is stuck. */
	if (kind == NULL && !sleeping) {
		append(buf, size, &len, "wait=-");
		goto held;
	}
	if (kind == NULL)
		kind = queue != NULL ? "queue" : "sched";
	probe_strlcpy(k, kind, sizeof(k));
	probe_strlcpy(what, READ_ONCE(t->wait.what), sizeof(what));
	probe_strlcpy(name, READ_ONCE(t->wait.name), sizeof(name));
	probe_strlcpy(q, queue, sizeof(q));
	append(buf, size, &len, "wait=%s", k);
	if (strcmp(k, "queue") == 0)
		append(buf, size, &len, ":%s", q);
	else
		append(buf, size, &len, "%s%s%s%s", what[0] ? ":" : "", what,
		       name[0] ? ":" : "", name);
	if (!sleeping)
		goto held;
	if (strcmp(k, "mutex") == 0)
		append_owner(buf, size, &len, READ_ONCE(t->wait.obj));
	if (queue != NULL && strcmp(k, "queue") != 0)
		append(buf, size, &len, " queue=%s", q);
	if (deadline != 0) {
		uint64_t now = now_ms();

		append(buf, size, &len, " until=+%ums",
		       deadline > now ? (unsigned)(deadline - now) : 0);
	}
	append(buf, size, &len, " intr=%d", t->interruptible ? 1 : 0);
held:
	lockorder_format_held(t, held, sizeof(held));
	append(buf, size, &len, " sig=%d held=%s", t->sigpending ? 1 : 0, held);
}

const char *
cpu_state_name(enum cpu_state s)
{
	switch (s) {
	case CPU_OFFLINE:
		return "offline";
	case CPU_BOOTING:
		return "booting";
	case CPU_ONLINE:
		return "online";
	case CPU_STOPPED:
		return "stopped";
	}
	return "?";
}

void
cpu_format(const struct cpu *c, const char *curr, char *buf, size_t size)
{
	snprintf(buf, size, "%3d %4d %-8s %-12s %8u %10u %8u %9llu", c->id,
	         c->apic_id, cpu_state_name(c->state), curr,
	         (unsigned)c->nr_irqs, (unsigned)c->nr_switches,
	         (unsigned)c->nr_ipis,
	         tsc_per_ms ? c->idle_tsc / tsc_per_ms : 0ull);
}
