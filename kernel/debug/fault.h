/*
 * Fault injection, fail-nth style (like Linux's fail_nth), scoped to one
 * thread: a command run under `failnth` or a lifetime stress worker.
 * Each hooked call site asks fault_should_fail(SITE) first; with no
 * context installed on the calling thread and none for interrupt
 * context (the normal case) that is two loads and a compare.
 *
 * Sites (fault_site_names): kmalloc, pages (alloc_pages: also every DMA
 * ring and buffer of the drivers), modget (try_module_get), devhold
 * (try_dev_hold and the lookups built on it), irq (irq_register), sock
 * (sock_create), thread (thread_create: workers, timers' and services'
 * threads), vmarea (area_alloc: a loading module's address range), iomap
 * (pci_iomap: a driver mapping its registers).
 *
 * A context fails the nth call counted at its sites (nth, 1-based), or
 * each call with probability permille/1000 drawn from its own seeded
 * generator, or both; it records what it injected.
 */
#ifndef KERNEL_FAULT_H
#define KERNEL_FAULT_H

#include <stdbool.h>
#include <stdint.h>

enum fault_site {
	FAULT_KMALLOC,
	FAULT_PAGES,
	FAULT_MODGET,
	FAULT_DEVHOLD,
	FAULT_IRQ,
	FAULT_SOCK,
	FAULT_THREAD,
	FAULT_VMAREA,
	FAULT_IOMAP,
	FAULT_NSITES,
};
#define FAULT_ALL ((1u << FAULT_NSITES) - 1)

extern const char *const fault_site_names[FAULT_NSITES];

struct fault_ctx {
	unsigned sites;    /* mask of 1 << enum fault_site */
	uint32_t nth;      /* fail the nth counted call (0: none) */
	uint32_t permille; /* and/or a random fraction (0: none) */
	uint64_t rng;
	uint32_t calls;    /* counted so far */
	uint32_t injected; /* failures made */
	int last_site;     /* of the last failure made */
	uintptr_t last_caller;
};

/* Install ctx (counters reset) on the calling thread, or NULL to remove. */
void fault_set(struct fault_ctx *ctx);

/*
 * The same for a service thread that runs what the sweeper only causes
 * (net_rx, kworker, rcu, inet), or with t NULL for interrupt context
 * (timer callbacks, interrupt handlers): only there are its calls
 * counted.  The installer removes it (NULL) before reading the counters;
 * counting is atomic, so CPUs taking interrupts at once count each call
 * once.
 */
struct thread;
void fault_set_on(struct thread *t, struct fault_ctx *ctx);
bool __fault_should_fail(enum fault_site site, uintptr_t caller);

#define fault_should_fail(site)                                                \
	__fault_should_fail((site), (uintptr_t)__builtin_return_address(0))

/* "kmalloc,pages" -> mask; 0 on an unknown name. */
unsigned fault_parse_sites(const char *list);

#endif
