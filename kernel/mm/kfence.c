/*
 * The guarded allocator (see kfence.h).
 *
 * The area is cut into slots of three pages: a guard page that is never
 * mapped, then up to two object pages.  An object is placed so that it
 * ends at the slot's end (16-byte aligned, like kmalloc), so reading
 * past it hits the next slot's guard page at once; the bytes around it
 * on its pages hold a canary that kfree checks.
 *
 * Free slots wait in a FIFO: kfree puts a slot at the tail, kmalloc takes
 * the head, so a freed slot stays unmapped - its record kept for the
 * fault report - while every other free slot is used first (the
 * quarantine: as many slots as are not live, at most NSLOTS).
 *
 * Locking: kf_lock (a spinlock, interrupts off) guards the FIFO, the
 * deferred-free ring and the counters.  A slot's record is written by
 * whoever owns the slot (the allocator between taking it from the FIFO
 * and returning the object, then kfree); the fault path reads records
 * without any lock, as the graveyard does.
 */
#include <kernel/mm/kfence.h>
#include <kernel/initcall.h>
#include <kernel/lib/errno.h>
#include <kernel/bootparam.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/irq.h>
#include <kernel/debug/ksyms.h>
#include <kernel/mm/memtag.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/trap.h>
#include <kernel/sched/work.h>
#include <kernel/arch/x86.h>

#define SLOT_PAGES 3
#define SLOT_SIZE  (SLOT_PAGES * PAGE_SIZE)
#define OBJ_MAX    ((SLOT_PAGES - 1) * PAGE_SIZE)
#define NSLOTS     ((KFENCE_END - KFENCE_BASE) / SLOT_SIZE)
#define DEPTH      4
#define CANARY     0xfc

enum { KF_UNUSED, KF_LIVE, KF_FREED };

struct kf_meta {
	volatile int state;
	uint16_t tag; /* memtag index */
	uint8_t npages;
	uint8_t alloc_cpu, free_cpu;
	uint32_t size;
	uintptr_t obj;
	uintptr_t pa[SLOT_PAGES - 1]; /* between kfree and finish_free */
	uint64_t alloc_ms, free_ms;
	uintptr_t alloc_stack[DEPTH], free_stack[DEPTH];
};

int kfence_enabled;
BOOTPARAM_BOOL(kfence, kfence_enabled,
               "guarded pages for lifetime objects (docs/memory.md)", 0);
static char kfence_tags[128] = "netdev,inet,skb,tcp,devhold";
BOOTPARAM_STRING(kfence_tags, kfence_tags,
                 "kmalloc tags kfence=1 guards (besides module allocations)",
                 0);
static int kfence_pages = 4096;
BOOTPARAM_INT(kfence_pages, kfence_pages, 16, 65536,
              "most pages live in guarded objects at once", 1);

static struct kf_meta *meta;   /* NSLOTS records */
static uint16_t *fifo, *defer; /* rings of slot numbers */
static unsigned fifo_head, fifo_len, defer_head, defer_len;
static volatile int in_flight; /* deferred frees being finished */
static int live_pages;
static uint32_t nr_guarded, nr_skipped;
static int8_t tag_wanted[MAX_MEMTAGS]; /* 0 unknown, 1 yes, -1 no */
static DEFINE_SPINLOCK(kf_lock);
static struct work kf_work;

static uintptr_t
slot_va(unsigned i)
{
	return KFENCE_BASE + (uintptr_t)i * SLOT_SIZE;
}

static unsigned
slot_of(uintptr_t va)
{
	return (unsigned)((va - KFENCE_BASE) / SLOT_SIZE);
}

/* ---- call chains --------------------------------------------------------
 */

