/*
 * The physical page allocator.  Pages are handed out as direct-map
 * addresses (physical + KERNEL_BASE), zeroed, physically contiguous when
 * more than one is asked for, and accounted to a tag.  Freeing a page that
 * is not allocated, or with the wrong count, panics: the kernel relies on
 * the allocator's books being exact.
 */
#ifndef KERNEL_PAGE_ALLOC_H
#define KERNEL_PAGE_ALLOC_H

#include <stdint.h>
#include <stddef.h>
#include <kernel/arch/layout.h>

#define P2V(pa) ((void *)((uintptr_t)(pa) + KERNEL_BASE))
#define V2P(va) ((uintptr_t)(va)-KERNEL_BASE)

void page_alloc_init(uintptr_t ram_top);
/* Make [start, end) (physical) available / unavailable. */
void page_range_free(uintptr_t start, uintptr_t end);
void page_range_reserve(uintptr_t start, uintptr_t end);

void *alloc_pages(unsigned n, const char *tag);
void *alloc_page(const char *tag);
void free_pages(void *va, unsigned n);
void free_page(void *va);
/* True if the page at physical address pa is allocated. */
int page_is_allocated(uintptr_t pa);

size_t pages_total(void);
size_t pages_free(void);

#endif
