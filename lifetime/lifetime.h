/*
 * The lifetime stress engine (`stress lifetime`, docs/stress.md): worker
 * threads on every CPU run a seeded random mix of lifetime operations
 * (module load and unload in every flavour, device add/del/up/down,
 * holders, DHCP, sockets, readers) concurrently, then the engine puts
 * everything back as it found it and checks that nothing is left over.
 *
 *   engine.c  the command, parameters, workers, progress, report
 *   ops.c     the operations and which outcomes each may have
 *   ring.c    the per-worker op log, dumped on failure
 *   settle.c  snapshot of the start state, cleanup, end-state checks
 *   faultsweep.c  every failure path of insmod and ip link up (fault.h)
 *
 * Reproduction: worker w's op sequence (kinds and arguments) depends only
 * on (seed, w), never on what the system did, so the same seed replays
 * the same operations; only their interleaving differs (on one CPU under
 * QEMU record/replay, not even that).
 */
#ifndef LIFETIME_LIFETIME_H
#define LIFETIME_LIFETIME_H

#include <kernel/sched/schedctl.h>
#include <stdbool.h>
#include <stdint.h>
#include <kernel/arch/cpu.h>
#include <kernel/console/printk.h>
#include <kernel/sched/timer.h>

struct lt_worker;

/* One kind of operation.  run returns 0 or -errno; ok lists the errnos
 * (positive) that are a legitimate outcome under concurrency. */
struct lt_op {
	const char *name;
	int (*run)(struct lt_worker *w, uint32_t arg);
	const int *ok; /* 0-terminated */
	unsigned weight;
};

extern const struct lt_op lt_ops[];
extern const unsigned lt_nops;
int lt_op_find(const char *name);

#define LT_RING     64
#define LT_WAITS    4096
#define LT_MODS_MAX 16

struct lt_rec {
	uint32_t idx;
	uint8_t op;
	uint8_t injected; /* failures injected into this op (faults=) */
	uint16_t cpu;
	uint32_t arg;
	int32_t result;
	uint32_t us;
};

struct lt_run;

struct lt_worker {
	int id, cpu;
	uint64_t rng;
	struct lt_run *run;
	struct thread *thread;
	struct timer intr_timer; /* signals the worker (Ctrl-C of an op) */
	/* Non-empty while a watchdog, not a deliberate Ctrl-C, is armed:
	 * what waits ("rmmod e1000"), for the hang dump if it fires.
	 * Written only while the timer is not pending (before timer_add,
	 * after timer_del), so the timer reads it whole. */
	char watched[48];
	struct out_capture out;
	/* Set by an op whose outcome breaks a rule its ok list cannot
	 * say (ops.c, pinned_check): the run fails with this reason. */
	const char *verdict;
	struct lt_rec ring[LT_RING];
	uint32_t nrec;
	volatile bool done;
};

struct lt_stats {
	volatile uint32_t count, errors, fails, injected;
};

struct lt_params {
	uint32_t seed;
	uint32_t ops;    /* total, split over the workers (0: by secs) */
	uint32_t cycles; /* stop after this many unloads (0: by ops/secs) */
	uint32_t secs;   /* wall-clock bound (0: by ops) */
	int workers;
	unsigned weight[32]; /* per op kind */
	unsigned holdmax_ms;
	unsigned watchdog_ms; /* a waiting op that takes longer is stuck */
	unsigned tcpport, udpport;
	unsigned faults; /* per mille of ops run with one injected failure */
	bool progress;
	bool bg; /* bg=1: run in a background thread (stress wait/stop) */
	/* sched=pct:SEED: the workers share one CPU and the kernel's
	 * controlled scheduler picks their interleaving (schedctl.h) */
	bool pct;
	bool oplog;  /* oplog=1: a console line per op as it ends */
	bool script; /* script=1: the ops of `stress script`, not drawn */
	uint32_t sched_seed;
	unsigned depth, settle_ms;
	/* PCT's k, the points its change points are drawn from: kept
	 * when a replay shortens the run, so the schedule's prefix stays
	 * (0: 4 per op) */
	unsigned pct_steps;
	/* at=M.OP.PT,..: the change points as places (schedctl.h), not
	 * drawn from the seed: what make repro turns a failing schedule
	 * into before it deletes ops */
	struct schedctl_place at[SCHEDCTL_DEPTH - 1];
	unsigned nat;
};