static bool
allocator_frame(uintptr_t ret)
{
	static const char *const names[] = {
	    "kmalloc",      "kzalloc",     "kfree",      "kfence_kmalloc",
	    "kfence_alloc", "kfence_free", "kf_capture", "guarded"};
	struct sym_info si;

	if (ksym_lookup(ret, &si) != 0 || si.module != NULL)
		return false;
	/* "guarded.constprop.0" is guarded: compare up to the dot. */
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		if (strncmp(si.name, names[i], n) == 0 &&
		    (si.name[n] == '\0' || si.name[n] == '.'))
			return true;
	}
	return false;
}

/* The return addresses above the allocator's own frames. */
__attribute__((noinline)) static void
kf_capture(uintptr_t *out)
{
	uintptr_t ebp = (uintptr_t)__builtin_frame_address(0);
	int n = 0;
	bool skipping = true;

	memset(out, 0, DEPTH * sizeof(*out));
	for (int depth = 0; depth < 16 && n < DEPTH; depth++) {
		uint32_t next, ret;

		if (ebp == 0 || (ebp & 3) != 0 ||
		    probe_read32((void *)ebp, &next) != 0 ||
		    probe_read32((void *)(ebp + 4), &ret) != 0 || ret == 0)
			break;
		if (!skipping || !allocator_frame(ret - 1)) {
			skipping = false;
			out[n++] = ret - 1;
		}
		ebp = next;
	}
}

/* ---- allocation ---------------------------------------------------------
 */

static bool
tag_listed(const char *tag)
{
	size_t len = strlen(tag);

	for (const char *p = kfence_tags; *p != '\0';) {
		const char *end = strchr(p, ',');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n == len && strncmp(p, tag, n) == 0)
			return true;
		p += n + (end != NULL);
	}
	return false;
}

static void
fill_canary(struct kf_meta *m, uintptr_t first)
{
	memset((void *)first, CANARY, m->obj - first);
	memset((void *)(m->obj + m->size), CANARY,
	       first + m->npages * PAGE_SIZE - (m->obj + m->size));
}

/* First canary byte that changed, or 0. */
static uintptr_t
check_canary(const struct kf_meta *m, uintptr_t first)
{
	uintptr_t end = first + m->npages * PAGE_SIZE;

	for (uintptr_t a = first; a < end; a++) {
		if (a == m->obj)
			a = m->obj + m->size;
		if (a < end && *(volatile uint8_t *)a != CANARY)
			return a;
	}
	return 0;
}

/* The slot back to the FIFO's tail, its pages no longer counted. */
static void
slot_return(unsigned i, unsigned npages)
{
	uint32_t f = spin_lock_irqsave(&kf_lock);

	fifo[(fifo_head + fifo_len) % NSLOTS] = (uint16_t)i;
	fifo_len++;
	live_pages -= (int)npages;
	spin_unlock_irqrestore(&kf_lock, f);
}

/* Fresh zeroed pages at [first, +npages); 0, or -ENOMEM with nothing
 * left mapped (no other CPU can have used the new mappings, so undoing
 * them needs no shootdown). */
static int
map_object(uintptr_t first, unsigned npages)
{
	unsigned p;

	for (p = 0; p < npages; p++) {
		void *page = alloc_page("kfence");
		if (page == NULL)
			break;
		if (map_page(first + p * PAGE_SIZE, V2P(page), PTE_W) != 0) {
			free_page(page);
			break;
		}
	}
	if (p == npages)
		return 0;
	while (p-- > 0)
		free_page(P2V(unmap_page_local(first + p * PAGE_SIZE)));
	return -ENOMEM;
}

