/*
 * Thin wrappers for the x86 instructions the kernel needs.  Nothing here
 * takes a lock or touches kernel state.
 */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H

#include <stdint.h>

#define EFLAGS_IF 0x200

static inline uint8_t
inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void
outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t
inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void
outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t
inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void
outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t
read_eflags(void)
{
	uint32_t f;
	__asm__ volatile("pushfl; popl %0" : "=r"(f));
	return f;
}

static inline void
cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void
sti(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void
hlt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

/* Enable interrupts and halt atomically: an IRQ that arrives between the
 * two instructions still wakes us, because sti takes effect after hlt. */
static inline void
sti_hlt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

static inline void
cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline uint32_t
read_cr0(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint32_t
read_cr2(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint32_t
read_cr3(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr3, %0" : "=r"(v));
	return v;
}

static inline void
write_cr3(uint32_t v)
{
	__asm__ volatile("movl %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint32_t
read_cr4(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr4, %0" : "=r"(v));
	return v;
}

static inline void
invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t
rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t
rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void
wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
	                 :
	                 : "c"(msr), "a"((uint32_t)v),
	                   "d"((uint32_t)(v >> 32)));
}

static inline void
cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid"
	                 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
	                 : "a"(leaf), "c"(0));
}

static inline uint32_t
read_ebp(void)
{
	uint32_t v;
	__asm__ volatile("movl %%ebp, %0" : "=r"(v));
	return v;
}

/* The 32 bits at %gs:off (the calling CPU's struct cpu: kernel/arch/cpu.h). */
#define gs_read32(off)                                                         \
	({                                                                     \
		uint32_t v_;                                                   \
		__asm__ volatile("movl %%gs:%c1, %0" : "=r"(v_) : "i"(off));   \
		v_;                                                            \
	})

#define barrier()        __asm__ volatile("" ::: "memory")
#define mb()             __asm__ volatile("mfence" ::: "memory")
#define READ_ONCE(x)     (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/*
 * 64-bit loads and stores that no other CPU sees half done.  On i686
 * (no SSE) cmpxchg8b is the one instruction that moves 64 bits at once:
 * a load compares with 0 and writes 0 back (so changes nothing), a store
 * retries until its compare succeeds.
 */
static inline uint64_t
read64_atomic(uint64_t *p)
{
	return __sync_val_compare_and_swap(p, 0, 0);
}

/*
 * A 64-bit value that only grows (and is stored whole, by cmpxchg8b), read
 * without a locked instruction: the high half read before and after
 * brackets the low half.  Equal high halves mean no carry in between
 * (the value never comes back to a high half it left), so the pair is a
 * value that was stored.  x86 keeps loads in order; volatile keeps the
 * compiler from merging them.
 */
static inline uint64_t
read64_growing(const uint64_t *p)
{
	const volatile uint32_t *w = (const volatile uint32_t *)p;
	uint32_t hi, lo;

	do {
		hi = w[1];
		lo = w[0];
	} while (w[1] != hi);
	return (uint64_t)hi << 32 | lo;
}

static inline void
write64_atomic(uint64_t *p, uint64_t v)
{
	uint64_t old = *p, seen;

	while ((seen = __sync_val_compare_and_swap(p, old, v)) != old)
		old = seen;
}

#endif
