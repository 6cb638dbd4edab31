/*
 * Memory accounting by tag.  Every page and kmalloc allocation names a tag
 * ("thread", "stack", "module", "netdev" ...); the counters let `meminfo`
 * and tests prove an operation left nothing behind.
 */
#ifndef KERNEL_MEMTAG_H
#define KERNEL_MEMTAG_H

#include <stdint.h>

#define MAX_MEMTAGS 64

struct memtag {
	const char *name;
	volatile int32_t objs;  /* live kmalloc objects */
	volatile int32_t bytes; /* live kmalloc bytes (as requested) */
	volatile int32_t pages; /* live pages from alloc_pages */
	volatile uint32_t allocs;
	volatile uint32_t frees;
};

/* Index of the tag, registering it on first use; never fails (tags past
 * the table's end are accounted to "other"). */
int memtag_index(const char *name);
struct memtag *memtag_at(int i);
/* The lookup cache's slot for a name (memtag.c), for the kmalloc suite to
 * find two names that share one. */
#define MEMTAG_CACHE_SLOTS 64
unsigned memtag_cache_slot(const char *name);
int memtag_count(void);

static inline void
memtag_add(volatile int32_t *ctr, int32_t delta)
{
	__atomic_fetch_add(ctr, delta, __ATOMIC_RELAXED);
}

#endif
