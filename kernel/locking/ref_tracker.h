/*
 * Tracked references, for any counted object (device references,
 * net/core/dev_refcnt.c; module references, modloader/refcount.c).  A
 * reference taken with a tracker (struct ref_tracker, embedded in the
 * holder's object) goes on its object's directory with a tag, the call
 * site and the time; at level 2 also its hold stack, and at its release
 * the release stack (kernel/debug/stackdepot.h: 4 bytes each).  References
 * taken without one are counted as untracked where the object counts
 * them (devices do; module references on the packet path do not).
 *
 * A release is checked against what the tracker says:
 *   HELD      the release proceeds;
 *   RELEASED  a double release: reported with the three stacks (taken,
 *             released, released again) and refused, so the count is
 *             not taken from another holder;
 *   other     a release through a tracker that was never taken or whose
 *             memory was freed and reused: reported, with where it was
 *             taken and released if the quarantine still has it, and
 *             refused.
 * The quarantine is the last REF_QUARANTINE releases at level 2 (tracker
 * address, copies of the object's name and the tag, both stacks),
 * written without a lock: what it reports is a diagnosis, and a slot
 * overwritten meanwhile is possible.
 */
#ifndef KERNEL_REF_TRACKER_H
#define KERNEL_REF_TRACKER_H

#include <kernel/sched/clock.h>
#include <kernel/lib/list.h>
#include <kernel/locking/spinlock.h>
#include <kernel/debug/stackdepot.h>
#include <stdbool.h>
#include <stdint.h>

struct ref_tracker {
	struct list_head link; /* in dir->list; next NULL if not listed */
	const char *tag;
	uintptr_t caller;
	uint64_t since; /* clock_stamp() */
	uint32_t hold_stack, put_stack;
	uint32_t state; /* REF_TRACKER_HELD / _RELEASED */
};
#define REF_TRACKER_HELD     0x444c4f48u /* "HOLD" */
#define REF_TRACKER_RELEASED 0x534c4552u /* "RELS" */

struct ref_tracker_dir {
	spinlock_t lock; /* a leaf (LOCK_RANK_TRACK) */
	struct list_head list;
	volatile int untracked; /* references taken without a tracker */
	uint8_t level;          /* 0 nothing, 1 tag and site, 2 stacks */
	const char *what;       /* the release call, for reports */
	const char *name;       /* the object's name, for reports */
};

#define REF_QUARANTINE 256

/* Reports since boot: double releases, releases of a tracker not held. */
extern unsigned ref_tracker_double_releases, ref_tracker_bad_releases;

void ref_tracker_dir_init(struct ref_tracker_dir *d, int level,
                          const char *what, const char *name,
                          const char *lockname);
/* Fill t for a reference taken at caller, whose function's frame is
 * frame (the hold stack starts there). */
static inline void
ref_tracker_stamp(const struct ref_tracker_dir *d, struct ref_tracker *t,
                  const char *tag, uintptr_t caller, uintptr_t frame)
{
	t->tag = tag != NULL ? tag : "?";
	t->caller = caller;
	t->since = clock_stamp();
	t->hold_stack = d->level > 1 ? stack_save_from(caller, frame) : 0;
	t->put_stack = 0;
	t->state = REF_TRACKER_HELD;
}

void ref_tracker_add_slow(struct ref_tracker_dir *d, struct ref_tracker *t,
                          const char *tag, uintptr_t caller, uintptr_t frame);
bool ref_tracker_del_slow(struct ref_tracker_dir *d, struct ref_tracker *t,
                          uintptr_t caller, uintptr_t frame);

/* A reference taken: t listed (t NULL: counted untracked).  Inline up
 * to the list only: an untracked hold pays no call, and the tracked
 * path stays out of the caller's code (under TCG a longer fast path
 * costs more than the call: bench devref). */
static inline void
ref_tracker_add(struct ref_tracker_dir *d, struct ref_tracker *t,
                const char *tag, uintptr_t caller, uintptr_t frame)
{
	if (t == NULL)
		__atomic_add_fetch(&d->untracked, 1, __ATOMIC_RELAXED);
	else if (d->level == 0)
		t->link.next = NULL;
	else
		ref_tracker_add_slow(d, t, tag, caller, frame);
}

/* A reference released through t (NULL: an untracked one).  false: t
 * does not hold one (reported); the caller must not release. */
static inline bool
ref_tracker_del(struct ref_tracker_dir *d, struct ref_tracker *t,
                uintptr_t caller, uintptr_t frame)
{
	if (t == NULL) {
		__atomic_sub_fetch(&d->untracked, 1, __ATOMIC_RELAXED);
		return true;
	}
	return d->level == 0 || ref_tracker_del_slow(d, t, caller, frame);
}

/* Each holder, then the holders grouped by signature with their hold
 * stacks; the untracked count. */
void ref_tracker_print(struct ref_tracker_dir *d, const char *prefix);
/* Is t in the quarantine?  Then *hold and *put are the stacks of its
 * last release. */
bool ref_tracker_quarantined(const struct ref_tracker *t, uint32_t *hold,
                             uint32_t *put);
/* The stable hash of one hold site (level 1's signature). */
uint32_t ref_tracker_site_signature(const char *tag, uintptr_t caller);

/* The frame of our caller's function (frame pointers are kept). */
#define REF_CALLER_FRAME() (*(uintptr_t *)__builtin_frame_address(0))
/* The address of the line that uses it: a tracked call site. */
#define REF_THIS_IP                                                            \
	({                                                                     \
		__label__ __here;                                              \
	__here:                                                                \
		(uintptr_t) && __here;                                         \
	})

#endif
