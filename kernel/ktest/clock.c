/*
 * Suite "clock": the kernel clock (clock.h) keeps time when ticks are
 * lost, and timers fire by it.
 *
 * Pins down that now_ns() agrees with an independent counter (the ACPI PM
 * timer the TSC was calibrated against) to 1% across 200 ms in which no
 * CPU takes an interrupt, so no tick is delivered; that a timer whose
 * expiry passed while ticks were lost fires at the next ticks, not after
 * as many ticks as its delay; and that readings taken on different CPUs
 * never go back, now_ms's (which publish once a millisecond) and
 * now_ns's mixed.
 *
 * Under TCG the TSC and the PM timer both follow the host's clock, so a
 * host that preempts QEMU stretches both alike: the comparison holds on
 * a busy machine.  Each end of a measurement is the narrowest of a few
 * bracketed reads, so a preemption between the clock read and the
 * counter read is not mistaken for an error.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/stress/stress_util.h>
#include <kernel/sched/clock.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/irq.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/spinlock.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/x86.h>

#define BUSY_MS       200 /* how long every CPU runs with interrupts off */
#define TOLERANCE_PCT 1

/* The reference counter, or NULL (with the case skipped) if there is none
 * that a busy host cannot wrap behind our back.  The PIT fallback wraps
 * every 55 ms; the PM timer's 24 bits last 4.7 s. */
static const struct clock_ref *
reference(struct ktest *t)
{
	const struct clock_ref *r = clock_reference();

	if (r == NULL || r->mask < 0xffffff) {
		ktest_skip(t, "no ACPI PM timer to compare with");
		return NULL;
	}
	return r;
}

struct pair {
	uint64_t ns;    /* the clock, when the counter was read */
	uint32_t count; /* the reference counter */
};

/* Clock and counter at one moment: the narrowest of a few brackets. */
static void
read_pair(const struct clock_ref *r, struct pair *p)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = now_ns();
		uint32_t c = r->count() & r->mask;
		uint64_t b = now_ns();

		if (b - a < best) {
			best = b - a;
			p->ns = a + (b - a) / 2;
			p->count = c;
		}
	}
}

struct busy {
	const struct clock_ref *r;
	struct pair start, end;
	uint64_t ref_ns; /* the reference's elapsed time */
	uint64_t pit_before, pit_after;
};

/* Runs with every other CPU spinning with interrupts off; turns them off
 * here too, so no CPU takes the PIT's tick for BUSY_MS. */
static int
busy_fn(void *arg)
{
	struct busy *b = arg;
	uint64_t ticks = 0, want = (uint64_t)b->r->hz * BUSY_MS / 1000;
	uint32_t f = local_irq_save(), prev, c;

	b->pit_before = irq_count(0);
	read_pair(b->r, &b->start);
	prev = b->start.count;
	while (ticks < want) {
		c = b->r->count() & b->r->mask;
		ticks += (c - prev) & b->r->mask;
		prev = c;
	}
	read_pair(b->r, &b->end);
	ticks += (b->end.count - prev) & b->r->mask;
	b->pit_after = irq_count(0);
	local_irq_restore(f);
	b->ref_ns = ticks * 1000000000ull / b->r->hz;
	return 0;
}

static void
clock_keeps_time_without_ticks(struct ktest *t)
{
	struct busy b = {.r = reference(t)};
	uint64_t clock_ns, diff, slack;

	if (b.r == NULL)
		return;
	stop_machine(busy_fn, &b);
	clock_ns = b.end.ns - b.start.ns;
	diff = clock_ns > b.ref_ns ? clock_ns - b.ref_ns : b.ref_ns - clock_ns;
	slack = b.ref_ns * TOLERANCE_PCT / 100;
	KEXPECT_EQ(t, b.pit_after, b.pit_before); /* really no tick */
	KEXPECT_MSG(t, diff <= slack,
	            "clock advanced %u us while the %s counted %u us",
	            (unsigned)(clock_ns / 1000), b.r->name,
	            (unsigned)(b.ref_ns / 1000));
}

struct probe {
	struct timer timer;
	volatile int fired;
	volatile uint64_t fired_at;
};

static void
probe_fn(struct timer *tm)
{
	struct probe *p = tm->data;

	p->fired_at = now_ms();
	__atomic_store_n(&p->fired, 1, __ATOMIC_SEQ_CST);
}

/* PIT interrupts delivered since n0 (on any CPU). */
static uint64_t
ticks_since(uint64_t n0)
{
	return irq_count(0) - n0;
}

static void
timer_fires_after_lost_ticks(struct ktest *t)
{
	struct busy b = {.r = reference(t)};
	struct probe p = {.fired = 0};
	uint64_t due, n0;

	if (b.r == NULL)
		return;
	timer_init(&p.timer, probe_fn, &p);
	due = now_ms() + BUSY_MS / 4;
	timer_add(&p.timer, due);
	stop_machine(busy_fn, &b);
	/* The expiry is long past by the clock: the next tick fires it.
	 * Allow a few, since the first may have been pending already.
	 * Counted in ticks, not time, so a slow host cannot fail it. */
	n0 = irq_count(0);
	KEXPECT_MSG(
	    t, kt_poll(READ_ONCE(p.fired) || ticks_since(n0) >= 3, KT_SOON_MS),
	    "no tick in %u ms", KT_SOON_MS);
	KEXPECT_MSG(t, READ_ONCE(p.fired),
	            "timer due at %u ms not fired at %u ms, %u tick(s) after "
	            "ticks resumed",
	            (unsigned)due, (unsigned)now_ms(),
	            (unsigned)ticks_since(n0));
	timer_del(&p.timer);
	KEXPECT_TRUE(t, !p.fired || p.fired_at >= due);
}