struct lt_run {
	struct lt_params p;
	struct lt_worker *w; /* p.workers of them */
	const char *mods[LT_MODS_MAX];
	int nmods;
	unsigned total_weight;
	uint64_t start_ms, deadline_ms;
	volatile uint32_t done_ops;
	volatile uint32_t failures;
	volatile bool stop;
	volatile int dumped;
	unsigned legacy_caught0; /* legacy_caught when the run began */
	struct lt_stats stats[32];
	/* Load/unload cycles per module of mods[]: successful loads and
	 * successful unloads by the workers (a cycle is an unload: the
	 * module was loaded first); cycles = the sum of unloads. */
	volatile uint32_t loads[LT_MODS_MAX], unloads[LT_MODS_MAX];
	volatile uint32_t cycles;
	/* rmmod wait times (us) of successful waiting unloads: a uniform
	 * sample of LT_WAITS of them (reservoir), exact min and max */
	uint32_t waits[LT_WAITS];
	volatile uint32_t nwaits;
	volatile uint32_t wait_min, wait_max;
	/* waiting rmmods of tcp the watchdog stopped while tcp.ko waited
	 * for TCP peers (ops.c, rmmod_stuck): legitimate, counted */
	volatile uint32_t tcp_peer_waits;
	/* What reached the wire: datagrams the udp op handed to the stack
	 * for 10.0.2.2:udpport, echoes the tcp op got back from
	 * 10.0.2.2:tcpport (0 without those ports: the ops then only open
	 * sockets) */
	volatile uint32_t udp_sent, tcp_echoed;
	struct lt_snapshot *bg_snap; /* bg=1: handed to the run's thread */
};

uint32_t lt_rand(struct lt_worker *w);
static inline uint32_t
lt_below(struct lt_worker *w, uint32_t n)
{
	return n == 0 ? 0 : lt_rand(w) % n;
}

/* script.c: explicit op lists, one per worker (script=1) */
#define LT_SCRIPT_WORKERS 16
#define LT_SCRIPT_OPS     128
struct lt_script {
	unsigned n;
	uint8_t op[LT_SCRIPT_OPS];
	uint32_t arg[LT_SCRIPT_OPS];
	/* 0, or the call (1..16) at an injection site that fails: the
	 * op ran so in the run the script was taken from (faults=) */
	uint8_t fault[LT_SCRIPT_OPS];
};
extern struct lt_script lt_scripts[LT_SCRIPT_WORKERS];
int lt_script_workers(void); /* the last worker with ops, plus one */
int lt_script_cmd(int argc, char **argv);

/* ring.c */
void lt_ring_add(struct lt_worker *w, const struct lt_rec *r);
void lt_ring_dump(struct lt_run *run);
const char *lt_arg_name(const struct lt_op *op, uint32_t arg, char *buf,
                        size_t size);

/* ops.c helpers the engine uses */
void lt_intr_fire(struct timer *t); /* the worker's interrupt timer */
void lt_wait_sample(struct lt_run *run, uint32_t us);
/* A worker's op loaded (load) or unloaded module mods[arg % nmods]. */
void lt_count_cycle(struct lt_worker *w, uint32_t arg, bool load);

/* faultsweep.c: `stress faultsweep [MODULE..]` */
int lt_faultsweep(int argc, char **argv);

/* settle.c */
struct lt_snapshot;
struct lt_snapshot *lt_snapshot_take(void);
void lt_snapshot_free(struct lt_snapshot *s);
/* Unload what the run loaded, reload what it unloaded, wait for counts
 * to settle; 0 if the system matches the snapshot, else -EIO (each
 * difference reported). */
int lt_settle(struct lt_run *run, struct lt_snapshot *s);

#endif
