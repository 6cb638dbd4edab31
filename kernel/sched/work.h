/*
 * Deferred work: run a function later, in a kernel thread ("kworker"),
 * where it may sleep and take any lock.  Interrupt handlers and timer
 * callbacks use it for everything that is not a few instructions.
 */
#ifndef KERNEL_WORK_H
#define KERNEL_WORK_H

#include <stdbool.h>
#include <kernel/lib/list.h>

struct work {
	struct list_head link;
	void (*fn)(struct work *w);
	volatile bool queued;
	volatile bool running;
	int canceling; /* cancel_work_sync() calls in progress */
};

void work_init(struct work *w, void (*fn)(struct work *));
/* Queue unless already queued (or being cancelled); returns true if it
 * queued it. */
bool schedule_work(struct work *w);
/* Remove a queued work and wait for a running one to finish; queueing
 * it meanwhile (even from itself) fails.  On return it is neither queued
 * nor running.  Returns true if it was queued. */
bool cancel_work_sync(struct work *w);
void workqueue_init(void);

#endif
