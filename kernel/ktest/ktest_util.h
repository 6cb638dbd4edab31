/*
 * Helpers shared by the core suites (the files of kernel/ktest).
 *
 * Tests must not depend on timing beyond generous bounds (QEMU TCG on a
 * busy host is slow and jittery), so everything that happens "soon" is
 * waited for with a bound, never with a fixed sleep.  Helper threads get
 * their shared state from kt_shared_alloc(): the last user frees it, so a
 * test that gives up on a stuck helper can return without leaving it a
 * pointer into a dead stack frame.
 */
#ifndef KERNEL_KTEST_KTEST_UTIL_H
#define KERNEL_KTEST_KTEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/mm/memtag.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>

/* Generous bounds for "should happen soon" on a slow emulator. */
#define KT_SOON_MS 5000

/* Re-evaluate cond every 2 ms until it holds or ms milliseconds pass;
 * evaluates to its last value.  For state the kernel changes with no wait
 * queue to sleep on (a stack freed after a thread switched away). */
#define kt_poll(cond, ms)                                                      \
	({                                                                     \
		uint64_t __kt_end = now_ms() + (ms);                           \
		bool __kt_ok;                                                  \
		while (!(__kt_ok = (cond)) && now_ms() < __kt_end)             \
			msleep(2);                                             \
		__kt_ok;                                                       \
	})

/* Wait until fn() keeps one value for quiet_ms (at most timeout_ms) and
 * return it: a baseline taken while the previous case's thread is still
 * exiting on another CPU would be off by its stack. */
long kt_settle(long (*fn)(void), unsigned quiet_ms, unsigned timeout_ms);
long kt_pages_free(void);
long kt_nr_threads(void);

/* Zeroed shared state with refs references; kt_shared_put frees it when
 * the last one is dropped. */
void *kt_shared_alloc(size_t size, int refs);
void kt_shared_get(void *p);
void kt_shared_put(void *p);

/* fn(arg) in a thread of its own, for a case that must act while it
 * runs (a second lifetime operation, a Ctrl-C).  kt_async_start returns
 * NULL if the thread cannot be made; the case reads result once done is
 * set (kt_poll(READ_ONCE(a->done), ...)) and drops its hold with
 * kt_shared_put(a), also when it gives up waiting. */
struct kt_async {
	int (*fn)(void *arg);
	void *arg;
	struct thread *thread;
	volatile int result;
	volatile int done;
};
struct kt_async *kt_async_start(const char *name, int (*fn)(void *), void *arg);
/* The same on CPU cpu (-1: any, as kt_async_start). */
struct kt_async *kt_async_start_on(const char *name, int (*fn)(void *),
                                   void *arg, int cpu);

/* An online CPU other than the caller's, or -1 on a uniprocessor. */
int kt_other_cpu(void);
int kt_online_cpus(void);

struct ktest;
struct pcpu_slot;
/* Expect each of the MAX_CPUS slots in a cache line of its own (>= 64
 * bytes from its neighbour, in a different line); what names the array
 * in the failure message. */
void kt_expect_slots_own_lines(struct ktest *t, const struct pcpu_slot *s,
                               const char *what);

/* Live objects and pages under a kmalloc tag (kernel/mm/memtag.h). */
static inline int32_t
kt_tag_objs(const char *tag)
{
	return memtag_at(memtag_index(tag))->objs;
}

static inline int32_t
kt_tag_pages(const char *tag)
{
	return memtag_at(memtag_index(tag))->pages;
}

#endif
