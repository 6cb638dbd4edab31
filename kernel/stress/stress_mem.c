/*
 * Suite "stress_mem": the allocators and the TLB shootdown from every CPU
 * at once (kmalloc.h, page_alloc.h, paging.h; rounds scale with the
 * stress_scale sysctl).
 *
 * Pins down:
 *  - kmalloc/kfree of every size class and of multi-page objects from
 *    two threads per CPU: no object is ever handed to two owners (each
 *    owner fills its object with its own signature and checks it before
 *    freeing), and afterwards the suite's tag shows zero objects and
 *    bytes and as many frees as allocations
 *  - alloc_pages/free_pages of 1-8 pages the same way, with the free page
 *    count back to where it was
 *  - map/unmap/remap of a page per CPU at once, each unmap doing its own
 *    shootdown while others do theirs: after a remap every CPU reads the
 *    new page (a stale TLB entry would read the old one), after an unmap
 *    every CPU faults
 */
#include <kernel/stress/stress_util.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/mm/memtag.h>
#include <kernel/arch/smp.h>
#include <kernel/arch/irq.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/layout.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

#define KM_TAG "stress-kmalloc"
#define PG_TAG "stress-pages"
#define WINDOW 16
/* One page per worker, 3 MiB below the top of the module area: away from
 * the paging and smp suites' scratch pages and from module loading. */
#define STRESS_VA (MODULE_END - (3u << 20))

static int
nworkers(int per_cpu)
{
	int ids[MAX_CPUS], n = stress_online(ids) * per_cpu;

	return n > STRESS_MAX_WORKERS ? STRESS_MAX_WORKERS : n;
}

struct mstorm {
	int rounds;
	volatile int corrupt, alloc_failed, bad_size;
};

static uint8_t
sig_byte(uint32_t sig, size_t i)
{
	return (uint8_t)(sig * 31 + i);
}

static void
fill(void *p, size_t n, uint32_t sig)
{
	uint8_t *b = p;

	*(uint32_t *)p = sig;
	for (size_t i = 4; i < n; i++)
		b[i] = sig_byte(sig, i);
}

static bool
intact(const void *p, size_t n, uint32_t sig)
{
	const uint8_t *b = p;

	if (*(const uint32_t *)p != sig)
		return false;
	for (size_t i = 4; i < n; i++)
		if (b[i] != sig_byte(sig, i))
			return false;
	return true;
}

/* ---- kmalloc ---------------------------------------------------------- */

static size_t
random_size(uint32_t *seed)
{
	uint32_t r = stress_rand(seed);

	if (r % 16 == 0)
		return 4000 + stress_rand(seed) % 16000; /* page-backed */
	return 4 + stress_rand(seed) % 2040;             /* every slab class */
}

static void
km_worker(struct stress_crew *crew, int idx)
{
	struct mstorm *s = crew->arg;
	void *obj[WINDOW] = {0};
	size_t size[WINDOW];
	uint32_t sig[WINDOW], seed = 0x600d + 977u * idx, serial = 0;

	for (int r = 0; r < s->rounds; r++) {
		int k = (int)(stress_rand(&seed) % WINDOW);

		if (obj[k] != NULL) {
			if (!intact(obj[k], size[k], sig[k]))
				__atomic_fetch_add(&s->corrupt, 1,
				                   __ATOMIC_SEQ_CST);
			if (ksize(obj[k]) != size[k])
				__atomic_fetch_add(&s->bad_size, 1,
				                   __ATOMIC_SEQ_CST);
			kfree(obj[k]);
			obj[k] = NULL;
			continue;
		}
		size[k] = random_size(&seed);
		obj[k] = kmalloc(size[k], KM_TAG);
		if (obj[k] == NULL) {
			__atomic_fetch_add(&s->alloc_failed, 1,
			                   __ATOMIC_SEQ_CST);
			continue;
		}
		sig[k] = ((uint32_t)idx << 24) | serial++;
		fill(obj[k], size[k], sig[k]);
		if (r % 64 == 0)
			thread_yield();
	}
	for (int k = 0; k < WINDOW; k++) {
		if (obj[k] == NULL)
			continue;
		if (!intact(obj[k], size[k], sig[k]))
			__atomic_fetch_add(&s->corrupt, 1, __ATOMIC_SEQ_CST);
		kfree(obj[k]);
	}
}

