/*
 * Bitmap page allocator (see page_alloc.h).  One bit per 4 KiB frame of
 * the direct map, plus the tag of each allocated frame so that frees are
 * accounted to the tag that allocated them.  Allocation scans from where
 * the last one ended (next fit), which is simple and, for the sizes modref
 * uses (1-16 pages), fast enough.
 */
#include <kernel/debug/fault.h>
#include <kernel/debug/invariant.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/memtag.h>
#include <kernel/console/printk.h>
#include <kernel/locking/spinlock.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/string.h>

#define MAX_FRAMES   (DIRECT_MAP_SIZE / PAGE_SIZE)
#define TAG_FREE     0xff
#define TAG_RESERVED 0xfe

static uint32_t bitmap[MAX_FRAMES / 32]; /* 1 = in use or not RAM */
static uint8_t frame_tag[MAX_FRAMES];
static size_t nframes, nfree, ntotal, cursor;
static DEFINE_SPINLOCK(page_lock);

static inline int
frame_used(size_t f)
{
	return (bitmap[f / 32] >> (f % 32)) & 1;
}

static inline void
frame_set(size_t f, int used)
{
	if (used)
		bitmap[f / 32] |= 1u << (f % 32);
	else
		bitmap[f / 32] &= ~(1u << (f % 32));
}

void
page_alloc_init(uintptr_t ram_top)
{
	nframes = ram_top / PAGE_SIZE;
	if (nframes > MAX_FRAMES)
		nframes = MAX_FRAMES;
	memset(bitmap, 0xff, sizeof(bitmap));
	memset(frame_tag, TAG_RESERVED, sizeof(frame_tag));
}

void
page_range_free(uintptr_t start, uintptr_t end)
{
	size_t f = (start + PAGE_SIZE - 1) / PAGE_SIZE, last = end / PAGE_SIZE;

	if (last > nframes)
		last = nframes;
	while (f < last) {
		/* A bitmap word's worth still all reserved, as boot frees
		 * all of RAM: one store, not 32 (a millisecond of every
		 * boot under TCG for 128 MiB). */
		if (f % 32 == 0 && last - f >= 32 &&
		    bitmap[f / 32] == 0xffffffffu) {
			bitmap[f / 32] = 0;
			memset(&frame_tag[f], TAG_FREE, 32);
			nfree += 32;
			ntotal += 32;
			f += 32;
			continue;
		}
		if (frame_used(f)) {
			frame_set(f, 0);
			frame_tag[f] = TAG_FREE;
			nfree++;
			ntotal++;
		}
		f++;
	}
}

void
page_range_reserve(uintptr_t start, uintptr_t end)
{
	for (size_t f = start / PAGE_SIZE;
	     f < (end + PAGE_SIZE - 1) / PAGE_SIZE && f < nframes; f++) {
		if (!frame_used(f)) {
			frame_set(f, 1);
			frame_tag[f] = TAG_RESERVED;
			nfree--;
			ntotal--;
		}
	}
}

/* Find n free frames in a row at or after from; returns nframes if none. */
static size_t
find_run(size_t from, unsigned n)
{
	size_t run = 0;

	for (size_t f = from; f < nframes; f++) {
		if (frame_used(f)) {
			run = 0;
			continue;
		}
		if (++run == n)
			return f + 1 - n;
	}
	return nframes;
}

void *
alloc_pages(unsigned n, const char *tag)
{
	int t = memtag_index(tag);
	uint32_t fl;
	size_t f;

	if (fault_should_fail(FAULT_PAGES))
		return NULL;
	if (n == 0)
		return NULL;
	fl = spin_lock_irqsave(&page_lock);
	f = find_run(cursor, n);
	if (f == nframes)
		f = find_run(0, n);
	if (f == nframes) {
		spin_unlock_irqrestore(&page_lock, fl);
		return NULL;
	}
	for (size_t i = f; i < f + n; i++) {
		frame_set(i, 1);
		frame_tag[i] = (uint8_t)t;
	}
	nfree -= n;
	cursor = f + n;
	spin_unlock_irqrestore(&page_lock, fl);
	memtag_add(&memtag_at(t)->pages, (int32_t)n);
	memset(P2V(f * PAGE_SIZE), 0, (size_t)n * PAGE_SIZE);
	return P2V(f * PAGE_SIZE);
}

void *
alloc_page(const char *tag)
{
	return alloc_pages(1, tag);
}

void
free_pages(void *va, unsigned n)
{
	uintptr_t pa = V2P(va);
	size_t f = pa / PAGE_SIZE;
	uint32_t fl;
	int t;

	if ((pa & (PAGE_SIZE - 1)) != 0 || f + n > nframes || n == 0)
		panic("free_pages(%p, %u): not a page range", va, n);
	fl = spin_lock_irqsave(&page_lock);
	t = frame_tag[f];
	for (size_t i = f; i < f + n; i++) {
		if (!frame_used(i) || frame_tag[i] != t || t >= MAX_MEMTAGS)
			panic("free_pages(%p, %u): frame %p is %s", va, n,
			      (void *)(i * PAGE_SIZE),
			      !frame_used(i) ? "already free"
			                     : "from another allocation");
		frame_set(i, 0);
		frame_tag[i] = TAG_FREE;
	}
	nfree += n;
	spin_unlock_irqrestore(&page_lock, fl);
	memtag_add(&memtag_at(t)->pages, -(int32_t)n);
}

void
free_page(void *va)
{
	free_pages(va, 1);
}

int
page_is_allocated(uintptr_t pa)
{
	size_t f = pa / PAGE_SIZE;
	return f < nframes && frame_used(f) && frame_tag[f] < MAX_MEMTAGS;
}

size_t
pages_total(void)
{
	return ntotal;
}

size_t
pages_free(void)
{
	return nfree;
}

/* The free count is the bitmap's clear bits (the word-at-a-time path at
 * boot counts 32 at once; frees and allocations one run at a time).  A
 * word at a time: the check runs every second during the stress. */
static const char *
pages_sane(char *buf, size_t size)
{
	size_t clear = 0, counted, f;
	uint32_t fl = spin_lock_irqsave(&page_lock);

	for (f = 0; f + 32 <= nframes; f += 32)
		clear += 32 - (size_t)__builtin_popcount(bitmap[f / 32]);
	for (; f < nframes; f++)
		clear += !frame_used(f);
	counted = nfree;
	spin_unlock_irqrestore(&page_lock, fl);
	if (clear == counted)
		return NULL;
	snprintf(buf, size, "%u frames free in the bitmap, %u counted",
	         (unsigned)clear, (unsigned)counted);
	return buf;
}
INVARIANT(pages, pages_sane);
