/*
 * The reference timeline's ring (kernel/debug/trace.h): claim, write,
 * dump.  The format of the dump is the contract with
 * build/host/modref-trace (tests/trace/modref-trace.c, docs/trace.md):
 *
 *   trace: begin events=N lost=L cpus=C
 *   trace: e SEQ NS CPU TID KIND NAME OBJ HOLDER TAG DELTA COUNT SITE
 *   trace: thread TID NAME
 *   trace: count dev|mod NAME OBJ COUNT      (not after a panic)
 *   trace: end
 *
 * NS is nanoseconds since boot; OBJ and HOLDER are addresses (HOLDER 0:
 * an untracked reference); TAG is "-" when there is none; SITE, last
 * because a symbol may carry a note with spaces, is symbolised when
 * printed (unloaded modules through the graveyard).
 */
#include <kernel/debug/trace.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/smp.h>
#include <kernel/bootparam.h>
#include <kernel/console/printk.h>
#include <kernel/debug/ksyms.h>
#include <kernel/initcall.h>
#include <kernel/lib/string.h>
#include <kernel/sched/clock.h>
#include <kernel/sched/sched.h>

#define TRACE_NAME      16
#define TRACE_TAG       24
#define TRACE_SNAPSHOTS 4
#define TRACE_THREADS   256 /* names of threads seen, by tid modulo */

struct trace_event {
	uint64_t tsc;
	uint32_t seq; /* claimed index + 1, stored last */
	uint16_t tid;
	uint8_t cpu, kind;
	int32_t delta, count;
	uintptr_t obj, holder, site;
	char name[TRACE_NAME];
	char tag[TRACE_TAG];
};

struct trace_thread {
	int tid; /* 0: free */
	char name[24];
};

volatile int trace_on;
static struct trace_event ring[TRACE_EVENTS];
static uint32_t head;       /* next index to claim */
static volatile int inside; /* writers between their test and their store */
static struct trace_thread threads[TRACE_THREADS];
static void (*snapshots[TRACE_SNAPSHOTS])(bool dump);

static const char *const kind_names[TRACE_NKINDS] = {
    "dev-hold", "dev-put",   "dev-phase", "mod-get",
    "mod-put",  "mod-phase", "sock-phase"};

static int trace_boot; /* trace=on: record from boot */
BOOTPARAM_ENUM(trace, trace_boot, "off|on",
               "record the reference timeline from boot (`trace dump` "
               "prints it; a panic and a failed stress run print it too)",
               0);

void
trace_register_snapshot(void (*fn)(bool dump))
{
	for (int i = 0; i < TRACE_SNAPSHOTS; i++)
		if (snapshots[i] == NULL || snapshots[i] == fn) {
			snapshots[i] = fn;
			return;
		}
	pr_warn("trace: no room for another snapshot hook\n");
}

/* Copy s into a fixed field, spaces made '_' (the dump splits on them). */
static void
copy_word(char *dst, size_t size, const char *s)
{
	size_t i = 0;

	if (s != NULL)
		for (; s[i] != '\0' && i + 1 < size; i++)
			dst[i] = s[i] == ' ' ? '_' : s[i];
	dst[i] = '\0';
}

static void
note_thread(const struct thread *t)
{
	struct trace_thread *s;

	if (t == NULL)
		return;
	s = &threads[(unsigned)t->tid % TRACE_THREADS];
	if (s->tid == t->tid)
		return;
	copy_word(s->name, sizeof(s->name), t->name);
	s->tid = t->tid;
}

void
trace_record(enum trace_kind kind, const void *obj, const char *name,
             const void *holder, const char *tag, uintptr_t site, int delta,
             int count)
{
	struct trace_event *e;
	uint32_t i;

	__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&trace_on, __ATOMIC_SEQ_CST))
		goto out;
	i = __atomic_fetch_add(&head, 1, __ATOMIC_RELAXED);
	e = &ring[i % TRACE_EVENTS];
	__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
	e->tsc = clock_stamp();
	e->cpu = (uint8_t)cpu_id();
	e->tid = current != NULL ? (uint16_t)current->tid : 0;
	e->kind = (uint8_t)kind;
	e->delta = delta;
	e->count = count;
	e->obj = (uintptr_t)obj;
	e->holder = (uintptr_t)holder;
	e->site = site;
	copy_word(e->name, sizeof(e->name), name);
	copy_word(e->tag, sizeof(e->tag), tag);
	note_thread(current);
	__atomic_store_n(&e->seq, i + 1, __ATOMIC_RELEASE);
out:
	__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
}

void
trace_stop(void)
{
	__atomic_store_n(&trace_on, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&inside, __ATOMIC_SEQ_CST) != 0)
		thread_yield();
}

void
trace_start(void)
{
	trace_stop();
	memset(ring, 0, sizeof(ring));
	memset(threads, 0, sizeof(threads));
	__atomic_store_n(&head, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&trace_on, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < TRACE_SNAPSHOTS && snapshots[i] != NULL; i++)
		snapshots[i](false);
}

void
trace_stats(unsigned *events, unsigned *lost)
{
	uint32_t n = __atomic_load_n(&head, __ATOMIC_RELAXED);

	*events = n < TRACE_EVENTS ? n : TRACE_EVENTS;
	*lost = n > TRACE_EVENTS ? n - TRACE_EVENTS : 0;
}

static void
print_event(const struct trace_event *e)
{
	char site[96];
	uint64_t ns = tsc_to_ns(e->tsc);

	if (e->site != 0)
		ksym_format(e->site, site, sizeof(site));
	else
		strlcpy(site, "-", sizeof(site));
	kprintf("trace: e %u %u%09u %u %u %s %s %08x %08x %s %d %d %s\n",
	        (unsigned)e->seq, (unsigned)(ns / 1000000000u),
	        (unsigned)(ns % 1000000000u), (unsigned)e->cpu,
	        (unsigned)e->tid, kind_names[e->kind],
	        e->name[0] ? e->name : "-", (unsigned)e->obj,
	        (unsigned)e->holder, e->tag[0] ? e->tag : "-", (int)e->delta,
	        (int)e->count, site);
}

static void
print_ring(bool counts)
{
	unsigned events, lost;
	uint32_t n = __atomic_load_n(&head, __ATOMIC_ACQUIRE);

	trace_stats(&events, &lost);
	kprintf("trace: begin events=%u lost=%u cpus=%d\n", events, lost,
	        nr_online_cpus());
	for (uint32_t i = n - events; i != n; i++) {
		const struct trace_event *e = &ring[i % TRACE_EVENTS];
		/* a writer halted mid-event (panic) left it unmarked */
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == i + 1)
			print_event(e);
	}
	for (int i = 0; i < TRACE_THREADS; i++)
		if (threads[i].tid != 0)
			kprintf("trace: thread %d %s\n", threads[i].tid,
			        threads[i].name);
	for (int i = 0; counts && i < TRACE_SNAPSHOTS && snapshots[i] != NULL;
	     i++)
		snapshots[i](true);
	kprintf("trace: end\n");
}

void
trace_dump(void)
{
	trace_stop();
	print_ring(true);
}

void
trace_dump_panic(void)
{
	__atomic_store_n(&trace_on, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&head, __ATOMIC_ACQUIRE) != 0)
		print_ring(false);
}

/* trace=on: before the buses are scanned and drivers loaded (a hook
 * registered later has nothing to report at this point anyway). */
static void
trace_boot_start(void)
{
	if (trace_boot)
		trace_start();
}
core_initcall(trace_boot_start);
