/*
 * Suite "paging": 4 KiB mappings in the pageable areas (paging.h).
 *
 * Pins down that a mapped page reads and writes the physical page behind
 * it, virt_to_phys reports it, protect_page can make it read-only (writes
 * fault, reads still work) and writable again, unmap_page makes every
 * access fault and hands back the physical address without freeing the
 * page (the caller owns it), mapping twice is -EEXIST and mapping outside
 * the vmap/module areas or at an unaligned address is -EINVAL, and a
 * CPU that cached a translation and then halted in the idle loop (so
 * the shootdown left it a note instead of an IPI) sees a remapping the
 * moment it wakes.
 *
 * Faults are provoked with probe_read32/probe_write32, which return
 * -EFAULT instead of crashing.  Scratch addresses are in the top 1 MiB of
 * the module area, where module loading (which hands out addresses from
 * MODULE_BASE upwards) never gets; each case has its own addresses, so a
 * case that failed half-way cannot disturb the next.  The page table for
 * that 4 MiB is allocated on first use and kept forever (paging.c).
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/mm/memtag.h>
#include <kernel/arch/irq.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/smp.h>
#include <kernel/arch/cpu.h>

#define TAG     "ktest-paging"
#define SCRATCH (MODULE_END - 0x100000)
#define VA(i)   (SCRATCH + (uintptr_t)(i)*PAGE_SIZE)

enum {
	VA_RW,
	VA_ALIAS1,
	VA_ALIAS2,
	VA_RO,
	VA_UNMAP,
	VA_DOUBLE,
	VA_OWNER,
	VA_UNALIGNED,
	VA_IDLE,
};

/* Accesses through a mapping under test go through the probes, so a
 * broken mapping fails the case instead of panicking the kernel. */
static uint32_t
peek(struct ktest *t, uintptr_t va)
{
	uint32_t v = 0xdeadbeef;

	KEXPECT_MSG(t, probe_read32((void *)va, &v) == 0,
	            "read of %08x faulted", va);
	return v;
}

static void
poke(struct ktest *t, uintptr_t va, uint32_t v)
{
	KEXPECT_MSG(t, probe_write32((void *)va, v) == 0,
	            "write to %08x faulted", va);
}

/* The scratch address is free: a leftover mapping means an earlier run
 * failed to clean up, and the case would be testing that, not itself. */
static bool
scratch_free(struct ktest *t, uintptr_t va)
{
	uintptr_t pa;

	if (!virt_to_phys(va, &pa))
		return true;
	KEXPECT_MSG(t, false, "scratch %08x already maps %08x", va, pa);
	return false;
}

static void
map_read_write(struct ktest *t)
{
	uintptr_t va = VA(VA_RW), pa = 0;
	uint32_t *page;

	KASSERT_TRUE(t, scratch_free(t, va));
	page = alloc_page(TAG);
	KASSERT_TRUE(t, page != NULL);
	page[0] = 0x11223344;
	page[1023] = 0x55667788;
	KEXPECT_EQ(t, map_page(va, V2P(page), PTE_W), 0);
	KEXPECT_EQ(t, peek(t, va), 0x11223344);
	KEXPECT_EQ(t, peek(t, va + PAGE_SIZE - 4), 0x55667788);
	poke(t, va + 8, 0xcafef00d);
	KEXPECT_EQ(t, page[2], 0xcafef00d);
	KEXPECT_TRUE(t, virt_to_phys(va, &pa));
	KEXPECT_EQ(t, pa, V2P(page));
	KEXPECT_TRUE(t, virt_to_phys(va + 0x123, &pa));
	KEXPECT_EQ(t, pa, V2P(page) + 0x123);
	KEXPECT_EQ(t, unmap_page(va), V2P(page));
	free_page(page);
}

/* Two virtual pages on one physical page see each other's writes. */
static void
map_alias(struct ktest *t)
{
	uintptr_t v1 = VA(VA_ALIAS1), v2 = VA(VA_ALIAS2);
	void *page;

	KASSERT_TRUE(t, scratch_free(t, v1) && scratch_free(t, v2));
	page = alloc_page(TAG);
	KASSERT_TRUE(t, page != NULL);
	KEXPECT_EQ(t, map_page(v1, V2P(page), PTE_W), 0);
	KEXPECT_EQ(t, map_page(v2, V2P(page), PTE_W), 0);
	poke(t, v1 + 100 * 4, 0xa11a5);
	KEXPECT_EQ(t, peek(t, v2 + 100 * 4), 0xa11a5);
	KEXPECT_EQ(t, unmap_page(v1), V2P(page));
	KEXPECT_EQ(t, peek(t, v2 + 100 * 4), 0xa11a5);
	KEXPECT_EQ(t, unmap_page(v2), V2P(page));
	free_page(page);
}

