/*
 * The stack depot (stackdepot.h).  A fixed array of slots and a hash
 * table of chains, both lock-free: a slot is claimed with one atomic
 * add, filled, then published at its bucket's head with a
 * compare-and-swap (release); readers follow the chains with acquire
 * loads and never see a half-filled slot.  Two CPUs saving the same new
 * stack at once may both insert it: two handles for one stack, which
 * costs a slot and nothing else (signatures are computed from frames).
 * Lock-free because a hold can be taken under any lock, in any context.
 */
#include <kernel/debug/stackdepot.h>
#include <kernel/lib/hash.h>
#include <kernel/arch/irq.h>
#include <kernel/debug/ksyms.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>

#define DEPOT_SLOTS   4096 /* distinct stacks; ~290 KiB */
#define DEPOT_BUCKETS 1024

struct depot_slot {
	uint32_t hash;
	uint32_t next; /* handle of the next slot in the bucket, 0 ends */
	uint32_t n;
	uintptr_t frames[STACK_MAX_FRAMES];
};

static struct depot_slot slots[DEPOT_SLOTS];
static uint32_t buckets[DEPOT_BUCKETS]; /* handles */
static uint32_t used;                   /* slots claimed */
static uint32_t misses;

/* trap()'s return address in boot/isr.S: frames past it belong to
 * whatever the interrupt interrupted, which says nothing about the
 * holder and would make every interrupt-context stack a new one. */
extern char trap_returned[];

/* Callers of the function whose frame is ebp, innermost first, up to
 * the interrupt entry (recorded, as the last frame). */
static int
walk(uintptr_t first, uintptr_t ebp, uintptr_t *f, int max)
{
	int n = 0;

	f[n++] = first;
	while (n < max && ebp != 0 && (ebp & 3) == 0) {
		uint32_t next, ret;

		if (probe_read32((void *)ebp, &next) != 0 ||
		    probe_read32((void *)(ebp + 4), &ret) != 0 || ret == 0)
			break;
		/* first may be this very return address (a caller's
		 * __builtin_return_address): not twice */
		if (!(n == 1 && ret == first))
			f[n++] = ret - 1; /* in the call, not after it */
		if (ret == (uintptr_t)trap_returned)
			break;
		if (next <= ebp) /* callers' frames are higher up */
			break;
		ebp = next;
	}
	return n;
}

static uint32_t
hash_frames(const uintptr_t *f, int n)
{
	return fnv1a32(f, (size_t)n * sizeof(*f));
}

static stack_handle_t
find(uint32_t hash, const uintptr_t *f, int n)
{
	uint32_t h =
	    __atomic_load_n(&buckets[hash % DEPOT_BUCKETS], __ATOMIC_ACQUIRE);

	while (h != 0) {
		const struct depot_slot *s = &slots[h - 1];

		if (s->hash == hash && s->n == (uint32_t)n &&
		    memcmp(s->frames, f, (size_t)n * sizeof(*f)) == 0)
			return h;
		h = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE);
	}
	return 0;
}

stack_handle_t
stack_save_from(uintptr_t first, uintptr_t ebp)
{
	uintptr_t f[STACK_MAX_FRAMES];
	int n = walk(first, ebp, f, STACK_MAX_FRAMES);
	uint32_t hash = hash_frames(f, n), idx, *bucket;
	struct depot_slot *s;
	stack_handle_t h = find(hash, f, n);

	if (h != 0)
		return h;
	idx = __atomic_fetch_add(&used, 1, __ATOMIC_RELAXED);
	if (idx >= DEPOT_SLOTS) {
		__atomic_store_n(&used, DEPOT_SLOTS, __ATOMIC_RELAXED);
		__atomic_fetch_add(&misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	s = &slots[idx];
	s->hash = hash;
	s->n = (uint32_t)n;
	memcpy(s->frames, f, (size_t)n * sizeof(*f));
	bucket = &buckets[hash % DEPOT_BUCKETS];
	s->next = __atomic_load_n(bucket, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(bucket, &s->next, idx + 1, true,
	                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return idx + 1;
}

int
stack_frames(stack_handle_t h, const uintptr_t **frames)
{
	if (h == 0 || h > DEPOT_SLOTS ||
	    h > __atomic_load_n(&used, __ATOMIC_ACQUIRE)) {
		*frames = NULL;
		return 0;
	}
	*frames = slots[h - 1].frames;
	return (int)slots[h - 1].n;
}

void
stack_print(stack_handle_t h, const char *prefix)
{
	const uintptr_t *f;
	int n = stack_frames(h, &f);
	char sym[96];

	if (n == 0)
		kprintf("%s(no stack saved: not recorded, or the depot "
		        "was full)\n",
		        prefix);
	for (int i = 0; i < n; i++) {
		ksym_format(f[i], sym, sizeof(sym));
		kprintf("%s%s\n", prefix, sym);
	}
}

uint32_t
stack_signature_frames(const uintptr_t *f, int n, const char *tag)
{
	uint32_t hash = fnv1a32_add(FNV1A32_INIT, tag, strlen(tag));
	struct sym_info si;
	char key[96];

	for (int i = 0; i < n; i++) {
		int len;

		if (ksym_lookup(f[i], &si) != 0)
			len = snprintf(key, sizeof(key), "|?");
		else
			len = snprintf(key, sizeof(key), "|%s|%s+0x%x",
			               si.module != NULL ? si.module : "kernel",
			               si.name, (unsigned)(f[i] - si.start));
		if (len >= (int)sizeof(key))
			len = (int)sizeof(key) - 1;
		hash = fnv1a32_add(hash, key, (size_t)len);
	}
	return hash;
}

uint32_t
stack_signature(stack_handle_t h, const char *tag)
{
	const uintptr_t *f;
	int n = stack_frames(h, &f);

	return stack_signature_frames(f, n, tag);
}

void
stack_depot_stats(struct stack_depot_stats *st)
{
	uint32_t u = __atomic_load_n(&used, __ATOMIC_RELAXED);

	st->stacks = u < DEPOT_SLOTS ? u : DEPOT_SLOTS;
	st->misses = __atomic_load_n(&misses, __ATOMIC_RELAXED);
	st->capacity = DEPOT_SLOTS;
}
