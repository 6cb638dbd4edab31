/*
 * The kernel clock (see clock.h).  The TSC's rate is measured once, at
 * boot, against a reference counter; after that a reading is one rdtsc, a
 * multiply and a compare-and-swap that keeps readings monotonic across
 * CPUs (now_ms: one a millisecond).
 *
 * Calibration has to work on a loaded host, where QEMU's vCPU thread can
 * be preempted for milliseconds at any instruction.  Both the TSC and the
 * reference count host time, so a preemption between the two ends of the
 * measurement does no harm; what does harm is one between the rdtsc and
 * the reference read that are meant to be simultaneous.  So each end is
 * the narrowest of a few bracketed reads (rdtsc, read, rdtsc), and the
 * whole measurement is repeated until two in a row agree.
 */
#include <kernel/sched/clock.h>
#include <kernel/arch/acpi.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/arch/x86.h>

uint64_t tsc_per_ms;

/* Written once by clock_init(), before any other CPU runs. */
static uint64_t tsc_base;
static uint32_t tsc_mult; /* ns per cycle, scaled by 2^tsc_shift */
static unsigned tsc_shift;
/* The highest reading returned so far, on any CPU. */
static uint64_t clock_last;
/* now_ms_coarse(): the latest tick's reading, in ms. */
uint64_t clock_coarse_ms;

/* (cycles * tsc_mult) >> tsc_shift without losing the high bits. */
uint64_t
tsc_to_ns(uint64_t cycles)
{
	uint64_t lo = (uint64_t)(uint32_t)cycles * tsc_mult;
	uint64_t hi = (cycles >> 32) * tsc_mult;

	return (hi << (32 - tsc_shift)) + (lo >> tsc_shift);
}

/* The clock before the monotonic clamp: this CPU's TSC since boot. */
static uint64_t
raw_ns(void)
{
	int64_t d = (int64_t)(rdtsc() - tsc_base);

	/* A CPU whose TSC lags the boot CPU's must not read "before boot". */
	return tsc_to_ns(d > 0 ? (uint64_t)d : 0);
}

/* Raise *p to v (seen: a value of *p read before), unless another CPU
 * has raised it higher; returns what *p holds then. */
static uint64_t
raise_to(uint64_t *p, uint64_t v, uint64_t seen)
{
	while (v > seen) {
		uint64_t prev = __sync_val_compare_and_swap(p, seen, v);
		if (prev == seen)
			return v;
		seen = prev;
	}
	return seen;
}

/* Make v the highest reading returned so far, unless one is higher. */
static uint64_t
publish(uint64_t v, uint64_t seen)
{
	return raise_to(&clock_last, v, seen);
}

uint64_t
now_ns(void)
{
	if (tsc_mult == 0)
		return 0;
	/* clock_last only grows: read without a locked instruction. */
	return publish(raw_ns(), read64_growing(&clock_last));
}

uint64_t
now_us(void)
{
	return now_ns() / 1000;
}

/*
 * Milliseconds from the same clock, at most one compare-and-swap per
 * millisecond instead of one per call (ARP reads the clock for every
 * packet it sends).  A reading is published only when it starts a
 * millisecond clock_last has not reached: every ms returned then has
 * ms * 10^6 <= clock_last, so no later now_ns, now_us or now_ms on any
 * CPU reads less.
 */
uint64_t
now_ms(void)
{
	uint64_t seen, v, ms;

	if (tsc_mult == 0)
		return 0;
	seen = read64_growing(&clock_last);
	v = raw_ns();
	if (v <= seen)
		return seen / 1000000;
	ms = v / 1000000;
	if (seen < ms * 1000000)
		ms = publish(v, seen) / 1000000;
	return ms;
}

void
clock_tick(uint64_t ns)
{
	/* Only raised, and stored whole (read64_growing's rule): the tick's
	 * line can move to another CPU while a tick is in flight. */
	raise_to(&clock_coarse_ms, ns / 1000000,
	         read64_growing(&clock_coarse_ms));
}

uint64_t
clock_stamp(void)
{
	return rdtsc();
}

uint64_t
clock_stamp_age_ms(uint64_t stamp)
{
	uint64_t now = rdtsc();

	return now > stamp ? tsc_to_ns(now - stamp) / 1000000 : 0;
}

void
udelay(unsigned us)
{
	uint64_t end = rdtsc() + tsc_per_ms * us / 1000;

	while (rdtsc() < end)
		cpu_relax();
}

/* ---- reference counters ------------------------------------------------ */

/* The ACPI PM timer: 3.579545 MHz, 24 or 32 bits (ACPI 6.4 4.8.3.3). */
static uint16_t pmtmr_port;

static uint32_t
pmtmr_count(void)
{
	return inl(pmtmr_port);
}

static struct clock_ref pmtmr_ref = {"ACPI PM timer", 3579545, 0xffffff,
                                     pmtmr_count, 2};

/*
 * The 8254 PIT's channel 2 (Intel 82C54 datasheet), counting down from
 * 65536 in mode 0 and wrapping: read as a counter that grows.  Port 0x61
 * bit 0 is channel 2's gate, bit 1 the speaker (kept off).
 */
#define PIT_CH2     0x42
#define PIT_CMD     0x43
#define PORT_B      0x61
#define PIT_HZ      1193182
#define PIT_CH2_M0  0xb0 /* channel 2, lo/hi byte, mode 0, binary */
#define PIT_CH2_LAT 0x80 /* channel 2, latch the count */

static uint32_t
pit2_count(void)
{
	uint32_t lo, hi;

	outb(PIT_CMD, PIT_CH2_LAT);
	lo = inb(PIT_CH2);
	hi = inb(PIT_CH2);
	return ~(lo | hi << 8) & 0xffff;
}