static void
protect_readonly(struct ktest *t)
{
	uintptr_t va = VA(VA_RO);
	uint32_t *page, v = 0;

	KASSERT_TRUE(t, scratch_free(t, va));
	KEXPECT_EQ(t, protect_page(va, 0), -ENOENT);
	page = alloc_page(TAG);
	KASSERT_TRUE(t, page != NULL);
	page[0] = 0x0defaced;
	KEXPECT_EQ(t, map_page(va, V2P(page), PTE_W), 0);
	KEXPECT_EQ(t, probe_write32((void *)va, 1), 0);
	KEXPECT_EQ(t, page[0], 1);

	KEXPECT_EQ(t, protect_page(va, 0), 0);
	KEXPECT_EQ(t, probe_read32((void *)va, &v), 0);
	KEXPECT_EQ(t, v, 1);
	KEXPECT_EQ(t, probe_write32((void *)va, 2), -EFAULT);
	KEXPECT_EQ(t, page[0], 1);
	/* Still mapped to the same page: only the permission changed. */
	uintptr_t pa = 0;
	KEXPECT_TRUE(t, virt_to_phys(va, &pa));
	KEXPECT_EQ(t, pa, V2P(page));

	KEXPECT_EQ(t, protect_page(va, PTE_W), 0);
	KEXPECT_EQ(t, probe_write32((void *)va, 3), 0);
	KEXPECT_EQ(t, page[0], 3);
	KEXPECT_EQ(t, unmap_page(va), V2P(page));
	free_page(page);
}

static void
unmap_faults(struct ktest *t)
{
	uintptr_t va = VA(VA_UNMAP), pa;
	uint32_t *page, v = 0;

	KASSERT_TRUE(t, scratch_free(t, va));
	/* Never mapped: faults from the start. */
	KEXPECT_EQ(t, probe_read32((void *)va, &v), -EFAULT);
	page = alloc_page(TAG);
	KASSERT_TRUE(t, page != NULL);
	page[0] = 0x600df00d;
	KEXPECT_EQ(t, map_page(va, V2P(page), PTE_W), 0);
	/* Read through it first, so a stale TLB entry would exist. */
	KEXPECT_EQ(t, probe_read32((void *)va, &v), 0);
	KEXPECT_EQ(t, v, 0x600df00d);
	KEXPECT_EQ(t, unmap_page(va), V2P(page));
	KEXPECT_EQ(t, probe_read32((void *)va, &v), -EFAULT);
	KEXPECT_EQ(t, probe_write32((void *)va, 7), -EFAULT);
	KEXPECT_EQ(t, page[0], 0x600df00d);
	KEXPECT_TRUE(t, !virt_to_phys(va, &pa));
	KEXPECT_EQ(t, unmap_page(va), 0);
	free_page(page);
}

static void
double_map_eexist(struct ktest *t)
{
	uintptr_t va = VA(VA_DOUBLE), pa = 0;
	void *p1, *p2;

	KASSERT_TRUE(t, scratch_free(t, va));
	p1 = alloc_page(TAG);
	p2 = alloc_page(TAG);
	if (p1 == NULL || p2 == NULL) {
		KEXPECT_MSG(t, false, "out of pages");
		goto out;
	}
	KEXPECT_EQ(t, map_page(va, V2P(p1), PTE_W), 0);
	KEXPECT_EQ(t, map_page(va, V2P(p2), PTE_W), -EEXIST);
	KEXPECT_EQ(t, map_page(va, V2P(p1), PTE_W), -EEXIST);
	/* The first mapping survives the refused ones. */
	KEXPECT_TRUE(t, virt_to_phys(va, &pa));
	KEXPECT_EQ(t, pa, V2P(p1));
	KEXPECT_EQ(t, unmap_page(va), V2P(p1));
out:
	if (p1 != NULL)
		free_page(p1);
	if (p2 != NULL)
		free_page(p2);
}