static void
kmalloc_storm(struct ktest *t)
{
	struct memtag *m = memtag_at(memtag_index(KM_TAG));
	int32_t objs0 = m->objs, bytes0 = m->bytes;
	uint32_t allocs0 = m->allocs, frees0 = m->frees;
	struct mstorm *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	int n = nworkers(2);

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(1500);
	crew = stress_crew_start(km_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	if (!stress_crew_wait(crew, stress_bound_ms(60000))) {
		KEXPECT_MSG(t, false, "workers did not finish");
		goto out;
	}
	KEXPECT_MSG(t, s->corrupt == 0,
	            "%d object(s) changed under their owner (handed out "
	            "twice?)",
	            s->corrupt);
	KEXPECT_EQ(t, s->bad_size, 0);
	KEXPECT_EQ(t, s->alloc_failed, 0);
	KEXPECT_EQ(t, m->objs, objs0);
	KEXPECT_EQ(t, m->bytes, bytes0);
	KEXPECT_EQ(t, m->allocs - allocs0, m->frees - frees0);
	KEXPECT_TRUE(t, m->allocs - allocs0 > 0);
out:
	kt_shared_put(s);
}

/* ---- pages ------------------------------------------------------------ */

static void
pg_worker(struct stress_crew *crew, int idx)
{
	struct mstorm *s = crew->arg;
	void *pg[WINDOW] = {0};
	unsigned cnt[WINDOW];
	uint32_t sig[WINDOW], seed = 0xbeef + 613u * idx, serial = 0;

	for (int r = 0; r < s->rounds; r++) {
		int k = (int)(stress_rand(&seed) % WINDOW);

		if (pg[k] != NULL) {
			if (!intact(pg[k], cnt[k] * PAGE_SIZE, sig[k]))
				__atomic_fetch_add(&s->corrupt, 1,
				                   __ATOMIC_SEQ_CST);
			free_pages(pg[k], cnt[k]);
			pg[k] = NULL;
			continue;
		}
		cnt[k] = 1 + stress_rand(&seed) % 8;
		pg[k] = alloc_pages(cnt[k], PG_TAG);
		if (pg[k] == NULL) {
			__atomic_fetch_add(&s->alloc_failed, 1,
			                   __ATOMIC_SEQ_CST);
			continue;
		}
		sig[k] = ((uint32_t)idx << 24) | serial++;
		fill(pg[k], cnt[k] * PAGE_SIZE, sig[k]);
	}
	for (int k = 0; k < WINDOW; k++) {
		if (pg[k] == NULL)
			continue;
		if (!intact(pg[k], cnt[k] * PAGE_SIZE, sig[k]))
			__atomic_fetch_add(&s->corrupt, 1, __ATOMIC_SEQ_CST);
		free_pages(pg[k], cnt[k]);
	}
}

/* Free pages, and the slab's: kmalloc keeps every page it takes for its
 * size classes (kmalloc.c), so the crew's small allocations (its arguments,
 * its threads) may take one for good without anything leaking. */
static long
pages_free_or_slab(void)
{
	return kt_pages_free() + (long)kmalloc_slab_pages();
}

static void
pages_storm(struct ktest *t)
{
	struct memtag *m = memtag_at(memtag_index(PG_TAG));
	int32_t pages0 = m->pages;
	long free0 = kt_settle(pages_free_or_slab, 30, KT_SOON_MS);
	struct mstorm *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	int n = nworkers(2);

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(600);
	crew = stress_crew_start(pg_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	if (!stress_crew_wait(crew, stress_bound_ms(60000))) {
		KEXPECT_MSG(t, false, "workers did not finish");
		goto out;
	}
	KEXPECT_EQ(t, s->corrupt, 0);
	KEXPECT_EQ(t, s->alloc_failed, 0);
	KEXPECT_EQ(t, m->pages, pages0);
	/* Global: the crew's stacks go back after they switched away. */
	KEXPECT_MSG(t, kt_poll(pages_free_or_slab() == free0, KT_SOON_MS),
	            "%ld pages free or slab, %ld before", pages_free_or_slab(),
	            free0);
out:
	kt_shared_put(s);
}

/* ---- concurrent map/unmap with shootdowns ------------------------------- */

struct probe {
	uintptr_t va;
	int result;
	uint32_t val;
};

static void
probe_fn(void *arg)
{
	struct probe *p = arg;

	p->result = probe_read32((void *)p->va, &p->val);
}

/* Read va on every online CPU; count those that did not see want
 * (want 0: expect a fault). */
static int
probe_everywhere(uintptr_t va, uint32_t want)
{
	int ids[MAX_CPUS], n = stress_online(ids), wrong = 0;

	for (int i = 0; i < n; i++) {
		struct probe p = {va, 1, 0};

		smp_call_on_cpu(ids[i], probe_fn, &p, true);
		if (want == 0 ? p.result != -EFAULT
		              : p.result != 0 || p.val != want)
			wrong++;
	}
	return wrong;
}

struct tlbs {
	int rounds;
	volatile int stale_old, stale_unmapped, map_err;
};

static void
tlb_worker(struct stress_crew *crew, int idx)
{
	struct tlbs *s = crew->arg;
	uintptr_t va = STRESS_VA + (uintptr_t)idx * PAGE_SIZE;
	uint32_t *a = alloc_page("ktest"), *b = alloc_page("ktest");

	if (a == NULL || b == NULL) {
		s->map_err++;
		goto out;
	}
	for (int r = 0; r < s->rounds; r++) {
		*a = 0xa0000000u | (uint32_t)(idx << 16) | (uint32_t)r;
		*b = 0xb0000000u | (uint32_t)(idx << 16) | (uint32_t)r;
		if (map_page(va, V2P(a), PTE_W) != 0) {
			__atomic_fetch_add(&s->map_err, 1, __ATOMIC_SEQ_CST);
			break;
		}
		/* Every CPU caches the translation to a. */
		if (probe_everywhere(va, *a) != 0)
			__atomic_fetch_add(&s->stale_old, 1, __ATOMIC_SEQ_CST);
		if (unmap_page(va) != V2P(a) ||
		    map_page(va, V2P(b), PTE_W) != 0) {
			__atomic_fetch_add(&s->map_err, 1, __ATOMIC_SEQ_CST);
			unmap_page(va);
			break;
		}
		if (probe_everywhere(va, *b) != 0)
			__atomic_fetch_add(&s->stale_old, 1, __ATOMIC_SEQ_CST);
		if (unmap_page(va) != V2P(b))
			__atomic_fetch_add(&s->map_err, 1, __ATOMIC_SEQ_CST);
		if (probe_everywhere(va, 0) != 0)
			__atomic_fetch_add(&s->stale_unmapped, 1,
			                   __ATOMIC_SEQ_CST);
	}
out:
	if (a != NULL)
		free_page(a);
	if (b != NULL)
		free_page(b);
}

static void
tlb_shootdown_storm(struct ktest *t)
{
	struct tlbs *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	int n = nworkers(1);

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(40);
	crew = stress_crew_start(tlb_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_EQ(t, crew->failed_to_start, 0);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	KEXPECT_EQ(t, s->map_err, 0);
	KEXPECT_MSG(t, s->stale_old == 0,
	            "%d time(s) a CPU read the previous page after a remap",
	            s->stale_old);
	KEXPECT_MSG(t, s->stale_unmapped == 0,
	            "%d time(s) a CPU read an unmapped page",
	            s->stale_unmapped);
out:
	kt_shared_put(s);
}

KTEST_SUITE(stress_mem, KTEST_CASE(kmalloc_storm), KTEST_CASE(pages_storm),
            KTEST_CASE(tlb_shootdown_storm));
