/*
 * Kernel page tables.  There is one page directory, shared by every CPU.
 * The direct map uses 4 MiB pages and never changes after boot; the vmap
 * (MMIO) and module areas use 4 KiB pages that can be mapped and unmapped
 * one by one.  unmap_page() returns only after no CPU can still use the
 * old translation (local invlpg plus a TLB shootdown on SMP).
 */
#ifndef KERNEL_PAGING_H
#define KERNEL_PAGING_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define PTE_P   0x001
#define PTE_W   0x002
#define PTE_PWT 0x008
#define PTE_PCD 0x010
#define PTE_A   0x020
#define PTE_D   0x040
#define PTE_PS  0x080

void paging_init(uintptr_t ram_top);
/* Map one 4 KiB page in the vmap or module area.  -EINVAL outside them,
 * -EEXIST if already mapped, -ENOMEM if a page table cannot be had. */
int map_page(uintptr_t va, uintptr_t pa, uint32_t flags);
/* Allocate the page table covering va (vmap or module area) without
 * mapping anything: no translation changes, so no TLB flush.  0, -EINVAL
 * outside the areas, -ENOMEM. */
int paging_prealloc(uintptr_t va);
/* Change the flags of a mapped page (e.g. text to read-only). */
int protect_page(uintptr_t va, uint32_t flags);
/* Unmap; returns the physical address that was mapped, or 0. */
uintptr_t unmap_page(uintptr_t va);
/* Unmap on this CPU only (any context); other CPUs may keep the old
 * translation until the caller's tlb_flush_range(va, 1), which must come
 * before the physical page is used again. */
uintptr_t unmap_page_local(uintptr_t va);
/* Physical address mapped at va (any area), or 0 and false. */
bool virt_to_phys(uintptr_t va, uintptr_t *pa);
/* Map MMIO uncached in the vmap area. */
void *ioremap(uintptr_t pa, size_t size);

/* Flush [va, va+n pages) everywhere; set by SMP bring-up for the remote
 * part (until then, the local flush is the whole story). */
void tlb_flush_range(uintptr_t va, size_t npages);
extern void (*tlb_shootdown)(uintptr_t va, size_t npages);

uint32_t *kernel_page_directory(void);

#endif