static void *
guarded(size_t size, const char *tag, int tagidx)
{
	unsigned npages = (unsigned)((size + PAGE_SIZE - 1) / PAGE_SIZE);
	struct kf_meta *m;
	struct memtag *mt;
	uintptr_t first;
	uint32_t f;
	unsigned i;

	if (meta == NULL || size == 0 || size > OBJ_MAX)
		return NULL;
	f = spin_lock_irqsave(&kf_lock);
	if (fifo_len == 0 || live_pages + (int)npages > kfence_pages) {
		nr_skipped++;
		spin_unlock_irqrestore(&kf_lock, f);
		return NULL;
	}
	i = fifo[fifo_head];
	fifo_head = (fifo_head + 1) % NSLOTS;
	fifo_len--;
	live_pages += (int)npages;
	nr_guarded++;
	spin_unlock_irqrestore(&kf_lock, f);

	m = &meta[i];
	first = slot_va(i) + SLOT_SIZE - npages * PAGE_SIZE;
	if (map_object(first, npages) != 0) {
		/* Out of memory: kmalloc tries its own way (and fails the
		 * same way an unguarded allocation would). */
		slot_return(i, npages);
		return NULL;
	}
	m->state = KF_UNUSED; /* not reportable while it is rewritten */
	m->tag = (uint16_t)tagidx;
	m->npages = (uint8_t)npages;
	m->size = (uint32_t)size;
	m->obj = (slot_va(i) + SLOT_SIZE - size) & ~(uintptr_t)15;
	m->alloc_ms = now_ms();
	m->alloc_cpu = (uint8_t)cpu_id();
	kf_capture(m->alloc_stack);
	memset(m->free_stack, 0, sizeof(m->free_stack));
	fill_canary(m, first);
	__atomic_store_n(&m->state, KF_LIVE, __ATOMIC_RELEASE);
	mt = memtag_at(tagidx);
	memtag_add(&mt->objs, 1);
	memtag_add(&mt->bytes, (int32_t)size);
	__atomic_fetch_add(&mt->allocs, 1, __ATOMIC_RELAXED);
	(void)tag;
	return (void *)m->obj;
}

void *
kfence_kmalloc(size_t size, const char *tag, int tagidx)
{
	uintptr_t chain[DEPTH];
	int8_t w = tagidx < MAX_MEMTAGS ? tag_wanted[tagidx] : -1;

	if (w == 0) {
		w = tag_listed(tag) ? 1 : -1;
		tag_wanted[tagidx] = w;
	}
	if (w < 0) {
		/* A module's own state is guarded whatever its tag. */
		kf_capture(chain);
		if (chain[0] < MODULE_BASE || chain[0] >= MODULE_END)
			return NULL;
	}
	return guarded(size, tag, tagidx);
}

void *
kfence_alloc(size_t size, const char *tag)
{
	return kfence_enabled ? guarded(size, tag, memtag_index(tag)) : NULL;
}

/* ---- free ---------------------------------------------------------------
 */

static bool
can_wait(void)
{
	return (read_eflags() & EFLAGS_IF) && this_cpu()->locks_held == 0 &&
	       this_cpu()->irq_depth == 0 && !panicking;
}

/* Unmapped here and everywhere: the pages go back, the slot to the
 * FIFO's tail. */
static void
finish_free(unsigned i)
{
	struct kf_meta *m = &meta[i];
	uintptr_t first = slot_va(i) + SLOT_SIZE - m->npages * PAGE_SIZE;

	/* Cleared on the freeing CPU already; now on every CPU, and only
	 * then may the pages be used again. */
	tlb_flush_range(first, m->npages);
	for (unsigned p = 0; p < m->npages; p++)
		free_page(P2V(m->pa[p]));
	slot_return(i, m->npages);
}

static void
kf_drain(struct work *w)
{
	(void)w;
	for (;;) {
		uint32_t f = spin_lock_irqsave(&kf_lock);
		unsigned i;

		if (defer_len == 0) {
			spin_unlock_irqrestore(&kf_lock, f);
			return;
		}
		i = defer[defer_head];
		defer_head = (defer_head + 1) % NSLOTS;
		defer_len--;
		in_flight++;
		spin_unlock_irqrestore(&kf_lock, f);
		finish_free(i);
		__atomic_sub_fetch(&in_flight, 1, __ATOMIC_RELEASE);
	}
}

void
kfence_flush(void)
{
	kf_drain(NULL);
	while (__atomic_load_n(&in_flight, __ATOMIC_ACQUIRE) != 0)
		msleep(1);
}

