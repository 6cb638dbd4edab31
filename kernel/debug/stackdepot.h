/*
 * Stack depot: call stacks saved once and named by a 32-bit handle, so an
 * object that records where something happened (a device reference's
 * tracker: where it was taken, where it was released) keeps 4 bytes, not
 * 16 frames.  Equal stacks share one entry.  The depot is bounded: once
 * full, stack_save() returns 0 (no stack) and counts the miss; entries
 * are never freed, so a handle stays valid for the kernel's life.
 */
#ifndef KERNEL_STACKDEPOT_H
#define KERNEL_STACKDEPOT_H

#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_FRAMES 16

typedef uint32_t stack_handle_t; /* 0: no stack */

/*
 * The stack whose innermost frame is `first` (a code address in the
 * function whose frame pointer is `ebp`), then that function's callers
 * found by walking frame pointers from ebp, up to STACK_MAX_FRAMES in
 * all.  A first caller equal to `first` (first was a return address) is
 * not repeated.  Safe from any context; never sleeps.
 */
stack_handle_t stack_save_from(uintptr_t first, uintptr_t ebp);

/* The frames of h (0 for h == 0 or a bad handle). */
int stack_frames(stack_handle_t h, const uintptr_t **frames);

/* One line per frame, "PREFIXname+0xoff/0xsize [module]". */
void stack_print(stack_handle_t h, const char *prefix);

/*
 * A hash of tag and every frame of h, module relative (module name,
 * symbol and offset, never an address): equal in every run of the same
 * build wherever the modules were loaded.
 */
uint32_t stack_signature(stack_handle_t h, const char *tag);
/* The same over frames the caller has (one call site, say). */
uint32_t stack_signature_frames(const uintptr_t *f, int n, const char *tag);

struct stack_depot_stats {
	unsigned stacks; /* distinct stacks saved */
	unsigned misses; /* saves refused: the depot was full */
	unsigned capacity;
};
void stack_depot_stats(struct stack_depot_stats *st);

#endif
