/*
 * Suite "kmalloc": the kmalloc heap and its per-tag accounting
 * (kmalloc.h, memtag.h).
 *
 * Pins down that every size, from 1 byte through each slab class to
 * multi-page objects, gives 16-byte-aligned, non-overlapping memory of at
 * least the size asked for; that ksize() reports the requested size;
 * that kzalloc zeroes (even a slot just freed, which kfree poisons); that
 * a tag's objects and bytes go up by exactly what was allocated and come
 * back exactly to the baseline after kfree; and that freed objects are
 * reused rather than growing the heap.  Freed memory is never read here:
 * that would be a use-after-free, poison or not.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/memtag.h>
#include <kernel/lib/string.h>

#define TAG      "ktest-kmalloc"
#define ATTEMPTS 3

static const size_t sizes[] = {
    1,    2,    7,    8,    15,   16,   17,   31,   32,   33,    48,
    63,   64,   100,  112,  113,  200,  240,  241,  500,  1000,  1008,
    1009, 2000, 2032, 2033, 2048, 3000, 4080, 4096, 4097, 10000, 65536,
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static struct memtag *
tag(void)
{
	return memtag_at(memtag_index(TAG));
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

/* Every object is written in full while all are live, then checked: an
 * object smaller than asked for, or two objects overlapping, shows up as
 * another object's fill byte. */
static void
kmalloc_sizes_all_classes(struct ktest *t)
{
	void *p[NSIZES];

	for (size_t i = 0; i < NSIZES; i++) {
		p[i] = kmalloc(sizes[i], TAG);
		KEXPECT_MSG(t, p[i] != NULL, "kmalloc(%u) failed",
		            (unsigned)sizes[i]);
		if (p[i] == NULL)
			continue;
		KEXPECT_EQ(t, ksize(p[i]), sizes[i]);
		memset(p[i], (int)(i + 1), sizes[i]);
	}
	for (size_t i = 0; i < NSIZES; i++)
		if (p[i] != NULL)
			KEXPECT_MSG(t,
			            all_bytes(p[i], (uint8_t)(i + 1), sizes[i]),
			            "object of %u bytes at %p was overwritten",
			            (unsigned)sizes[i], p[i]);
	for (size_t i = 0; i < NSIZES; i++)
		kfree(p[i]);
}

static void
kmalloc_alignment16(struct ktest *t)
{
	enum { N = 48 };
	void *p[N];

	for (int i = 0; i < N; i++) {
		p[i] = kmalloc((size_t)(i * 37 % 3000) + 1, TAG);
		KEXPECT_TRUE(t, p[i] != NULL);
		KEXPECT_MSG(t, ((uintptr_t)p[i] & 15) == 0,
		            "kmalloc(%d) = %p is not 16-byte aligned",
		            i * 37 % 3000 + 1, p[i]);
	}
	for (int i = 0; i < N; i++)
		kfree(p[i]);
}

/* Objects larger than the biggest slab class come from whole pages. */
static void
kmalloc_large_multipage(struct ktest *t)
{
	struct memtag *large = memtag_at(memtag_index("kmalloc-large"));
	size_t size = 3 * PAGE_SIZE + 100;
	int32_t before = 0, during = 0, after = 0;
	int attempt;

	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		uint8_t *p;

		before = large->pages;
		p = kmalloc(size, TAG);
		KASSERT_TRUE(t, p != NULL);
		during = large->pages;
		memset(p, 0x3c, size);
		KEXPECT_TRUE(t, p[0] == 0x3c && p[size - 1] == 0x3c);
		KEXPECT_EQ(t, ksize(p), size);
		kfree(p);
		after = large->pages;
		/* Header included, it takes a fourth page; retry if some
		 * other CPU allocated a large object meanwhile. */
		if (during == before + 4 && after == before)
			break;
	}
	KEXPECT_MSG(t, attempt < ATTEMPTS,
	            "kmalloc-large pages %d -> %d -> %d, %d times", before,
	            during, after, ATTEMPTS);
}

