/*
 * kmalloc/kfree with per-tag accounting.  Small objects come from
 * power-of-two slabs carved out of direct-mapped pages (the "kmalloc
 * heap"), larger ones straight from the page allocator.  Every object has
 * a header with its tag and size, so kfree needs no size, a double free or
 * a foreign pointer panics with the culprit's address, and freed memory is
 * poisoned (KMALLOC_POISON) so stale reads show up as 0x6b6b6b6b (and
 * the fault report names a fault near that address as use of freed
 * memory).
 */
#ifndef KERNEL_KMALLOC_H
#define KERNEL_KMALLOC_H

#include <stddef.h>

#define KMALLOC_POISON 0x6b /* every byte of a freed object */

void *kmalloc(size_t size, const char *tag);
void *kzalloc(size_t size, const char *tag);
void kfree(void *p);
/* Size the caller asked for (for tests and accounting). */
size_t ksize(const void *p);
/* Pages currently held by slabs (they are kept for reuse). */
size_t kmalloc_slab_pages(void);
void kmalloc_init(void);

#endif