/* now_ms_coarse() is the last tick's reading: never ahead of now_ms(),
 * never back, and after a stretch without ticks the first tick brings it
 * up to the time (it stores a reading; it does not count ticks). */
static void
coarse_clock_follows_the_tick(struct ktest *t)
{
	struct busy b = {.r = reference(t)};
	uint64_t last = 0, after, n0;
	unsigned ahead = 0, back = 0;

	if (b.r == NULL)
		return;
	for (int i = 0; i < 10000; i++) {
		uint64_t c = now_ms_coarse(), n = now_ms();

		ahead += c > n;
		back += c < last;
		last = c;
	}
	KEXPECT_EQ(t, ahead, 0);
	KEXPECT_EQ(t, back, 0);
	stop_machine(busy_fn, &b);
	after = now_ms();
	n0 = irq_count(0);
	KEXPECT_MSG(t,
	            kt_poll(now_ms_coarse() >= after || ticks_since(n0) >= 3,
	                    KT_SOON_MS),
	            "no tick in %u ms", KT_SOON_MS);
	KEXPECT_MSG(t, now_ms_coarse() >= after,
	            "coarse clock at %u ms, %u tick(s) after a %u ms stretch "
	            "without ticks that ended at %u ms",
	            (unsigned)now_ms_coarse(), (unsigned)ticks_since(n0),
	            BUSY_MS, (unsigned)after);
}

/* ---- monotonic across CPUs -------------------------------------------- */

#define MONO_ROUNDS 20000

struct mono {
	uint64_t max; /* the highest reading published by any worker */
	volatile int backwards;
	volatile uint64_t worst_ns;
};

static void
mono_worker(struct stress_crew *crew, int idx)
{
	struct mono *m = crew->arg;
	uint64_t last = 0;

	for (int i = 0; i < MONO_ROUNDS; i++) {
		/* Whatever any CPU published before our read ... */
		uint64_t seen = read64_atomic(&m->max);
		/* (every other reading in ms, which publishes once a ms:
		 * the units must agree across CPUs too) */
		bool in_ms = (i + idx) % 2 != 0;
		uint64_t v = in_ms ? now_ms() * 1000000 : now_ns(), old = seen,
		         prev;

		/* A reading in ms is floor(ns / 10^6) of one in ns. */
		if (in_ms) {
			seen -= seen % 1000000;
			last -= last % 1000000;
		}
		/* ... we must not read less, nor less than our own last. */
		if (v < seen || v < last) {
			uint64_t d = (v < seen ? seen : last) - v;
			__atomic_fetch_add(&m->backwards, 1, __ATOMIC_RELAXED);
			if (d > m->worst_ns)
				m->worst_ns = d;
		}
		last = v;
		while (v > old && (prev = __sync_val_compare_and_swap(
		                       &m->max, old, v)) != old)
			old = prev;
	}
}

static void
clock_monotonic_across_cpus(struct ktest *t)
{
	int n = kt_online_cpus();
	struct mono *m;
	struct stress_crew *crew;

	if (n < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	m = kt_shared_alloc(sizeof(*m), 1);
	KASSERT_TRUE(t, m != NULL);
	crew = stress_crew_start(mono_worker, m, n);
	KASSERT_TRUE(t, crew != NULL);
	KEXPECT_TRUE(t, stress_crew_wait(crew, 60000));
	KEXPECT_MSG(t, m->backwards == 0,
	            "%d reading(s) went back, by up to %u ns", m->backwards,
	            (unsigned)m->worst_ns);
	kt_shared_put(m);
}

static void
clock_units_agree(struct ktest *t)
{
	uint64_t ms = now_ms(), us = now_us(), ns = now_ns();

	/* Read in that order, each is at least the one before. */
	KEXPECT_TRUE(t, us >= ms * 1000);
	KEXPECT_TRUE(t, ns >= us * 1000);
	KASSERT_TRUE(t, tsc_per_ms > 0);
	/* A second of cycles is a second, to the rounding of tsc_per_ms. */
	ns = tsc_to_ns(tsc_per_ms * 1000);
	KEXPECT_MSG(t, ns > 999000000 && ns <= 1000000000,
	            "%u ms of TSC cycles are %u us", 1000,
	            (unsigned)(ns / 1000));
}

/* A stamp's age follows the clock: at once, no more than the clock saw
 * pass around it (0 unless the host stopped the vCPU in between: make
 * test beside make stress once saw 1 ms), none for a stamp from the
 * future (a CPU whose TSC runs ahead), and a sleep's length after one
 * (at least it; more only by the host's delays, bounded generously). */
static void
stamp_age_follows_the_clock(struct ktest *t)
{
	uint64_t start = now_ms(), stamp = clock_stamp(), age, slept;

	age = clock_stamp_age_ms(stamp);
	slept = now_ms() - start;
	KEXPECT_MSG(t, age <= slept, "age %u ms at once (clock: %u ms)",
	            (unsigned)age, (unsigned)slept);
	KEXPECT_EQ(t, clock_stamp_age_ms(stamp + tsc_per_ms * 1000), 0);
	msleep(50);
	age = clock_stamp_age_ms(stamp);
	slept = now_ms() - start;
	KEXPECT_MSG(t, age + 1 >= 50 && age <= slept + 1,
	            "age %u ms after sleeping 50 ms (clock: %u ms)",
	            (unsigned)age, (unsigned)slept);
}

KTEST_SUITE(clock, KTEST_CASE(clock_units_agree),
            KTEST_CASE(stamp_age_follows_the_clock),
            KTEST_CASE(clock_keeps_time_without_ticks),
            KTEST_CASE(timer_fires_after_lost_ticks),
            KTEST_CASE(coarse_clock_follows_the_tick),
            KTEST_CASE(clock_monotonic_across_cpus));
