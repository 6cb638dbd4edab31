/*
 * Suite "alloc": the physical page allocator (page_alloc.h).
 *
 * Pins down that pages come back page-aligned in the direct map, zeroed,
 * physically contiguous when several are asked for, accounted to the tag
 * that allocated them (and to no other), that an impossible request fails
 * cleanly without claiming anything, and that every page handed out is
 * returned exactly: the free count after freeing equals the count before.
 *
 * pages_free() is global, so another CPU may allocate or free meanwhile
 * (typically the previous case's thread, whose stack is freed after it
 * switched away).  Exact free-count checks therefore retry a few times: a
 * real leak fails every attempt, a bystander fails at most one.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/mm/memtag.h>
#include <kernel/lib/string.h>

#define TAG      "ktest-alloc"
#define TAG2     "ktest-alloc2"
#define ATTEMPTS 3
#define BATCH    1024 /* 4 MiB: a moderate batch on a 128 MiB machine */

static int32_t
tag_pages(const char *tag)
{
	return memtag_at(memtag_index(tag))->pages;
}

static bool
all_bytes(const void *p, uint8_t v, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

static void
alloc_single_page(struct ktest *t)
{
	int32_t base = tag_pages(TAG);
	uint32_t *p = alloc_page(TAG);

	KASSERT_TRUE(t, p != NULL);
	KEXPECT_EQ(t, (uintptr_t)p & (PAGE_SIZE - 1), 0);
	KEXPECT_TRUE(t, (uintptr_t)p >= KERNEL_BASE &&
	                    (uintptr_t)p < KERNEL_BASE + DIRECT_MAP_SIZE);
	KEXPECT_TRUE(t, page_is_allocated(V2P(p)));
	KEXPECT_EQ(t, tag_pages(TAG), base + 1);
	/* The page is usable memory: every word keeps what is written. */
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		p[i] = 0x9e3779b9u * i;
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		if (p[i] != 0x9e3779b9u * i) {
			KEXPECT_MSG(t, false, "word %u reads %08x", i, p[i]);
			break;
		}
	free_page(p);
	KEXPECT_TRUE(t, !page_is_allocated(V2P(p)));
	KEXPECT_EQ(t, tag_pages(TAG), base);
}

static void
alloc_zero_pages_is_null(struct ktest *t)
{
	int32_t base = tag_pages(TAG);

	KEXPECT_TRUE(t, alloc_pages(0, TAG) == NULL);
	KEXPECT_EQ(t, tag_pages(TAG), base);
}

/* Pages are zeroed on allocation, including pages someone dirtied and
 * freed just before (freed pages are not cleaned on free). */
static void
alloc_zeroed(struct ktest *t)
{
	enum { N = 16 };
	void *dirty[N];
	uint8_t *p;
	unsigned n;

	for (n = 0; n < N; n++) {
		dirty[n] = alloc_page(TAG);
		if (dirty[n] == NULL)
			break;
		memset(dirty[n], 0xa5, PAGE_SIZE);
	}
	KEXPECT_EQ(t, n, N);
	while (n > 0)
		free_page(dirty[--n]);
	/* Next fit moves on, so cycle far enough to meet dirty frames too. */
	for (unsigned round = 0; round < 64; round++) {
		p = alloc_pages(4, TAG);
		KASSERT_TRUE(t, p != NULL);
		bool zero = all_bytes(p, 0, 4 * PAGE_SIZE);
		memset(p, 0x5a, 4 * PAGE_SIZE);
		free_pages(p, 4);
		if (!zero) {
			KEXPECT_MSG(t, false,
			            "round %u: pages at %p not zeroed", round,
			            p);
			break;
		}
	}
}

static void
alloc_multi_contiguous(struct ktest *t)
{
	enum { N = 8 };
	int32_t base = tag_pages(TAG);
	char *p = alloc_pages(N, TAG);
	uintptr_t pa0, pa;

	KASSERT_TRUE(t, p != NULL);
	KEXPECT_EQ(t, tag_pages(TAG), base + N);
	KEXPECT_TRUE(t, virt_to_phys((uintptr_t)p, &pa0));
	KEXPECT_EQ(t, pa0, V2P(p));
	for (unsigned i = 0; i < N; i++) {
		pa = 0;
		KEXPECT_TRUE(t,
		             virt_to_phys((uintptr_t)p + i * PAGE_SIZE, &pa));
		KEXPECT_EQ(t, pa, pa0 + i * PAGE_SIZE);
		KEXPECT_TRUE(t, page_is_allocated(pa0 + i * PAGE_SIZE));
	}
	free_pages(p, N);
	for (unsigned i = 0; i < N; i++)
		KEXPECT_TRUE(t, !page_is_allocated(pa0 + i * PAGE_SIZE));
	KEXPECT_EQ(t, tag_pages(TAG), base);
}

static void
alloc_free_count_exact(struct ktest *t)
{
	long before = 0, during = 0, after = 0;
	int attempt;

	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		void *p;

		before = kt_settle(kt_pages_free, 20, 1000);
		p = alloc_pages(5, TAG);
		KASSERT_TRUE(t, p != NULL);
		during = (long)pages_free();
		free_pages(p, 5);
		after = (long)pages_free();
		if (during == before - 5 && after == before)
			break;
	}
	KEXPECT_MSG(t, attempt < ATTEMPTS,
	            "free pages %ld -> %ld (alloc 5) -> %ld (free), %d times",
	            before, during, after, ATTEMPTS);
}

