/*
 * Sequence counts, for a small table that is read on every packet and
 * written a few times a run (the interface addresses): readers take no
 * lock and write nothing shared; a writer, serialised by its own
 * spinlock taken with interrupts off, makes the count odd while it
 * writes.  A reader that began at an odd count, or finds the count
 * changed at the end, reads again.
 *
 *     do {
 *             seq = read_seqbegin(&s);
 *             a = READ_ONCE(x.a);  b = READ_ONCE(x.b);
 *     } while (read_seqretry(&s, seq));
 *
 * x86 keeps loads in order with loads and stores with stores, so
 * compiler barriers order the accesses.  A reader copies values out and
 * must not follow a pointer it read: the data may be half-written until
 * read_seqretry says otherwise.  A reader in an interrupt cannot preempt
 * a writer on its own CPU (the writer has interrupts off), so it never
 * spins on a write that cannot finish.
 */
#ifndef KERNEL_SEQCOUNT_H
#define KERNEL_SEQCOUNT_H

#include <stdbool.h>
#include <kernel/debug/panic.h>
#include <kernel/locking/spinlock.h>
#include <kernel/arch/x86.h>

typedef struct {
	volatile unsigned seq;
} seqcount_t;

static inline unsigned
read_seqbegin(const seqcount_t *s)
{
	unsigned v;

	while ((v = s->seq) & 1)
		cpu_relax();
	barrier();
	return v;
}

static inline bool
read_seqretry(const seqcount_t *s, unsigned begin)
{
	barrier();
	return s->seq != begin;
}

/* writers: the lock that serialises them, held with interrupts off. */
static inline void
write_seqbegin(seqcount_t *s, const spinlock_t *writers)
{
	ASSERT(spin_held(writers));
	s->seq = s->seq + 1;
	barrier();
}

static inline void
write_seqend(seqcount_t *s, const spinlock_t *writers)
{
	ASSERT(spin_held(writers));
	barrier();
	s->seq = s->seq + 1;
}

#endif