/* kfree poisons a freed slot and the free list is LIFO, so the kzalloc
 * right after a kfree of the same size very likely gets that dirty slot. */
static void
kzalloc_zeroes(struct ktest *t)
{
	static const size_t zs[] = {24, 200, 1500, 6000};

	for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
		uint8_t *p = kmalloc(zs[i], TAG);

		KASSERT_TRUE(t, p != NULL);
		memset(p, 0xee, zs[i]);
		kfree(p);
		p = kzalloc(zs[i], TAG);
		KASSERT_TRUE(t, p != NULL);
		KEXPECT_MSG(t, all_bytes(p, 0, zs[i]), "kzalloc(%u) not zeroed",
		            (unsigned)zs[i]);
		kfree(p);
	}
}

static void
kmalloc_tag_accounting(struct ktest *t)
{
	struct memtag *m = tag();
	int32_t objs = m->objs, bytes = m->bytes;
	uint32_t allocs = m->allocs, frees = m->frees;
	void *a = kmalloc(10, TAG), *b = kmalloc(100, TAG);
	void *c = kmalloc(5000, TAG);

	if (a == NULL || b == NULL || c == NULL) {
		KEXPECT_MSG(t, false, "allocation failed");
		goto out;
	}
	KEXPECT_EQ(t, m->objs, objs + 3);
	KEXPECT_EQ(t, m->bytes, bytes + 5110);
	KEXPECT_EQ(t, m->allocs, allocs + 3);
	KEXPECT_EQ(t, m->frees, frees);
	kfree(b);
	b = NULL;
	KEXPECT_EQ(t, m->objs, objs + 2);
	KEXPECT_EQ(t, m->bytes, bytes + 5010);
	KEXPECT_EQ(t, m->frees, frees + 1);
out:
	kfree(a);
	kfree(b);
	kfree(c);
	KEXPECT_EQ(t, m->objs, objs);
	KEXPECT_EQ(t, m->bytes, bytes);
	KEXPECT_EQ(t, m->allocs - allocs, m->frees - frees);
}

/* A tag counts its own objects only. */
static void
kmalloc_tags_separate(struct ktest *t)
{
	struct memtag *m = tag(),
	              *o = memtag_at(memtag_index("ktest-kmalloc2"));
	int32_t mo = m->objs, oo = o->objs, ob = o->bytes;
	void *p = kmalloc(64, "ktest-kmalloc2");

	KASSERT_TRUE(t, p != NULL);
	KEXPECT_EQ(t, o->objs, oo + 1);
	KEXPECT_EQ(t, o->bytes, ob + 64);
	KEXPECT_EQ(t, m->objs, mo);
	kfree(p);
	KEXPECT_EQ(t, o->objs, oo);
	KEXPECT_EQ(t, o->bytes, ob);
}

/* Two tags whose names share a slot of memtag_index's cache, looked up
 * in turn: each lookup must still name its own tag (the cache is only a
 * hint), and a copy of a name at another address finds the same tag. */
