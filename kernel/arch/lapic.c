/*
 * The local APIC (see apic.h).  Mapped once, uncached; every CPU sees its
 * own APIC at the same address.
 */
#include <kernel/arch/apic.h>
#include <kernel/arch/irq.h>
#include <kernel/mm/paging.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/x86.h>
#include <kernel/sched/clock.h>
#include <kernel/debug/panic.h>

#define LAPIC_ID         0x020
#define LAPIC_EOI        0x0b0
#define LAPIC_SVR        0x0f0
#define LAPIC_ICR_LO     0x300
#define LAPIC_ICR_HI     0x310
#define LAPIC_LVT_TIMER  0x320
#define LAPIC_LVT_LINT0  0x350
#define LAPIC_LVT_LINT1  0x360
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR  0x390
#define LAPIC_TIMER_DIV  0x3e0
#define LAPIC_TPR        0x080

#define SVR_ENABLE       0x100
#define LVT_MASKED       0x10000
#define TIMER_PERIODIC   0x20000
#define ICR_PENDING      0x1000
#define ICR_LEVEL_ASSERT 0x4000
#define ICR_INIT         0x500
#define ICR_STARTUP      0x600
#define ICR_NMI          0x400

static volatile uint32_t *lapic;
static uint32_t ticks_per_period;

static inline uint32_t
rd(uint32_t reg)
{
	return lapic[reg / 4];
}

static inline void
wr(uint32_t reg, uint32_t v)
{
	lapic[reg / 4] = v;
	(void)lapic[LAPIC_ID / 4]; /* wait for the write to land */
}

void
lapic_init(uint32_t phys)
{
	lapic = ioremap(phys, 4096);
}

int
lapic_id(void)
{
	return lapic != NULL ? (int)(rd(LAPIC_ID) >> 24) : 0;
}

void
lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

static void
lapic_timer_irq(struct trapframe *tf)
{
	struct cpu *c = this_cpu();

	/* A tick that interrupted code outside any read-side section
	 * (preemption on, interrupts on) is a quiescent state for
	 * synchronize_rcu(), even if this CPU never switches threads. */
	if ((tf->eflags & EFLAGS_IF) && c->preempt_off == 0)
		c->qs_seq++;
	sched_tick(1000 / SCHED_HZ);
	lapic_eoi();
}

static void
spurious_irq(struct trapframe *tf)
{
	(void)tf; /* no EOI for spurious interrupts (SDM 11.9) */
}

void
lapic_setup_cpu(void)
{
	wr(LAPIC_TPR, 0);
	wr(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	wr(LAPIC_LVT_LINT0, LVT_MASKED);
	wr(LAPIC_LVT_LINT1, LVT_MASKED);
	vector_register(VEC_LAPIC_TIMER, lapic_timer_irq);
	vector_register(VEC_SPURIOUS, spurious_irq);
	if (ticks_per_period != 0) {
		wr(LAPIC_TIMER_DIV, 0x3); /* divide by 16 */
		wr(LAPIC_LVT_TIMER, TIMER_PERIODIC | VEC_LAPIC_TIMER);
		wr(LAPIC_TIMER_INIT, ticks_per_period);
	}
}

/* The timer's count against the TSC, which clock_init() has calibrated:
 * the narrowest of a few bracketed reads (rdtsc, count, rdtsc) at each
 * end, so a host preemption between the two reads of one end is caught,
 * and one elsewhere does no harm (under QEMU both count host time).  The
 * rate only sets the scheduler tick, so LAPIC_CAL_MS is short. */
#define LAPIC_CAL_MS      2
#define LAPIC_CAL_SAMPLES 5

static void
timer_sample(uint64_t *tsc, uint32_t *count)
{
	uint64_t width = UINT64_MAX;

	for (int i = 0; i < LAPIC_CAL_SAMPLES; i++) {
		uint64_t a = rdtsc();
		uint32_t c = rd(LAPIC_TIMER_CUR);
		uint64_t b = rdtsc();

		if (b - a < width) {
			width = b - a;
			*tsc = a + (b - a) / 2;
			*count = c;
		}
	}
}

void
lapic_calibrate(void)
{
	uint64_t t0, t1, ticks;
	uint32_t c0, c1;

	ASSERT(tsc_per_ms != 0); /* clock_init() first */
	wr(LAPIC_TIMER_DIV, 0x3);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INIT, 0xffffffff);
	timer_sample(&t0, &c0);
	while (rdtsc() - t0 < tsc_per_ms * LAPIC_CAL_MS)
		cpu_relax();
	timer_sample(&t1, &c1);
	wr(LAPIC_TIMER_INIT, 0);
	/* The count runs down; it cannot wrap in LAPIC_CAL_MS below 850
	 * GHz of timer input. */
	ticks = (uint64_t)(c0 - c1) * tsc_per_ms / (t1 - t0 ? t1 - t0 : 1);
	this_cpu()->lapic_ticks_per_ms = (uint32_t)ticks;
	ticks_per_period = (uint32_t)ticks * (1000 / SCHED_HZ);
	if (ticks_per_period == 0)
		ticks_per_period = 1000;
}

static void
icr_wait(void)
{
	while (rd(LAPIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
}

void
lapic_send_ipi(int apic_id, int vector, bool nmi)
{
	uint32_t f = local_irq_save();

	icr_wait();
	wr(LAPIC_ICR_HI, (uint32_t)apic_id << 24);
	wr(LAPIC_ICR_LO, nmi ? ICR_NMI : (uint32_t)vector);
	icr_wait();
	local_irq_restore(f);
}

void
lapic_send_init(int apic_id)
{
	icr_wait();
	wr(LAPIC_ICR_HI, (uint32_t)apic_id << 24);
	wr(LAPIC_ICR_LO, ICR_INIT | ICR_LEVEL_ASSERT);
	icr_wait();
}

void
lapic_send_startup(int apic_id, uint32_t trampoline_phys)
{
	icr_wait();
	wr(LAPIC_ICR_HI, (uint32_t)apic_id << 24);
	wr(LAPIC_ICR_LO, ICR_STARTUP | (trampoline_phys >> 12));
	icr_wait();
}