static void
pit2_start(void)
{
	outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01);
	outb(PIT_CMD, PIT_CH2_M0);
	outb(PIT_CH2, 0); /* 0 is 65536 */
	outb(PIT_CH2, 0);
}

static struct clock_ref pit2_ref = {"PIT channel 2", PIT_HZ, 0xffff, pit2_count,
                                    10};

static const struct clock_ref *ref;

const struct clock_ref *
clock_reference(void)
{
	return ref;
}

/* ---- calibration ------------------------------------------------------- */

/*
 * A measurement spans ref->cal_ms of the reference, between two of the
 * narrowest bracketed reads (sample): under QEMU the TSC and the
 * reference both count host time, so a preemption inside the span does
 * no harm and the error is the brackets' half-widths and one count, over
 * the span.  The PM timer is one port read (a bracket well under a
 * microsecond, a count of 279 ns): 2 ms keeps a measurement within
 * ~1/3000, and two must agree to 1/1000.  10 ms windows cost 20 ms of
 * every boot, half of what modref adds to QEMU's own start (docs/bench.md).
 * The PIT's count takes three port accesses (a wider bracket) and keeps
 * 10 ms, well within its 55 ms wrap.
 */
#define CAL_TRIES       10
#define CAL_SAMPLES     5
#define CAL_AGREE_PM    1 /* two measurements agree to 1/1000 */
#define CAL_STUCK_READS 1000000

struct sample {
	uint64_t tsc;   /* when the reference was read, give or take width/2 */
	uint64_t width; /* cycles between the two rdtscs around the read */
	uint32_t count;
};

/* The narrowest of a few bracketed reads: one the host did not preempt. */
static void
sample(struct sample *best)
{
	best->width = UINT64_MAX;
	for (int i = 0; i < CAL_SAMPLES; i++) {
		uint64_t a = rdtsc();
		uint32_t c = ref->count() & ref->mask;
		uint64_t b = rdtsc();

		if (b - a < best->width) {
			best->tsc = a + (b - a) / 2;
			best->width = b - a;
			best->count = c;
		}
	}
}

/* TSC cycles per second over cal_ms of the reference; 0 if it made no
 * sense (the TSC did not move, or the counter is stuck: a working one
 * changes every microsecond, so a million reads of one value mean a
 * firmware table pointed at nothing). */
static uint64_t
measure(void)
{
	uint64_t ticks = 0, want = (uint64_t)ref->hz * ref->cal_ms / 1000;
	struct sample a, b;
	uint32_t prev, c, same = 0;

	sample(&a);
	prev = a.count;
	/* Reading continuously, each step is far shorter than a wrap. */
	while (ticks < want) {
		c = ref->count() & ref->mask;
		if (c == prev && ++same > CAL_STUCK_READS)
			return 0;
		if (c != prev)
			same = 0;
		ticks += (c - prev) & ref->mask;
		prev = c;
	}
	sample(&b);
	ticks += (b.count - prev) & ref->mask;
	if (b.tsc <= a.tsc)
		return 0;
	return (b.tsc - a.tsc) * ref->hz / ticks;
}

static bool
agree(uint64_t x, uint64_t y)
{
	uint64_t d = x > y ? x - y : y - x;

	return d * 1000 <= (x < y ? x : y) * CAL_AGREE_PM;
}

static uint64_t
calibrate(void)
{
	uint64_t prev = 0, hz = 0;

	for (int i = 0; i < CAL_TRIES; i++) {
		hz = measure();
		if (hz != 0 && prev != 0 && agree(hz, prev))
			return (hz + prev) / 2;
		if (hz == 0 && i > 0 && prev == 0)
			return 0; /* twice nothing: stuck, not unlucky */
		prev = hz;
	}
	if (hz != 0)
		pr_warn("clock: TSC calibration never settled; %u kHz may "
		        "be off\n",
		        (unsigned)(hz / 1000));
	return hz;
}

void
clock_init(void)
{
	int bits;
	uint64_t hz;

	if (acpi_pm_timer(&pmtmr_port, &bits) == 0) {
		pmtmr_ref.mask = bits == 32 ? 0xffffffff : 0xffffff;
		ref = &pmtmr_ref;
	} else {
		pit2_start();
		ref = &pit2_ref;
	}
	hz = calibrate();
	if (hz == 0 && ref == &pmtmr_ref) {
		pr_warn("clock: the ACPI PM timer at port %x does not count; "
		        "using the PIT\n",
		        pmtmr_port);
		pit2_start();
		ref = &pit2_ref;
		hz = calibrate();
	}
	if (hz == 0)
		panic("clock: cannot measure the TSC against the %s: one "
		      "of them does not count",
		      ref->name);
	if (hz < 1000000)
		hz = 1000000; /* a TSC slower than 1 MHz is not one */
	tsc_per_ms = hz / 1000;
	/* The largest scale that keeps ns-per-cycle in 32 bits: 2^32 for
	 * any TSC of 1 GHz and up. */
	for (tsc_shift = 32;; tsc_shift--) {
		uint64_t m = (1000000000ull << tsc_shift) / hz;
		if (m <= UINT32_MAX || tsc_shift == 0) {
			tsc_mult = (uint32_t)m;
			break;
		}
	}
	tsc_base = rdtsc();
	pr_info("clock: TSC at %u.%03u MHz (calibrated against the %s)\n",
	        (unsigned)(hz / 1000000), (unsigned)(hz / 1000 % 1000),
	        ref->name);
}
