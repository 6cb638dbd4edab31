/*
 * The module area (MODULE_BASE..MODULE_END, kernel/arch/layout.h): where
 * module images live, one 4 KiB page at a time.
 *
 * Each module gets one range: a header page for its struct module, then
 * its image, then an unmapped guard page.  Addresses are handed out by a
 * cursor that only moves up, so the range of an unloaded module stays
 * unmapped (quarantined) until the cursor has gone round the whole area
 * (252 MiB); any stale pointer into it faults and is reported by the
 * graveyard.  Only when the top is reached does the search wrap, and it
 * then skips the ranges still in use.
 *
 * The page tables covering the area are allocated once at boot, so
 * loading and unloading never changes the page-table books and `meminfo
 * -d` can prove a load/unload cycle leaves nothing behind.
 *
 * Callers hold module_mutex; unmapping needs interrupts on (TLB
 * shootdown).
 */
#include <kernel/arch/layout.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/fault.h>
#include "modloader/module_internal.h"

#define MAX_RANGES 256

static struct module_area used[MAX_RANGES];
static int nused;
static uintptr_t cursor = MODULE_BASE;
void
area_init(void)
{
	/* Page tables only: mapping and unmapping a probe page here cost a
	 * TLB shootdown to every CPU per 4 MiB, 63 of them, 4 to 17 ms of
	 * every boot under QEMU. */
	for (uintptr_t va = MODULE_BASE; va < MODULE_END; va += 4u << 20)
		if (paging_prealloc(va) != 0)
			panic("module area: cannot allocate the page table "
			      "for %08x",
			      (unsigned)va);
}

bool
area_contains(uintptr_t addr)
{
	return addr >= MODULE_BASE && addr < MODULE_END;
}

static bool
overlaps(uintptr_t start, uintptr_t end)
{
	for (int i = 0; i < nused; i++)
		if (start < used[i].end + PAGE_SIZE &&
		    used[i].start < end + PAGE_SIZE)
			return true;
	return false;
}

/* First free gap of len bytes at or above from (guard pages kept). */
static uintptr_t
find_gap(uintptr_t from, uint32_t len)
{
	uintptr_t va = from;

	while (va <= MODULE_END - PAGE_SIZE - len) {
		if (!overlaps(va, va + len))
			return va;
		va += PAGE_SIZE;
	}
	return 0;
}

int
area_alloc(uint32_t image_size, struct module_area *a)
{
	uint32_t len = PAGE_SIZE + ((image_size + PAGE_SIZE - 1) &
	                            ~(uint32_t)(PAGE_SIZE - 1));
	uintptr_t va;

	if (nused == MAX_RANGES || fault_should_fail(FAULT_VMAREA))
		return -ENOSPC;
	if (len > MODULE_END - MODULE_BASE - PAGE_SIZE)
		return -EFBIG;
	va = find_gap(cursor, len);
	if (va == 0)
		va = find_gap(MODULE_BASE, len);
	if (va == 0)
		return -ENOSPC;
	a->start = va;
	a->end = va + len;
	used[nused++] = *a;
	/* The next module starts after this one's guard page. */
	cursor = a->end + PAGE_SIZE;
	if (cursor >= MODULE_END)
		cursor = MODULE_BASE;
	return 0;
}

static void
forget(const struct module_area *a)
{
	for (int i = 0; i < nused; i++) {
		if (used[i].start == a->start) {
			used[i] = used[--nused];
			return;
		}
	}
	panic("module area: freeing unknown range %08x", (unsigned)a->start);
}

#define UNMAP_BATCH 32

/* Unmap [start, end), freeing the pages behind it: UNMAP_BATCH pages at
 * a time, cleared locally, then one shootdown for the batch (not one per
 * page: each waits for every other CPU), then freed. */
static void
unmap_range(uintptr_t start, uintptr_t end)
{
	uintptr_t pa[UNMAP_BATCH];

	for (uintptr_t va = start; va < end; va += UNMAP_BATCH * PAGE_SIZE) {
		size_t n = (end - va) / PAGE_SIZE;

		if (n > UNMAP_BATCH)
			n = UNMAP_BATCH;
		for (size_t i = 0; i < n; i++)
			pa[i] = unmap_page_local(va + i * PAGE_SIZE);
		tlb_flush_range(va, n); /* before any page is reused */
		for (size_t i = 0; i < n; i++)
			if (pa[i] != 0)
				free_page(P2V(pa[i]));
	}
}

int
area_map(const struct module_area *a)
{
	for (uintptr_t va = a->start; va < a->end; va += PAGE_SIZE) {
		void *page = alloc_page(MODULE_TAG);
		int err;

		if (page == NULL) {
			err = -ENOMEM;
		} else {
			err = map_page(va, V2P(page), PTE_W);
			if (err != 0)
				free_page(page);
		}
		if (err != 0) {
			unmap_range(a->start, va);
			return err;
		}
	}
	return 0;
}

void
area_protect_ro(uintptr_t start, uintptr_t end)
{
	for (uintptr_t va = start; va < end; va += PAGE_SIZE)
		if (protect_page(va, 0) != 0)
			panic("module area: page %08x not mapped",
			      (unsigned)va);
}

void
area_unmap_free(const struct module_area *a)
{
	unmap_range(a->start, a->end);
	forget(a);
}
