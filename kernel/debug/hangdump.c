/*
 * The hang dump (hangdump.h).
 *
 * Why reading without locks is safe enough here: the dump runs with
 * interrupts off inside an RCU read-side section, so no grace period can
 * end while it runs, and everything that is freed only after one
 * (modules, devices) stays readable; thread structures and stacks are
 * freed only under the thread-list lock, which the thread section holds
 * (tried for a bounded time, "(busy)" otherwise).  What another CPU may
 * change meanwhile (a thread's state, its wait, a mutex's owner) can
 * come out stale or torn, which a diagnostic can live with; pointers
 * into objects whose lifetime the dump does not pin (wait names, a
 * mutex's owner, stack frames) are read through fault-safe probes
 * (probe.S), so a stale one gives "?" and never a fault.
 */
#include <kernel/debug/hangdump.h>
#include <kernel/console/args.h>
#include <kernel/sched/clock.h>
#include <kernel/console/console.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/irq.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <stdarg.h>

/* How long the dump tries a lock before it calls it busy: long enough
 * for any holder that is not stuck (they hold these for microseconds),
 * short enough that a stuck one delays the dump unnoticeably. */
#define LOCK_TRY_MS 200
/* Frames of each switched-out thread's stack. */
#define STACK_FRAMES 10

extern const struct hangdump_part __hangdump_start[], __hangdump_end[];

static volatile int dumping;

size_t
probe_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return 0;
	for (; src != NULL && n + 1 < size; n++) {
		uintptr_t a = (uintptr_t)(src + n);
		uint32_t w;

		/* Aligned words: one never straddles two pages. */
		if (probe_read32((const void *)(a & ~3u), &w) != 0) {
			strlcpy(dst, "?", size);
			return 1;
		}
		dst[n] = (char)(w >> (8 * (a & 3)));
		if (dst[n] == '\0')
			return n;
	}
	dst[n] = '\0';
	return n;
}

void
hangdump_printf(const char *fmt, ...)
{
	char buf[320];
	size_t n = strlcpy(buf, HANGDUMP_PREFIX, sizeof(buf));
	va_list ap;
	int m;

	/* Only from inside hangdump(): it owns the output and has
	 * interrupts off (the parts' contract, hangdump.h). */
	ASSERT(READ_ONCE(dumping) && !(read_eflags() & EFLAGS_IF));
	va_start(ap, fmt);
	m = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += (size_t)m < sizeof(buf) - n - 1 ? (size_t)m : sizeof(buf) - n - 2;
	buf[n++] = '\n';
	console_write_unlocked(buf, n);
}

static void
dump_cpus(int me)
{
	for (int i = 0; i < MAX_CPUS; i++) {
		const struct cpu *c = &cpus[i];
		const struct thread *curr = READ_ONCE(c->curr);
		char name[sizeof(curr->name)], line[96], rq[16];
		int rq_owner = READ_ONCE(c->rq.lock.owner_cpu);

		if (c->state == CPU_OFFLINE)
			continue;
		probe_strlcpy(name, curr != NULL ? curr->name : NULL,
		              sizeof(name));
		cpu_format(c, name, line, sizeof(line));
		if (rq_owner < 0)
			strlcpy(rq, "free", sizeof(rq));
		else
			snprintf(rq, sizeof(rq), "cpu%d", rq_owner);
		hangdump_printf("cpu %s irq_depth=%d spinlocks=%d "
		                "preempt_off=%d need_resched=%d runnable=%u "
		                "rq_lock=%s qs=%u%s",
		                line, c->irq_depth, c->locks_held,
		                c->preempt_off, c->need_resched,
		                c->rq.nr_running, rq, (unsigned)c->qs_seq,
		                i == me ? " (dumping)" : "");
	}
}

static void
dump_frame(uintptr_t eip, void *arg)
{
	char buf[120];

	(void)arg;
	backtrace_format_frame(eip, buf, sizeof(buf));
	hangdump_printf("%s", buf);
}

