/*
 * Controlled scheduling: the kernel's scheduler, not the timer, decides
 * how a group of threads (the members: a lifetime stress's workers)
 * interleave.  The members share one CPU and one token; only the holder
 * runs, everything else on the CPU (net_rx, kworker, rcu, timers) runs as
 * usual.  The token moves only at scheduling points: schedctl_point()
 * (the stress's op boundaries, race points, mutex_lock) and when its
 * holder blocks or exits.  Who gets it is PCT's choice (Burckhardt et
 * al., ASPLOS 2010): each member a random priority from the seed, the
 * highest-priority runnable member runs, and at depth-1 points drawn from
 * the seed the holder drops to a priority below all initial ones.  A bug
 * that needs d ordering constraints is hit with probability at least
 * 1/(n k^(d-1)) per run (n members, k points).
 *
 * Same seed, same members, same points: the same interleaving, whatever
 * the host's speed, as long as what a member waits for outside the group
 * (a grace period, a timer) ends within the settle time: at each point the
 * holder first waits up to settle_ms for sleeping members to wake, so a
 * short outside wait never changes a decision.  A holder asleep on the
 * group's doing with no other member runnable keeps the token (whether
 * it slept can be time: a drain a timer ends); when every member slept
 * and another wakes first, that one gets the token but decides again
 * before it goes on.  What it cannot reach:
 * races between CPUs at instruction level (one CPU), and outside waits
 * longer than settle_ms.  docs/repro.md.
 */
#ifndef KERNEL_SCHEDCTL_H
#define KERNEL_SCHEDCTL_H

#include <stdbool.h>
#include <stdint.h>

#define SCHEDCTL_MAX   16 /* members */
#define SCHEDCTL_DEPTH 8  /* PCT's d at most: d-1 change points */

struct thread;

/* Where a member is: its op (the n-th it started, schedctl_op) and the
 * point within it (0: the point before the op).  A change point given
 * as a place (schedctl_begin's at) stays with its op when other ops
 * are added or removed, which a global point number does not: what
 * lets make repro delete ops and keep the switch the bug needs. */
struct schedctl_place {
	uint32_t op;
	uint16_t point;
	uint16_t member; /* no padding: run parameters are compared whole */
};

struct schedctl_stats {
	unsigned points;   /* scheduling points passed */
	unsigned switches; /* token moves at a point or a block */
	unsigned changes;  /* priority change points reached */
	unsigned settles;  /* points that waited for a sleeping member */
	/* decisions the clock made, not the seed: a settle that ran out
	 * (timed_settle), a token passed from a holder asleep for
	 * settle_ms.  0: the schedule is the seed's alone, and another run
	 * with it gets the same. */
	unsigned timed, timed_settle;
	/* tokens taken by the first member to wake when all slept (it
	 * decides again before it runs on: not timed) */
	unsigned wakes;
	uint32_t hash; /* of the schedule and the notes */
	/* where the change points fell (the first SCHEDCTL_DEPTH - 1):
	 * given back as at, they make the same schedule of the same ops */
	struct schedctl_place changed[SCHEDCTL_DEPTH - 1];
};

extern volatile int schedctl_active;
extern struct thread *volatile schedctl_token;

struct schedctl_config {
	uint32_t seed;
	unsigned depth; /* PCT's d: d-1 change points */
	unsigned steps; /* the points the run is expected to pass: the
	                 * change points are drawn below it */
	int n, cpu;     /* members, and the CPU they share */
	unsigned settle_ms;
	/* nat > 0: the change points are these places instead (depth is
	 * then nat + 1; the seed still gives the priorities) */
	const struct schedctl_place *at;
	unsigned nat;
	bool log; /* a console line at each change point, as it happens
	           * (a run that crashes prints no report at its end) */
};

/* A controlled run. */
int schedctl_begin(const struct schedctl_config *c);
/* The calling thread (on cpu) joins as member id (0..n-1) and returns
 * once it holds the token; the first token goes when all n joined. */
void schedctl_enter(int id);
/* The calling member starts its op number idx: the next point is point
 * 0 of it.  Nothing for a thread that is not a member. */
void schedctl_op(uint32_t idx);
/* A scheduling point (a sleepable context, no spinlock held). */
void schedctl_point(void);
/* Fold an event (an op's outcome) into the hash: its order is the
 * schedule's. */
void schedctl_note(uint32_t v);
/* Signal the calling member (as Ctrl-C would) once the run has passed
 * this many more points: a delay in schedule time, not in ms, so where
 * it lands is the seed's.  0 cancels. */
void schedctl_signal_after(unsigned points);
/* Wake the calling member (if it sleeps) once the run has passed this
 * many more points: a timeout in schedule time.  0 cancels. */
void schedctl_wake_after(unsigned points);
/* Did it come?  (For the wait's condition: a plain wakeup only makes a
 * wait look again at its condition.) */
bool schedctl_woke(void);
/* After every member exited. */
void schedctl_end(struct schedctl_stats *st);

/* For the scheduler (kernel/sched/sched.c), under the CPU's rq lock. */
bool schedctl_may_run(const struct thread *t);
void schedctl_blocked(struct thread *prev);
void schedctl_woken(struct thread *t);
/* schedule() returning in a member (no lock held). */
void schedctl_resumed(void);

#endif