static void
memtag_cache_shared_slot(struct ktest *t)
{
	static const char pool[MEMTAG_CACHE_SLOTS + 1][8] = {
	    "kt-t00", "kt-t01", "kt-t02", "kt-t03", "kt-t04", "kt-t05",
	    "kt-t06", "kt-t07", "kt-t08", "kt-t09", "kt-t10", "kt-t11",
	    "kt-t12", "kt-t13", "kt-t14", "kt-t15", "kt-t16", "kt-t17",
	    "kt-t18", "kt-t19", "kt-t20", "kt-t21", "kt-t22", "kt-t23",
	    "kt-t24", "kt-t25", "kt-t26", "kt-t27", "kt-t28", "kt-t29",
	    "kt-t30", "kt-t31", "kt-t32", "kt-t33", "kt-t34", "kt-t35",
	    "kt-t36", "kt-t37", "kt-t38", "kt-t39", "kt-t40", "kt-t41",
	    "kt-t42", "kt-t43", "kt-t44", "kt-t45", "kt-t46", "kt-t47",
	    "kt-t48", "kt-t49", "kt-t50", "kt-t51", "kt-t52", "kt-t53",
	    "kt-t54", "kt-t55", "kt-t56", "kt-t57", "kt-t58", "kt-t59",
	    "kt-t60", "kt-t61", "kt-t62", "kt-t63", "kt-t64"};
	const char *a = NULL, *b = NULL;
	char copy[8];
	int ia, ib;

	/* 65 names, 64 slots: some two share one. */
	for (size_t i = 0; i < MEMTAG_CACHE_SLOTS + 1 && a == NULL; i++)
		for (size_t j = i + 1; j < MEMTAG_CACHE_SLOTS + 1; j++)
			if (memtag_cache_slot(pool[i]) ==
			    memtag_cache_slot(pool[j])) {
				a = pool[i];
				b = pool[j];
				break;
			}
	KASSERT_TRUE(t, a != NULL);
	ia = memtag_index(a);
	ib = memtag_index(b);
	KASSERT_TRUE(t, ia != 0 && ib != 0 && ia != ib);
	for (int round = 0; round < 4; round++) {
		KEXPECT_EQ(t, memtag_index(a), ia);
		KEXPECT_EQ(t, memtag_index(b), ib);
		KEXPECT_EQ(t, memtag_index(b), ib);
		KEXPECT_EQ(t, memtag_index(a), ia);
	}
	KEXPECT_TRUE(t, strcmp(memtag_at(ia)->name, a) == 0);
	KEXPECT_TRUE(t, strcmp(memtag_at(ib)->name, b) == 0);
	strlcpy(copy, a, sizeof(copy));
	KEXPECT_EQ(t, memtag_index(copy), ia);
	KEXPECT_EQ(t, memtag_index(a), ia);
}

/* Freed slab objects go back on their class's list and are handed out
 * again: a second identical batch needs no new slab page. */
static void
kmalloc_reuse_after_free(struct ktest *t)
{
	enum { N = 200 };
	void **p = kmalloc(N * sizeof(void *), TAG);
	size_t slabs0 = 0, slabs1 = 0;
	int attempt, got = 0;

	KASSERT_TRUE(t, p != NULL);
	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		for (int round = 0; round < 2; round++) {
			if (round == 1)
				slabs0 = kmalloc_slab_pages();
			got = 0;
			for (int i = 0; i < N; i++) {
				p[i] = kmalloc(48, TAG);
				got += p[i] != NULL;
			}
			for (int i = 0; i < N; i++)
				kfree(p[i]);
		}
		slabs1 = kmalloc_slab_pages();
		if (got == N && slabs1 == slabs0)
			break;
	}
	KEXPECT_EQ(t, got, N);
	KEXPECT_MSG(t, attempt < ATTEMPTS,
	            "slab pages grew %u -> %u for a batch that was just freed",
	            (unsigned)slabs0, (unsigned)slabs1);
	kfree(p);
}

static void
kmalloc_bad_sizes(struct ktest *t)
{
	struct memtag *m = tag();
	int32_t objs = m->objs, bytes = m->bytes;

	KEXPECT_TRUE(t, kmalloc(0, TAG) == NULL);
	KEXPECT_TRUE(t, kzalloc(0, TAG) == NULL);
	KEXPECT_TRUE(t, kmalloc((64u << 20) + 1, TAG) == NULL);
	KEXPECT_TRUE(t, kmalloc((size_t)-1, TAG) == NULL);
	kfree(NULL);
	KEXPECT_EQ(t, m->objs, objs);
	KEXPECT_EQ(t, m->bytes, bytes);
}

KTEST_SUITE(kmalloc, KTEST_CASE(kmalloc_sizes_all_classes),
            KTEST_CASE(kmalloc_alignment16),
            KTEST_CASE(kmalloc_large_multipage), KTEST_CASE(kzalloc_zeroes),
            KTEST_CASE(kmalloc_tag_accounting),
            KTEST_CASE(kmalloc_tags_separate),
            KTEST_CASE(memtag_cache_shared_slot),
            KTEST_CASE(kmalloc_reuse_after_free),
            KTEST_CASE(kmalloc_bad_sizes));
