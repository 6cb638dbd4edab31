/*
 * Suite "kfence": the guarded allocator (kernel/mm/kfence.h).  Needs the
 * boot parameter kfence=1 (tests/scenarios/core-kfence.scn); every case
 * skips without it.  A late access is probed with probe_read32, which
 * turns the page fault into an error instead of a panic, and the report
 * the fault handler would print is printed by kfence_report for the
 * scenario to check.
 *
 * Pins down: a freed object is unmapped at once and reported as a
 * use-after-free naming its tag and both call chains; reading past the
 * end of a live object hits a guard page; a free with interrupts off is
 * finished later and kfence_flush finishes it; the listed tags are
 * guarded through plain kmalloc; objects over two pages are not; with
 * no page left a guarded allocation gives up instead of panicking.
 */
#include <kernel/lib/errno.h>
#include <kernel/arch/irq.h>
#include <kernel/mm/kfence.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/memtag.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>

#define TAG "ktest-kfence"

static bool
need_kfence(struct ktest *t)
{
	if (!kfence_enabled)
		ktest_skip(t, "needs kfence=1");
	return kfence_enabled;
}

static void
freed_object_faults(struct ktest *t)
{
	uint32_t v;
	char *p;

	if (!need_kfence(t))
		return;
	p = kfence_alloc(100, TAG);
	KASSERT_TRUE(t, p != NULL);
	KEXPECT_TRUE(t, kfence_owns(p));
	KEXPECT_EQ(t, ((uintptr_t)p & 15), 0);
	KEXPECT_EQ(t, ksize(p), 100);
	memset(p, 0x5a, 100);
	KEXPECT_EQ(t, probe_read32(p, &v), 0);
	KEXPECT_EQ(t, v, 0x5a5a5a5a);
	kfree(p);
	KEXPECT_NE(t, probe_read32(p, &v), 0);
	KEXPECT_TRUE(t, kfence_report((uintptr_t)p, "read"));
}

static void
past_the_end_hits_guard(struct ktest *t)
{
	uint32_t v;
	char *p;

	if (!need_kfence(t))
		return;
	p = kfence_alloc(48, TAG);
	KASSERT_TRUE(t, p != NULL);
	/* 48 bytes end exactly at the slot's end: the next byte is guard. */
	KEXPECT_EQ(t, probe_read32(p + 44, &v), 0);
	KEXPECT_NE(t, probe_read32(p + 48, &v), 0);
	KEXPECT_TRUE(t, kfence_report((uintptr_t)p + 48, "read"));
	kfree(p);
}

static long
kfence_pages_now(void)
{
	return memtag_at(memtag_index("kfence"))->pages;
}

static void
free_in_timer(struct timer *tm)
{
	kfree(tm->data);
}

static void
free_with_irqs_off_is_finished_later(struct ktest *t)
{
	struct timer tm;
	long before;
	uint32_t v;
	char *p;

	if (!need_kfence(t))
		return;
	kfence_flush();
	before = kfence_pages_now();
	p = kfence_alloc(5000, TAG); /* two pages */
	KASSERT_TRUE(t, p != NULL);
	KEXPECT_EQ(t, kfence_pages_now(), before + 2);
	timer_init(&tm, free_in_timer, p);
	timer_add(&tm, now_ms() + 1);
	KEXPECT_TRUE(t, kt_poll(probe_read32(p, &v) != 0, KT_SOON_MS));
	kfence_flush();
	KEXPECT_EQ(t, kfence_pages_now(), before);
	timer_del(&tm);
}

static void
listed_tags_and_size_limit(struct ktest *t)
{
	void *dev, *big, *plain;

	if (!need_kfence(t))
		return;
	dev = kmalloc(200, "netdev");
	big = kmalloc(3 * 4096, "netdev");
	plain = kmalloc(200, TAG);
	KEXPECT_TRUE(t, dev != NULL && kfence_owns(dev));
	KEXPECT_TRUE(t, big != NULL && !kfence_owns(big));
	KEXPECT_TRUE(t, plain != NULL && !kfence_owns(plain));
	KEXPECT_TRUE(t, kfence_alloc(3 * 4096, TAG) == NULL);
	kfree(dev);
	kfree(big);
	kfree(plain);
}

/* With no page left, a guarded allocation gives up quietly (kmalloc then
 * goes its own way), takes no slot and leaves nothing mapped. */
static void
out_of_pages_falls_back(struct ktest *t)
{
	void **hog = NULL, *p;
	long pages = 0;

	if (!need_kfence(t))
		return;
	kfence_flush();
	/* Every free page, chained through the pages themselves. */
	while ((p = alloc_page("ktest-kfence-hog")) != NULL) {
		*(void **)p = hog;
		hog = p;
		pages++;
	}
	p = kfence_alloc(100, TAG);
	while (hog != NULL) {
		void **next = *hog;
		free_page(hog);
		hog = next;
	}
	KEXPECT_TRUE(t, p == NULL);
	KEXPECT_TRUE(t, pages > 0);
	kfree(p);
	/* And it works again once there are pages. */
	p = kfence_alloc(100, TAG);
	KEXPECT_TRUE(t, p != NULL && kfence_owns(p));
	kfree(p);
}

KTEST_SUITE(kfence, KTEST_CASE(freed_object_faults),
            KTEST_CASE(past_the_end_hits_guard),
            KTEST_CASE(free_with_irqs_off_is_finished_later),
            KTEST_CASE(listed_tags_and_size_limit),
            KTEST_CASE(out_of_pages_falls_back));