/* A switched-out thread's stack, from the frame context_switch saved
 * (switch.S: edi, esi, ebx, ebp, then the return address). */
static void
dump_stack(const struct thread *t, int me)
{
	uint32_t ebp, ret;
	uintptr_t bad;

	if (t->state == T_DEAD)
		return;
	if (READ_ONCE(cpus[t->cpu].curr) == t) {
		if (t->cpu != me) {
			hangdump_printf("    (running on cpu %d)", t->cpu);
			return;
		}
		/* Interrupted by (or running) the dump: our own frames
		 * lead into it. */
		bad = backtrace_walk((uintptr_t)__builtin_return_address(0) - 1,
		                     *(uint32_t *)read_ebp(), 2 * STACK_FRAMES,
		                     dump_frame, NULL);
	} else if (probe_read32((const void *)(t->esp + 12), &ebp) != 0 ||
	           probe_read32((const void *)(t->esp + 16), &ret) != 0) {
		hangdump_printf("    (saved stack %08x unreadable)",
		                (unsigned)t->esp);
		return;
	} else {
		bad = backtrace_walk(ret - 1, ebp, STACK_FRAMES, dump_frame,
		                     NULL);
	}
	if (bad != 0)
		hangdump_printf("    (frame pointer %08x unreadable)",
		                (unsigned)bad);
}

struct thread_walk {
	int me, n;
};

static void
dump_thread(struct thread *t, void *arg)
{
	struct thread_walk *w = arg;
	char line[96], wait[256];

	thread_format(t, line, sizeof(line));
	thread_format_wait(t, wait, sizeof(wait));
	hangdump_printf("thread %s  %s", line, wait);
	/* An idle thread's stack says nothing. */
	if (t != cpus[t->cpu].idle)
		dump_stack(t, w->me);
	w->n++;
}

void
hangdump(const char *why)
{
	uint32_t f = local_irq_save();
	struct thread_walk w = {.me = cpu_id(), .n = 0};
	uint64_t ms = now_ms();
	bool locked, threads;

	if (panicking || __atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE)) {
		local_irq_restore(f); /* a dump is running: it is enough */
		return;
	}
	/* The thread list first: `ps` prints while it holds it, so with
	 * the console ours it could not let go. */
	threads = thread_list_trylock(LOCK_TRY_MS);
	locked = console_out_trylock(LOCK_TRY_MS);
	rcu_read_lock();
	if (console_mid_line()) /* after a prompt: begin on a line of its own */
		console_write_unlocked("\n", 1);
	hangdump_printf("begin (%s, cpu %d, up %u.%03u s)%s", why, w.me,
	                (unsigned)(ms / 1000), (unsigned)(ms % 1000),
	                locked ? "" : " (console busy: written unlocked)");
	dump_cpus(w.me);
	hangdump_printf("threads:  TID CPU ST   SWITCHES   CPU(ms) NAME  WAIT");
	if (threads)
		for_each_thread_locked(dump_thread, &w);
	else
		hangdump_printf("threads: (busy: the thread list lock stayed "
		                "taken for %u ms)",
		                LOCK_TRY_MS);
	for (const struct hangdump_part *p = __hangdump_start;
	     p < __hangdump_end; p++)
		p->fn();
	hangdump_printf("end (%d threads, %u ms)", w.n,
	                (unsigned)(now_ms() - ms));
	rcu_read_unlock();
	if (locked)
		console_out_unlock();
	if (threads)
		thread_list_unlock();
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
	local_irq_restore(f);
}

static int
cmd_hangdump(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "hangdump", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	hangdump("command");
	return 0;
}
COMMAND(hangdump, "hangdump",
        "print the hang dump (threads, waits, held locks, CPUs, modules); "
        "Ctrl-T on the serial line prints it even while a command is stuck",
        cmd_hangdump);