static __attribute__((noreturn)) void
bad_free(const char *why, uintptr_t addr)
{
	panic_begin();
	kprintf("\nkfence: kfree(%08x): %s\n", (unsigned)addr, why);
	kfence_report(addr, "kfree");
	kprintf("  backtrace:\n");
	backtrace();
	panic("kfence: bad kfree(%08x): %s", (unsigned)addr, why);
}

void
kfence_free(void *p)
{
	uintptr_t a = (uintptr_t)p, first, bad;
	unsigned i = slot_of(a);
	struct kf_meta *m = meta != NULL ? &meta[i] : NULL;
	struct memtag *mt;
	uint32_t f;

	if (m == NULL || m->state == KF_UNUSED)
		bad_free("not a guarded object", a);
	if (m->state == KF_FREED)
		bad_free("double free", a);
	if (a != m->obj)
		bad_free("not the start of the object", a);
	first = slot_va(i) + SLOT_SIZE - m->npages * PAGE_SIZE;
	bad = check_canary(m, first);
	if (bad != 0)
		bad_free("out-of-bounds write next to the object", bad);
	mt = memtag_at(m->tag);
	memtag_add(&mt->objs, -1);
	memtag_add(&mt->bytes, -(int32_t)m->size);
	__atomic_fetch_add(&mt->frees, 1, __ATOMIC_RELAXED);
	m->free_ms = now_ms();
	m->free_cpu = (uint8_t)cpu_id();
	kf_capture(m->free_stack);
	__atomic_store_n(&m->state, KF_FREED, __ATOMIC_RELEASE);
	/* From here on this CPU faults on it at once. */
	for (unsigned pg = 0; pg < m->npages; pg++)
		m->pa[pg] = unmap_page_local(first + pg * PAGE_SIZE);
	if (can_wait()) {
		finish_free(i);
		return;
	}
	f = spin_lock_irqsave(&kf_lock);
	defer[(defer_head + defer_len) % NSLOTS] = (uint16_t)i;
	defer_len++;
	spin_unlock_irqrestore(&kf_lock, f);
	schedule_work(&kf_work);
}

size_t
kfence_ksize(const void *p)
{
	const struct kf_meta *m = &meta[slot_of((uintptr_t)p)];

	if (m->state != KF_LIVE || (uintptr_t)p != m->obj)
		panic("ksize(%p): not a live guarded object", p);
	return m->size;
}

/* ---- reports ------------------------------------------------------------
 */

static const char *
tag_name(const struct kf_meta *m)
{
	struct memtag *mt = memtag_at(m->tag);

	return mt != NULL ? mt->name : "?";
}

static void
print_chain(const char *what, const uintptr_t *chain, int cpu, uint64_t ms)
{
	uint64_t ago = now_ms() - ms;
	char buf[96];

	kprintf("  %s on cpu %d, %u.%u s ago, by:\n", what, cpu,
	        (unsigned)(ago / 1000), (unsigned)(ago % 1000 / 100));
	for (int i = 0; i < DEPTH && chain[i] != 0; i++) {
		ksym_format(chain[i], buf, sizeof(buf));
		kprintf("    [<%08x>] %s\n", (unsigned)chain[i], buf);
	}
}

static void
describe(const struct kf_meta *m)
{
	print_chain("allocated", m->alloc_stack, m->alloc_cpu, m->alloc_ms);
	if (m->state == KF_FREED)
		print_chain("freed", m->free_stack, m->free_cpu, m->free_ms);
}

