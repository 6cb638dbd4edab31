/*
 * How a thread and a CPU are described: one formatter each, shared by
 * `ps`, `cpus` and the hang dump (kernel/hangdump.h), so the dump reads
 * like the commands a person already knows.
 *
 * The wait description reads another thread's fields with no lock of
 * that thread: the caller holds the thread list (t cannot be freed), and
 * every pointer met on the way (wait names, a mutex's owner) is read
 * through fault-safe probes, so a wait that ends meanwhile gives a stale
 * line, never a fault.
 */
#include <kernel/cpu.h>
#include <kernel/hangdump.h>
#include <kernel/irq.h>
#include <kernel/mutex.h>
#include <kernel/sched.h>
#include <kernel/string.h>
#include <kernel/timer.h>
#include <kernel/x86.h>

void
thread_format(const struct thread *t, char *buf, size_t size)
{
	snprintf(buf, size, "%4d %3d %-2s %10u %8u  %s", t->tid, t->cpu,
	         thread_state_name(t->state), (unsigned)t->nr_switches,
	         (unsigned)t->runtime_ms, t->name);
}

/* " owner=TID:NAME" of the mutex m, read without its lock. */
static size_t
format_owner(const struct mutex *m, char *buf, size_t size)
{
	uint32_t owner, tid;
	char name[sizeof(((struct thread *)0)->name)];

	if (probe_read32((const void *)&m->owner, &owner) != 0)
		return (size_t)snprintf(buf, size, " owner=?");
	if (owner == 0)
		return (size_t)snprintf(buf, size, " owner=none");
	if (probe_read32(&((const struct thread *)owner)->tid, &tid) != 0)
		return (size_t)snprintf(buf, size, " owner=?");
	probe_strlcpy(name, ((const struct thread *)owner)->name, sizeof(name));
	return (size_t)snprintf(buf, size, " owner=%d:%s", (int)tid, name);
}

void
thread_format_wait(const struct thread *t, char *buf, size_t size)
{
	const char *kind = __atomic_load_n(&t->wait.kind, __ATOMIC_ACQUIRE);
	const char *queue = READ_ONCE(t->wait.queue);
	uint64_t deadline = READ_ONCE(t->wait.deadline);
	char k[16], what[24], name[32], q[32], held[96];
	size_t len;

	bool sleeping = t->state == T_SLEEPING;

	/* A running thread inside a noted wait (between two looks at its
	 * condition, say) is named with it: that is where it is stuck. */
	if (kind == NULL && !sleeping) {
		len = (size_t)snprintf(buf, size, "wait=-");
		goto held;
	}
	if (kind == NULL)
		kind = queue != NULL ? "queue" : "sched";
	probe_strlcpy(k, kind, sizeof(k));
	probe_strlcpy(what, READ_ONCE(t->wait.what), sizeof(what));
	probe_strlcpy(name, READ_ONCE(t->wait.name), sizeof(name));
	probe_strlcpy(q, queue, sizeof(q));
	len = (size_t)snprintf(buf, size, "wait=%s", k);
	if (strcmp(k, "queue") == 0)
		len += (size_t)snprintf(buf + len, size - len, ":%s", q);
	else if (what[0] != '\0' || name[0] != '\0')
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s",
		                        what[0] ? ":" : "", what,
		                        name[0] ? ":" : "", name);
	if (!sleeping)
		goto held;
	if (strcmp(k, "mutex") == 0 && len < size)
		len +=
		    format_owner(READ_ONCE(t->wait.obj), buf + len, size - len);
	if (queue != NULL && strcmp(k, "queue") != 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, " queue=%s", q);
	if (deadline != 0 && len < size) {
		uint64_t now = now_ms();
		unsigned left = deadline > now ? (unsigned)(deadline - now) : 0;

		len += (size_t)snprintf(buf + len, size - len, " until=+%ums",
		                        left);
	}
	if (len < size)
		len += (size_t)snprintf(buf + len, size - len, " intr=%d",
		                        t->interruptible ? 1 : 0);
held:
	if (len < size)
		len += (size_t)snprintf(buf + len, size - len, " sig=%d",
		                        t->sigpending ? 1 : 0);
	if (len < size) {
		lockorder_format_held(t, held, sizeof(held));
		snprintf(buf + len, size - len, " held=%s", held);
	}
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
	snprintf(buf, size, "%3d %4d %-8s %-12s %8u %10u %8u", c->id,
	         c->apic_id, cpu_state_name(c->state), curr,
	         (unsigned)c->nr_irqs, (unsigned)c->nr_switches,
	         (unsigned)c->nr_ipis);
}
