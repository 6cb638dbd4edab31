/*
 * Helpers shared by the core suites (see ktest_util.h).
 */
#include <kernel/ktest/ktest_util.h>
#include <kernel/arch/cpu.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/ktest.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/arch/x86.h>

long
kt_settle(long (*fn)(void), unsigned quiet_ms, unsigned timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	long v = fn();
	uint64_t since = now_ms();

	while (now_ms() < end && now_ms() - since < quiet_ms) {
		long n;

		msleep(2);
		n = fn();
		if (n != v) {
			v = n;
			since = now_ms();
		}
	}
	return v;
}

long
kt_pages_free(void)
{
	return (long)pages_free();
}

long
kt_nr_threads(void)
{
	return nr_threads();
}

struct shared_hdr {
	int refs;
	int pad[3]; /* keep the payload 16-byte aligned like kmalloc's */
};

void *
kt_shared_alloc(size_t size, int refs)
{
	struct shared_hdr *h = kzalloc(sizeof(*h) + size, "ktest");

	if (h == NULL)
		return NULL;
	h->refs = refs;
	return h + 1;
}

void
kt_shared_get(void *p)
{
	struct shared_hdr *h = (struct shared_hdr *)p - 1;

	__atomic_fetch_add(&h->refs, 1, __ATOMIC_ACQ_REL);
}

void
kt_shared_put(void *p)
{
	struct shared_hdr *h = (struct shared_hdr *)p - 1;

	if (__atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(h);
}

static void
async_thread(void *p)
{
	struct kt_async *a = p;

	a->result = a->fn(a->arg);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	kt_shared_put(a);
	thread_exit();
}

struct kt_async *
kt_async_start(const char *name, int (*fn)(void *), void *arg)
{
	return kt_async_start_on(name, fn, arg, -1);
}

struct kt_async *
kt_async_start_on(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	struct kt_async *a = kt_shared_alloc(sizeof(*a), 2);

	if (a == NULL)
		return NULL;
	a->fn = fn;
	a->arg = arg;
	a->thread = thread_create(name, async_thread, a, cpu);
	if (a->thread == NULL) {
		kt_shared_put(a);
		kt_shared_put(a);
		return NULL;
	}
	return a;
}

int
kt_other_cpu(void)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && READ_ONCE(cpus[i].state) == CPU_ONLINE)
			return i;
	return -1;
}

int
kt_online_cpus(void)
{
	int n = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		n += READ_ONCE(cpus[i].state) == CPU_ONLINE;
	return n;
}

void
kt_expect_slots_own_lines(struct ktest *t, const struct pcpu_slot *s,
                          const char *what)
{
	for (int i = 1; i < MAX_CPUS; i++) {
		uintptr_t a = (uintptr_t)&s[i - 1].n, b = (uintptr_t)&s[i].n;

		KEXPECT_MSG(
		    t, b - a >= CACHE_LINE && a / CACHE_LINE != b / CACHE_LINE,
		    "%s: slots %d and %d at %#x and %#x", what, i - 1, i,
		    (unsigned)a, (unsigned)b);
	}
}