/* A request larger than memory fails and leaves the books untouched. */
static void
alloc_impossible_fails_cleanly(struct ktest *t)
{
	int32_t base = tag_pages(TAG);
	long before = 0, after = 0;
	int attempt;
	void *p = NULL;

	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		before = kt_settle(kt_pages_free, 20, 1000);
		p = alloc_pages((unsigned)pages_total() + 1, TAG);
		after = (long)pages_free();
		if (p != NULL || after == before)
			break;
	}
	KASSERT_TRUE(t, p == NULL);
	KEXPECT_EQ(t, after, before);
	KEXPECT_EQ(t, tag_pages(TAG), base);
}

/*
 * Take a batch of single pages (chained through their first word, so the
 * test needs no memory of its own), check that no page was handed out
 * twice, give them all back, and check that the free count and a large
 * contiguous allocation both recover: freeing undoes the fragmentation.
 */
static void
alloc_batch_recovery(struct ktest *t)
{
	int32_t base = tag_pages(TAG);
	long before = kt_settle(kt_pages_free, 20, 1000), after;
	uint32_t **head = NULL, **p;
	unsigned n = 0, bad = 0;
	void *big;

	for (; n < BATCH; n++) {
		p = alloc_page(TAG);
		if (p == NULL)
			break;
		p[0] = (uint32_t *)head;
		p[1] = (uint32_t *)(uintptr_t)n;
		head = p;
	}
	KEXPECT_EQ(t, n, BATCH);
	KEXPECT_EQ(t, tag_pages(TAG), base + (int32_t)n);
	/* A page handed out twice would carry a later index. */
	for (p = head; p != NULL; p = (uint32_t **)p[0])
		if ((uintptr_t)p[1] != --n)
			bad++;
	KEXPECT_EQ(t, bad, 0);
	while (head != NULL) {
		p = head;
		head = (uint32_t **)p[0];
		free_page(p);
	}
	KEXPECT_EQ(t, tag_pages(TAG), base);
	after = kt_settle(kt_pages_free, 20, 1000);
	KEXPECT_MSG(t, after == before, "free pages %ld before, %ld after",
	            before, after);
	big = alloc_pages(256, TAG);
	KEXPECT_TRUE(t, big != NULL);
	if (big != NULL)
		free_pages(big, 256);
}

/* Pages count against the tag that allocated them, and only that one. */
static void
alloc_tag_accounting(struct ktest *t)
{
	int32_t a0 = tag_pages(TAG), b0 = tag_pages(TAG2);
	void *a = alloc_pages(3, TAG);
	void *b = alloc_pages(2, TAG2);

	if (a == NULL || b == NULL) {
		KEXPECT_MSG(t, false, "allocation failed");
		if (a != NULL)
			free_pages(a, 3);
		if (b != NULL)
			free_pages(b, 2);
		return;
	}
	KEXPECT_EQ(t, tag_pages(TAG), a0 + 3);
	KEXPECT_EQ(t, tag_pages(TAG2), b0 + 2);
	free_pages(a, 3);
	KEXPECT_EQ(t, tag_pages(TAG), a0);
	KEXPECT_EQ(t, tag_pages(TAG2), b0 + 2);
	free_pages(b, 2);
	KEXPECT_EQ(t, tag_pages(TAG2), b0);
}

KTEST_SUITE(alloc, KTEST_CASE(alloc_single_page),
            KTEST_CASE(alloc_zero_pages_is_null), KTEST_CASE(alloc_zeroed),
            KTEST_CASE(alloc_multi_contiguous),
            KTEST_CASE(alloc_free_count_exact),
            KTEST_CASE(alloc_impossible_fails_cleanly),
            KTEST_CASE(alloc_batch_recovery), KTEST_CASE(alloc_tag_accounting));