bool
kfence_report(uintptr_t addr, const char *what)
{
	const struct kf_meta *m;
	unsigned i, page;

	if (!kfence_owns((void *)addr))
		return false;
	if (meta == NULL) {
		kprintf("  kfence: %s at %08x in the kfence area, which is "
		        "not in use (kfence=0)\n",
		        what, (unsigned)addr);
		return true;
	}
	i = slot_of(addr);
	page = (unsigned)((addr - slot_va(i)) / PAGE_SIZE);
	if (page == 0 && i > 0 &&
	    __atomic_load_n(&meta[i - 1].state, __ATOMIC_ACQUIRE) == KF_LIVE) {
		m = &meta[i - 1];
		kprintf("  out-of-bounds: %s at %08x: %u bytes past the end "
		        "of a %u-byte %s object\n",
		        what, (unsigned)addr,
		        (unsigned)(addr - (m->obj + m->size)), m->size,
		        tag_name(m));
		describe(m);
		return true;
	}
	m = &meta[i];
	switch (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE)) {
	case KF_FREED: {
		uint64_t ago = now_ms() - m->free_ms;
		kprintf(
		    "  use-after-free: %s at %08x: %s%x in a %u-byte %s "
		    "object, freed %u.%u s ago\n",
		    what, (unsigned)addr, addr >= m->obj ? "+0x" : "-0x",
		    (unsigned)(addr >= m->obj ? addr - m->obj : m->obj - addr),
		    m->size, tag_name(m), (unsigned)(ago / 1000),
		    (unsigned)(ago % 1000 / 100));
		describe(m);
		return true;
	}
	case KF_LIVE:
		kprintf("  out-of-bounds: %s at %08x: %s a live %u-byte %s "
		        "object at %08x\n",
		        what, (unsigned)addr,
		        addr < m->obj ? "before" : "after", m->size,
		        tag_name(m), (unsigned)m->obj);
		describe(m);
		return true;
	}
	kprintf("  kfence: %s at %08x: a guard page or a slot never used "
	        "(a wild pointer)\n",
	        what, (unsigned)addr);
	return true;
}

static void
fault_hook(const struct trapframe *tf, uint32_t cr2)
{
	const char *what;

	if (tf->vector != 14 || !kfence_owns((void *)cr2))
		return;
	what = cr2 == tf->eip ? "instruction fetch"
	       : tf->err & 2  ? "write"
	                      : "read";
	kfence_report(cr2, what);
}

void
kfence_show(void)
{
	if (meta == NULL) {
		kprintf("kfence: off (boot with kfence=1)\n");
		return;
	}
	kprintf("kfence: %u objects guarded, %u skipped; %d of %d pages "
	        "live; %u slots in quarantine; tags %s and module "
	        "allocations\n",
	        nr_guarded, nr_skipped, live_pages, kfence_pages, fifo_len,
	        kfence_tags);
}

static void
kfence_init(void)
{
	size_t bytes = NSLOTS * (sizeof(*meta) + 2 * sizeof(*fifo));
	char *mem;

	trap_add_fault_hook(fault_hook);
	if (!kfence_enabled)
		return;
	mem = alloc_pages((unsigned)((bytes + PAGE_SIZE - 1) / PAGE_SIZE),
	                  "kfence-meta");
	if (mem == NULL) {
		pr_err("kfence: no memory for %u slot records; off\n",
		       (unsigned)NSLOTS);
		kfence_enabled = 0;
		return;
	}
	fifo = (uint16_t *)mem;
	defer = fifo + NSLOTS;
	meta = (struct kf_meta *)(defer + NSLOTS);
	for (unsigned i = 0; i < NSLOTS; i++)
		fifo[i] = (uint16_t)i;
	fifo_len = NSLOTS;
	/* Page tables for the whole area now, so guarded objects never
	 * change the page-table books (meminfo -d). */
	for (uintptr_t va = KFENCE_BASE; va < KFENCE_END; va += 4u << 20) {
		if (map_page(va, V2P(mem), 0) != 0)
			panic("kfence: cannot allocate the page table for %08x",
			      (unsigned)va);
		unmap_page(va);
	}
	work_init(&kf_work, kf_drain);
	pr_info("kfence: %u guarded slots, at most %d pages live; tags %s "
	        "and module allocations\n",
	        (unsigned)NSLOTS, kfence_pages, kfence_tags);
}
core_initcall(kfence_init);
