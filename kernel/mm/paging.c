/*
 * Page table management (see paging.h).  Page tables for the vmap and
 * module areas are allocated on first use and never freed, so their
 * directory entries, once present, never change: no CPU ever needs a
 * directory-level flush.
 */
#include <kernel/mm/paging.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/locking/spinlock.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>
#include <kernel/arch/x86.h>

extern uint32_t boot_pd[1024];

static uint32_t *pd;
static DEFINE_SPINLOCK(paging_lock);
static uintptr_t vmap_next = VMAP_BASE;
void (*tlb_shootdown)(uintptr_t va, size_t npages);

uint32_t *
kernel_page_directory(void)
{
	return pd;
}

void
paging_init(uintptr_t ram_top)
{
	pd = P2V(boot_pd);
	/* The identity map of the first 4 MiB only served the jump to the
	 * higher half; dropping it makes NULL dereferences fault. */
	pd[0] = 0;
	for (uintptr_t a = (ram_top + (4u << 20) - 1) & ~((4u << 20) - 1);
	     a < DIRECT_MAP_SIZE; a += 4u << 20)
		pd[(KERNEL_BASE + a) >> 22] = 0;
	write_cr3(V2P(pd));
}

static bool
in_pageable_area(uintptr_t va)
{
	return va >= VMAP_BASE && va < MODULE_END;
}

/* PTE slot for va, allocating its page table if asked.  Lock held. */
static uint32_t *
pte_slot(uintptr_t va, bool alloc)
{
	uint32_t *pde = &pd[va >> 22];
	uint32_t *pt;

	if ((*pde & PTE_P) == 0) {
		if (!alloc)
			return NULL;
		pt = alloc_page("pagetable");
		if (pt == NULL)
			return NULL;
		*pde = V2P(pt) | PTE_P | PTE_W;
	}
	if (*pde & PTE_PS)
		return NULL;
	pt = P2V(*pde & ~0xfffu);
	return &pt[(va >> 12) & 0x3ff];
}

int
map_page(uintptr_t va, uintptr_t pa, uint32_t flags)
{
	uint32_t *pte;
	uint32_t f;
	int err = 0;

	if (!in_pageable_area(va) || (va & 0xfff) != 0 || (pa & 0xfff) != 0)
		return -EINVAL;
	f = spin_lock_irqsave(&paging_lock);
	pte = pte_slot(va, true);
	if (pte == NULL)
		err = -ENOMEM;
	else if (*pte & PTE_P)
		err = -EEXIST;
	else
		*pte = pa | PTE_P | (flags & (PTE_W | PTE_PCD | PTE_PWT));
	spin_unlock_irqrestore(&paging_lock, f);
	return err;
}

int
paging_prealloc(uintptr_t va)
{
	uint32_t f;
	int err = 0;

	if (!in_pageable_area(va))
		return -EINVAL;
	f = spin_lock_irqsave(&paging_lock);
	if (pte_slot(va, true) == NULL)
		err = -ENOMEM;
	spin_unlock_irqrestore(&paging_lock, f);
	return err;
}

int
protect_page(uintptr_t va, uint32_t flags)
{
	uint32_t *pte;
	uint32_t f;
	int err = 0;

	if (!in_pageable_area(va))
		return -EINVAL;
	f = spin_lock_irqsave(&paging_lock);
	pte = pte_slot(va, false);
	if (pte == NULL || (*pte & PTE_P) == 0)
		err = -ENOENT;
	else
		*pte = (*pte & ~0xfffu) | PTE_P |
		       (flags & (PTE_W | PTE_PCD | PTE_PWT));
	spin_unlock_irqrestore(&paging_lock, f);
	if (err == 0)
		tlb_flush_range(va, 1);
	return err;
}

/* Clear the entry; the caller flushes (lock held). */
static uintptr_t
clear_pte(uintptr_t va)
{
	uint32_t *pte = pte_slot(va, false);
	uintptr_t pa = 0;

	if (pte != NULL && (*pte & PTE_P)) {
		pa = *pte & ~0xfffu;
		*pte = 0;
	}
	return pa;
}

uintptr_t
unmap_page_local(uintptr_t va)
{
	uintptr_t pa;
	uint32_t f;

	if (!in_pageable_area(va))
		return 0;
	f = spin_lock_irqsave(&paging_lock);
	pa = clear_pte(va);
	spin_unlock_irqrestore(&paging_lock, f);
	if (pa != 0)
		invlpg(va);
	return pa;
}

uintptr_t
unmap_page(uintptr_t va)
{
	uintptr_t pa = unmap_page_local(va);

	if (pa != 0)
		tlb_flush_range(va, 1);
	return pa;
}

bool
virt_to_phys(uintptr_t va, uintptr_t *pa)
{
	uint32_t pde = pd[va >> 22], pte;

	if ((pde & PTE_P) == 0)
		return false;
	if (pde & PTE_PS) {
		*pa = (pde & 0xffc00000u) | (va & 0x3fffff);
		return true;
	}
	pte = ((uint32_t *)P2V(pde & ~0xfffu))[(va >> 12) & 0x3ff];
	if ((pte & PTE_P) == 0)
		return false;
	*pa = (pte & ~0xfffu) | (va & 0xfff);
	return true;
}

void
tlb_flush_range(uintptr_t va, size_t npages)
{
	for (size_t i = 0; i < npages; i++)
		invlpg(va + i * PAGE_SIZE);
	if (tlb_shootdown != NULL)
		tlb_shootdown(va, npages);
}

void *
ioremap(uintptr_t pa, size_t size)
{
	uintptr_t base = pa & ~0xfffu;
	size_t n = (pa - base + size + PAGE_SIZE - 1) / PAGE_SIZE;
	uintptr_t va;
	uint32_t f = spin_lock_irqsave(&paging_lock);

	va = vmap_next;
	if (va + n * PAGE_SIZE > VMAP_END) {
		spin_unlock_irqrestore(&paging_lock, f);
		return NULL;
	}
	vmap_next += n * PAGE_SIZE;
	spin_unlock_irqrestore(&paging_lock, f);
	for (size_t i = 0; i < n; i++)
		if (map_page(va + i * PAGE_SIZE, base + i * PAGE_SIZE,
		             PTE_W | PTE_PCD | PTE_PWT) != 0)
			return NULL;
	return (void *)(va + (pa - base));
}