static void
map_outside_einval(struct ktest *t)
{
	uintptr_t va = VA(VA_UNALIGNED), pa;
	void *page = alloc_page(TAG);
	uintptr_t p;

	KASSERT_TRUE(t, page != NULL);
	p = V2P(page);
	/* The direct map is fixed after boot; user space and the NULL page
	 * are never mapped; MODULE_END is the first address past the area. */
	KEXPECT_EQ(t, map_page(0, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(0x00400000, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(KERNEL_BASE, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page((uintptr_t)page, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(VMAP_BASE - PAGE_SIZE, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(MODULE_END, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(0xfffff000, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(va + 4, p, PTE_W), -EINVAL);
	KEXPECT_EQ(t, map_page(va, p + 4, PTE_W), -EINVAL);
	KEXPECT_EQ(t, protect_page(KERNEL_BASE, 0), -EINVAL);
	KEXPECT_EQ(t, unmap_page(KERNEL_BASE), 0);
	/* None of the refused calls mapped anything. */
	KEXPECT_TRUE(t, !virt_to_phys(va, &pa));
	/* ... and the direct map is still there. */
	KEXPECT_TRUE(t, virt_to_phys((uintptr_t)page, &pa));
	KEXPECT_EQ(t, pa, p);
	free_page(page);
}

/* unmap_page hands the page back to the caller; it stays allocated,
 * accounted and intact until the caller frees it. */
static void
unmap_keeps_page(struct ktest *t)
{
	uintptr_t va = VA(VA_OWNER);
	int32_t base = memtag_at(memtag_index(TAG))->pages;
	uint32_t *page;

	KASSERT_TRUE(t, scratch_free(t, va));
	page = alloc_page(TAG);
	KASSERT_TRUE(t, page != NULL);
	KEXPECT_EQ(t, map_page(va, V2P(page), PTE_W), 0);
	poke(t, va, 0xfeedbeef);
	KEXPECT_EQ(t, unmap_page(va), V2P(page));
	KEXPECT_TRUE(t, page_is_allocated(V2P(page)));
	KEXPECT_EQ(t, memtag_at(memtag_index(TAG))->pages, base + 1);
	KEXPECT_EQ(t, page[0], 0xfeedbeef);
	free_page(page);
	KEXPECT_TRUE(t, !page_is_allocated(V2P(page)));
	KEXPECT_EQ(t, memtag_at(memtag_index(TAG))->pages, base);
}

/* A reader on another CPU: caches va's translation, reports the word. */
static struct {
	uintptr_t va;
	volatile uint32_t seen;
	volatile int done;
} idle_reader;

static void
read_on_cpu(void *arg)
{
	(void)arg;
	if (probe_read32((void *)idle_reader.va,
	                 (uint32_t *)&idle_reader.seen) != 0)
		idle_reader.seen = 0xdeadbeef;
	__atomic_store_n(&idle_reader.done, 1, __ATOMIC_SEQ_CST);
}

static bool
read_there(int cpu)
{
	idle_reader.done = 0;
	if (thread_create("ktest-tlb", read_on_cpu, NULL, cpu) == NULL)
		return false;
	return kt_poll(READ_ONCE(idle_reader.done), KT_SOON_MS);
}

static void
remap_seen_by_idle_cpu(struct ktest *t)
{
	uintptr_t va = VA(VA_IDLE);
	uint32_t *a, *b;
	int cpu = -1;
	bool deferred = false;

	for (int i = 0; i < MAX_CPUS && cpu < 0; i++)
		if (i != cpu_id() && cpus[i].state == CPU_ONLINE)
			cpu = i;
	if (cpu < 0) {
		ktest_skip(t, "one CPU: no other TLB");
		return;
	}
	KASSERT_TRUE(t, scratch_free(t, va));
	a = alloc_page(TAG);
	b = alloc_page(TAG);
	KASSERT_TRUE(t, a != NULL && b != NULL);
	idle_reader.va = va;
	/* Until the shootdown found that CPU halted (it may be busy with
	 * an exiting thread for a moment): A mapped, read there, the CPU
	 * idle, remapped to B; the next read there must see B. */
	for (int i = 0; i < 50 && !deferred; i++) {
		unsigned long skips = tlb_idle_skips;

		a[0] = 0xaaaa0000u + (uint32_t)i;
		b[0] = 0xbbbb0000u + (uint32_t)i;
		KASSERT_TRUE(t, map_page(va, V2P(a), PTE_W) == 0);
		KEXPECT_TRUE(t, read_there(cpu));
		KEXPECT_EQ(t, idle_reader.seen, a[0]);
		KEXPECT_TRUE(t, kt_poll(cpus[cpu].idle_eqs & 1, KT_SOON_MS));
		KEXPECT_EQ(t, unmap_page(va), V2P(a));
		deferred = tlb_idle_skips != skips;
		KASSERT_TRUE(t, map_page(va, V2P(b), PTE_W) == 0);
		KEXPECT_TRUE(t, read_there(cpu));
		KEXPECT_EQ(t, idle_reader.seen, b[0]);
		KEXPECT_EQ(t, unmap_page(va), V2P(b));
	}
	KEXPECT_TRUE(t, deferred);
	free_page(a);
	free_page(b);
}

KTEST_SUITE(paging, KTEST_CASE(map_read_write), KTEST_CASE(map_alias),
            KTEST_CASE(protect_readonly), KTEST_CASE(unmap_faults),
            KTEST_CASE(double_map_eexist), KTEST_CASE(map_outside_einval),
            KTEST_CASE(unmap_keeps_page), KTEST_CASE(remap_seen_by_idle_cpu));
