/*
 * The kernel clock: time since boot, read from the TSC.  The TSC counts
 * at a constant rate whether or not interrupts are delivered (under QEMU
 * TCG it is the host's TSC), so the clock keeps time while every CPU is
 * busy or has interrupts off; timer ticks only drive scheduling and fire
 * timers, and a lost tick delays a timer to the next tick without making
 * the clock slow.  clock_init() measures the TSC's rate once at boot
 * against a counter of known frequency: the ACPI PM timer, or the PIT's
 * channel 2 on a machine without one.
 *
 * Rules: now_*() may be called anywhere (interrupts, NMI, any CPU) and
 * never go back: no CPU reads a value lower than one any CPU has returned
 * before.  Before clock_init() they return 0.
 */
#ifndef KERNEL_CLOCK_H
#define KERNEL_CLOCK_H

#include <stdint.h>
#include <kernel/arch/x86.h>

uint64_t now_ns(void);
uint64_t now_us(void);
uint64_t now_ms(void);

/*
 * The clock as the last timer tick read it, in ms: a load, without the
 * rdtsc and the 64-bit division of now_ms(), for code that reads the
 * time on every packet to run timeouts of a second or more (the
 * neighbour cache; Linux's jiffies).  Each tick stores a reading of the
 * clock, so it keeps time: a late tick makes it late, never slow.  It
 * lags now_ms() by up to a tick (1 ms), more while ticks are late, is
 * never ahead of it and never goes back.  0 until the first tick.
 */
extern uint64_t clock_coarse_ms; /* written by clock_tick only */
static inline uint64_t
now_ms_coarse(void)
{
	return read64_growing(&clock_coarse_ms);
}
/* The tick's half: timer_tick passes its reading of now_ns(). */
void clock_tick(uint64_t ns);

/*
 * A duration in microseconds printed as milliseconds with three decimals,
 * so short times keep their resolution (ping's "time=0.412 ms"):
 *     kprintf("took " USEC_MS_FMT " ms\n", USEC_MS(us));
 */
#define USEC_MS_FMT "%llu.%03u"
#define USEC_MS(us) (unsigned long long)((us) / 1000), (unsigned)((us) % 1000)

/*
 * Stamps, for bookkeeping written often and read rarely (when a device
 * reference was taken, when a cached route was last used): a stamp is
 * one rdtsc, with neither the conversion nor the cross-CPU ordering of
 * now_*(), so on the packet path it costs a few instructions instead of
 * a compare-and-swap and a 64-bit division.  An age is never negative
 * (a stamp from a CPU whose TSC runs ahead counts as age 0).
 */
uint64_t clock_stamp(void);
uint64_t clock_stamp_age_ms(uint64_t stamp);

/* Calibrate the TSC and start the clock at 0 (boot CPU, interrupts off). */
void clock_init(void);

/* TSC cycles as nanoseconds (for benchmarks that count cycles). */
uint64_t tsc_to_ns(uint64_t cycles);

/* Busy-wait (for early boot and hardware delays only). */
void udelay(unsigned us);
extern uint64_t tsc_per_ms;

/*
 * The counter the TSC was calibrated against, for tests that check the
 * clock with something other than the TSC: count() grows at hz and wraps
 * at mask + 1.
 */
struct clock_ref {
	const char *name;
	uint32_t hz;
	uint32_t mask;
	uint32_t (*count)(void);
	unsigned
	    cal_ms; /* one calibration measurement (kernel/sched/clock.c) */
};
const struct clock_ref *clock_reference(void);

#endif
