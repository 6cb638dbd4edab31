/*
 * The kmalloc heap (see kmalloc.h).  Slab pages are never returned to the
 * page allocator: they stay on their size class's free list.  Accounting
 * is by the bytes the caller asked for, so a leak shows up in `meminfo`
 * under the tag that made it, regardless of slab rounding.
 *
 * Each CPU keeps up to PCPU_OBJS free objects of every class, taken and
 * given back with interrupts off and no lock (as Bonwick's magazines and
 * Linux's per-CPU slab caches do): a received frame and its reply
 * allocate and free three buffers, each a lock round trip before.  A
 * full or empty cache falls back to the class's list under its lock.
 * Objects in a cache are free in every other respect: poisoned, marked
 * MAGIC_FREE, not counted under any tag.
 */
#include <kernel/arch/cpu.h>
#include <kernel/debug/fault.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/kfence.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/memtag.h>
#include <kernel/locking/spinlock.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/string.h>

#define MAGIC_LIVE  0x6b4d4c76 /* "vLMk" */
#define MAGIC_FREE  0x66726565
#define NCLASSES    7      /* 32 .. 2048 bytes, header included */
#define CLASS_PAGES 0xffff /* hdr->cls value for page-backed objects */

struct kmhdr {
	uint32_t magic;
	uint16_t tag;
	uint16_t cls;
	uint32_t size;  /* as requested */
	uint32_t pages; /* page-backed objects: pages allocated */
};

/* A free object keeps MAGIC_FREE in its first word (so a double free is
 * recognised) and links through the second. */
struct freeobj {
	uint32_t magic;
	struct freeobj *next;
};

static struct {
	spinlock_t lock;
	struct freeobj *free;
} classes[NCLASSES];
static volatile int32_t slab_pages;

#define PCPU_OBJS 16
static struct pcpu_cache {
	struct freeobj *free[NCLASSES];
	uint8_t n[NCLASSES];
} __attribute__((aligned(CACHE_LINE))) pcpu[MAX_CPUS];

static size_t
class_size(int c)
{
	return (size_t)32 << c;
}

static int
size_class(size_t total)
{
	for (int c = 0; c < NCLASSES; c++)
		if (total <= class_size(c))
			return c;
	return -1;
}

static struct freeobj *
class_alloc(int c)
{
	struct freeobj *o;
	uint32_t f = spin_lock_irqsave(&classes[c].lock);

	if (classes[c].free == NULL) {
		char *page = alloc_page("kmalloc-slab");
		if (page == NULL) {
			spin_unlock_irqrestore(&classes[c].lock, f);
			return NULL;
		}
		memtag_add(&slab_pages, 1);
		for (size_t off = 0; off + class_size(c) <= PAGE_SIZE;
		     off += class_size(c)) {
			struct freeobj *n = (struct freeobj *)(page + off);
			n->magic = MAGIC_FREE;
			n->next = classes[c].free;
			classes[c].free = n;
		}
	}
	o = classes[c].free;
	classes[c].free = o->next;
	spin_unlock_irqrestore(&classes[c].lock, f);
	return o;
}

static void
class_free(struct freeobj *o, int c)
{
	uint32_t f = spin_lock_irqsave(&classes[c].lock);

	o->next = classes[c].free;
	classes[c].free = o;
	spin_unlock_irqrestore(&classes[c].lock, f);
}

static struct freeobj *
cache_alloc(int c)
{
	uint32_t f = local_irq_save();
	struct pcpu_cache *pc = &pcpu[cpu_id()];
	struct freeobj *o = pc->free[c];

	if (o != NULL) {
		pc->free[c] = o->next;
		pc->n[c]--;
	}
	local_irq_restore(f);
	return o != NULL ? o : class_alloc(c);
}

static void
cache_free(struct freeobj *o, int c)
{
	uint32_t f = local_irq_save();
	struct pcpu_cache *pc = &pcpu[cpu_id()];

	if (pc->n[c] < PCPU_OBJS) {
		o->next = pc->free[c];
		pc->free[c] = o;
		pc->n[c]++;
		local_irq_restore(f);
		return;
	}
	local_irq_restore(f);
	class_free(o, c);
}

void *
kmalloc(size_t size, const char *tag)
{
	size_t total = size + sizeof(struct kmhdr);
	int c, t = memtag_index(tag);
	struct kmhdr *h;
	uint32_t pages = 0;

	if (size == 0 || size > (64u << 20) || fault_should_fail(FAULT_KMALLOC))
		return NULL;
	if (kfence_enabled) {
		void *p = kfence_kmalloc(size, tag, t);
		if (p != NULL)
			return p;
	}
	c = size_class(total);
	if (c >= 0) {
		h = (struct kmhdr *)cache_alloc(c);
	} else {
		pages = (total + PAGE_SIZE - 1) / PAGE_SIZE;
		h = alloc_pages(pages, "kmalloc-large");
	}
	if (h == NULL)
		return NULL;
	h->magic = MAGIC_LIVE;
	h->tag = (uint16_t)t;
	h->cls = c >= 0 ? (uint16_t)c : CLASS_PAGES;
	h->size = size;
	h->pages = pages;
	struct memtag *m = memtag_at(t);
	memtag_add(&m->objs, 1);
	memtag_add(&m->bytes, (int32_t)size);
	__atomic_fetch_add(&m->allocs, 1, __ATOMIC_RELAXED);
	return h + 1;
}

void *
kzalloc(size_t size, const char *tag)
{
	void *p = kmalloc(size, tag);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

static struct kmhdr *
header_of(const void *p, const char *what)
{
	struct kmhdr *h = (struct kmhdr *)p - 1;

	if (((uintptr_t)p & 15) != 0 || (uintptr_t)p < KERNEL_BASE)
		panic("%s(%p): not a kmalloc pointer", what, p);
	if (h->magic == MAGIC_FREE)
		panic("%s(%p): double free (object of %u bytes)", what, p,
		      h->size);
	if (h->magic != MAGIC_LIVE)
		panic("%s(%p): bad or corrupted object header (magic %08x)",
		      what, p, h->magic);
	return h;
}

void
kfree(void *p)
{
	struct kmhdr *h;
	struct memtag *m;

	if (p == NULL)
		return;
	if (kfence_owns(p)) {
		kfence_free(p);
		return;
	}
	h = header_of(p, "kfree");
	m = memtag_at(h->tag);
	memtag_add(&m->objs, -1);
	memtag_add(&m->bytes, -(int32_t)h->size);
	__atomic_fetch_add(&m->frees, 1, __ATOMIC_RELAXED);
	if (h->cls == CLASS_PAGES) {
		h->magic = MAGIC_FREE;
		free_pages(h, h->pages);
		return;
	}
	memset(p, KMALLOC_POISON, class_size(h->cls) - sizeof(*h));
	h->magic = MAGIC_FREE;
	cache_free((struct freeobj *)h, h->cls);
}

size_t
ksize(const void *p)
{
	if (kfence_owns(p))
		return kfence_ksize(p);
	return header_of(p, "ksize")->size;
}

size_t
kmalloc_slab_pages(void)
{
	return (size_t)slab_pages;
}

void
kmalloc_init(void)
{
	for (int c = 0; c < NCLASSES; c++) {
		spin_init(&classes[c].lock, "kmalloc");
		classes[c].free = NULL;
	}
}
