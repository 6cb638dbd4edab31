/*
 * The guarded allocator ("kfence", after Linux's KFENCE): with the boot
 * parameter kfence=1, kmalloc gives every allocation of the lifetime
 * object types (kfence_tags=: devices, sockets and the inet caches, skbs,
 * tcp.ko; and anything a module allocates itself) its own page(s) in
 * the kfence area, right-aligned against an unmapped guard page.  kfree
 * unmaps the pages at once (the physical pages go back to the allocator)
 * and keeps the address range in a FIFO quarantine: a slot is used again
 * only after every other free slot, and until then its record (type,
 * size, who allocated and freed it, when) stays.  So a late access to a
 * freed device or socket page-faults, and the fault is reported like a
 * use-after-unload:
 *
 *   use-after-free: read at ec005f48: +0x0 in a 412-byte netdev object,
 *   freed 0.0 s ago
 *
 * followed by the allocating and freeing call chains.  An access past the
 * end of a live object lands on the next slot's guard page and is
 * reported as out-of-bounds.
 *
 * Bounded: at most kfence_pages pages are live in guarded objects at
 * once, and objects larger than two pages are never guarded; past either
 * limit kmalloc takes its normal path (counted as "skipped").
 *
 * kfree may run where unmapping cannot wait for other CPUs (interrupts
 * off, a spinlock held): the page is unmapped on this CPU at once and
 * the TLB shootdown, the page's release and the slot's return to the
 * queue are left to a work item (kfence_flush() does them now).
 */
#ifndef KERNEL_KFENCE_H
#define KERNEL_KFENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/arch/layout.h>

extern int kfence_enabled;

static inline bool
kfence_owns(const void *p)
{
	return (uintptr_t)p >= KFENCE_BASE && (uintptr_t)p < KFENCE_END;
}

/* From kmalloc: a guarded object if tag (or the caller) asks for one and
 * the budget allows, else NULL (kmalloc goes on as usual). */
void *kfence_kmalloc(size_t size, const char *tag, int tagidx);
/* A guarded object whatever its tag (tests); NULL past the budget. */
void *kfence_alloc(size_t size, const char *tag);
/* From kfree/ksize, for p with kfence_owns(p). */
void kfence_free(void *p);
size_t kfence_ksize(const void *p);
/* Finish deferred frees (shootdown, pages released) now; thread context. */
void kfence_flush(void);

/* What a fault at addr hit, printed the way the fault report prints it;
 * false if addr is not in the kfence area.  Lock-free (fault path). */
bool kfence_report(uintptr_t addr, const char *what);
/* Status line for `meminfo`. */
void kfence_show(void);

#endif
