/*
 * smp: what the multiprocessor primitives promise.
 *  - a ticket spinlock keeps a counter exact under contention from every CPU
 *  - smp_call_on_cpu runs the function on the CPU asked for
 *  - this_cpu_id (cpu_id) reads the calling CPU's id through %gs, and
 *    spin_held with it is true for a lock this CPU took, false after,
 *    false for another CPU's
 *  - stop_machine: nothing else runs while its function does
 *  - unmap_page: once it returns, no CPU can read through the old mapping
 *    (and, as a control, without the shootdown a stale entry survives)
 * Cases that need several CPUs skip on a one-CPU machine.
 */
#include <kernel/debug/ktest.h>
#include <kernel/arch/smp.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/waitq.h>
#include <kernel/locking/spinlock.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/arch/irq.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/x86.h>
#include <kernel/lib/errno.h>

/* Total acquisitions, split over the workers: enough contention to lose
 * updates if the lock were broken, bounded time on 8 emulated CPUs (a
 * ticket lock whose next owner is a descheduled vCPU is slow). */
#define LOCK_TOTAL  4000
#define MAX_WORKERS (2 * MAX_CPUS)
/* A page near the top of the module area, away from what the paging
 * suite and the module loader use. */
#define SMP_TEST_VA (MODULE_END - (2u << 20))

/* State shared with worker threads lives in statics: the suite's cases
 * run one at a time and wait for their workers before returning. */
static struct {
	spinlock_t lock;
	volatile uint32_t counter;
	volatile int stop;
	volatile uint32_t spins[MAX_CPUS];
	struct completion done[MAX_WORKERS];
} sh;

static int lock_iters;

static void
lock_worker(void *arg)
{
	for (int i = 0; i < lock_iters; i++) {
		uint32_t f = spin_lock_irqsave(&sh.lock);
		uint32_t v = sh.counter;
		/* Widen the window between read and write so that a broken
		 * lock would lose updates visibly. */
		cpu_relax();
		sh.counter = v + 1;
		spin_unlock_irqrestore(&sh.lock, f);
	}
	complete(&sh.done[(int)(uintptr_t)arg]);
}

static int
online_cpus(int *ids)
{
	int n = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		if (cpus[i].state == CPU_ONLINE)
			ids[n++] = i;
	return n;
}

static void
contended_lock_counter(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids), workers = 2 * n;

	spin_init(&sh.lock, "ktest-smp");
	sh.counter = 0;
	lock_iters = LOCK_TOTAL / workers;
	for (int w = 0; w < workers; w++) {
		completion_init(&sh.done[w]);
		KASSERT_TRUE(t, thread_create("lockworker", lock_worker,
		                              (void *)(uintptr_t)w,
		                              ids[w % n]) != NULL);
	}
	for (int w = 0; w < workers; w++)
		wait_for_completion(&sh.done[w]);
	KEXPECT_EQ(t, sh.counter, (uint32_t)workers * lock_iters);
	KEXPECT_TRUE(t, !spin_is_locked(&sh.lock));
}

static volatile int ran_on[MAX_CPUS];

static void
record_cpu(void *arg)
{
	int slot = (int)(uintptr_t)arg;

	ran_on[slot] = cpu_id();
	/* Runs from the IPI handler: interrupts must be off. */
	if (read_eflags() & EFLAGS_IF)
		ran_on[slot] = -2;
}

static void
cross_cpu_call(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids);

	for (int i = 0; i < n; i++) {
		uint64_t ipis = cpus[ids[i]].nr_ipis;
		ran_on[i] = -1;
		KEXPECT_EQ(t,
		           smp_call_on_cpu(ids[i], record_cpu,
		                           (void *)(uintptr_t)i, true),
		           0);
		KEXPECT_EQ(t, ran_on[i], ids[i]);
		if (ids[i] != cpu_id())
			KEXPECT_TRUE(t, cpus[ids[i]].nr_ipis > ipis);
	}
	KEXPECT_EQ(t, smp_call_on_cpu(MAX_CPUS, record_cpu, NULL, true),
	           -ENODEV);
}

static volatile int id_seen[MAX_CPUS], held_seen[MAX_CPUS];

static void
check_held_here(void *arg)
{
	int slot = (int)(uintptr_t)arg;
	spinlock_t mine = SPINLOCK_INIT("ktest_mine");
	spinlock_t theirs = SPINLOCK_INIT("ktest_theirs");

	/* held by another CPU, as far as spin_held can tell */
	theirs.owner_cpu = (cpu_id() + 1) % MAX_CPUS;
	id_seen[slot] = this_cpu_id();
	spin_lock(&mine); /* interrupts are off in a cross-CPU call */
	held_seen[slot] = spin_held(&mine) && !spin_held(&theirs);
	spin_unlock(&mine);
	if (spin_held(&mine))
		held_seen[slot] = 0;
}

static void
spin_held_reads_this_cpu(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids);

	for (int i = 0; i < n; i++) {
		id_seen[i] = held_seen[i] = -1;
		KASSERT_TRUE(t,
		             smp_call_on_cpu(ids[i], check_held_here,
		                             (void *)(uintptr_t)i, true) == 0);
		KEXPECT_EQ(t, id_seen[i], ids[i]);
		KEXPECT_EQ(t, held_seen[i], 1);
	}
}

static void
spinner(void *arg)
{
	int me = cpu_id();

	while (!sh.stop)
		sh.spins[me]++;
	complete(&sh.done[(int)(uintptr_t)arg]);
}

struct stop_check {
	uint32_t before[MAX_CPUS], after[MAX_CPUS];
	int irqs_on;
};

static int
stopped_fn(void *arg)
{
	struct stop_check *sc = arg;

	sc->irqs_on = (read_eflags() & EFLAGS_IF) != 0;
	for (int i = 0; i < MAX_CPUS; i++)
		sc->before[i] = sh.spins[i];
	udelay(20000);
	for (int i = 0; i < MAX_CPUS; i++)
		sc->after[i] = sh.spins[i];
	return 42;
}

static void
stop_machine_exclusive(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids), w = 0;
	struct stop_check sc;
	bool moved_before = false;

	sh.stop = 0;
	for (int i = 0; i < MAX_CPUS; i++)
		sh.spins[i] = 0;
	for (int i = 0; i < n; i++) {
		if (ids[i] == cpu_id())
			continue;
		completion_init(&sh.done[w]);
		KASSERT_TRUE(t, thread_create("spinner", spinner,
		                              (void *)(uintptr_t)w,
		                              ids[i]) != NULL);
		w++;
	}
	/* The spinners must demonstrably run before we stop them. */
	for (int i = 0; i < n; i++) {
		if (ids[i] == cpu_id())
			continue;
		uint64_t end = now_ms() + 5000;
		while (sh.spins[ids[i]] == 0 && now_ms() < end)
			msleep(1);
		moved_before = sh.spins[ids[i]] != 0;
		KEXPECT_TRUE(t, moved_before);
	}
	KEXPECT_EQ(t, stop_machine(stopped_fn, &sc), 42);
	KEXPECT_EQ(t, sc.irqs_on, 0);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(t, sc.after[ids[i]], sc.before[ids[i]]);
	sh.stop = 1;
	for (int i = 0; i < w; i++)
		wait_for_completion(&sh.done[i]);
	if (n == 1)
		ktest_skip(t, "one CPU: exclusivity is trivially true");
}

static volatile int probe_result[MAX_CPUS];
static volatile uint32_t probe_value[MAX_CPUS];

static void
probe_test_va(void *arg)
{
	(void)arg;
	probe_result[cpu_id()] = probe_read32(
	    (void *)SMP_TEST_VA, (uint32_t *)&probe_value[cpu_id()]);
}

/* Map a page, let every CPU cache the translation, unmap it (with or
 * without the shootdown), then let every other CPU try again.  Returns
 * how many other CPUs could still read it. */
static int
stale_readers(struct ktest *t, bool shoot)
{
	int ids[MAX_CPUS], n = online_cpus(ids), stale = 0;
	void (*saved)(uintptr_t, size_t) = tlb_shootdown;
	void *page = alloc_page("ktest");

	KASSERT_TRUE(t, page != NULL);
	*(uint32_t *)page = 0x5eed5eed;
	KASSERT_TRUE(t, map_page(SMP_TEST_VA, V2P(page), PTE_W) == 0);
	for (int i = 0; i < n; i++) {
		probe_result[ids[i]] = 1;
		smp_call_on_cpu(ids[i], probe_test_va, NULL, true);
		KEXPECT_EQ(t, probe_result[ids[i]], 0);
		KEXPECT_EQ(t, probe_value[ids[i]], 0x5eed5eed);
	}
	if (!shoot)
		tlb_shootdown = NULL;
	KEXPECT_EQ(t, unmap_page(SMP_TEST_VA), V2P(page));
	tlb_shootdown = saved;
	for (int i = 0; i < n; i++) {
		if (ids[i] == cpu_id())
			continue;
		probe_result[ids[i]] = 1;
		smp_call_on_cpu(ids[i], probe_test_va, NULL, true);
		if (probe_result[ids[i]] == 0)
			stale++;
	}
	/* Leave no stale entry behind for later users of the address. */
	tlb_flush_range(SMP_TEST_VA, 1);
	free_page(page);
	return stale;
}

static void
unmap_faults_on_every_cpu(struct ktest *t)
{
	int ids[MAX_CPUS];

	KEXPECT_EQ(t, stale_readers(t, true), 0);
	if (online_cpus(ids) == 1)
		ktest_skip(t, "one CPU: no remote TLB to shoot down");
}

/* The control: shows the test above can fail.  QEMU keeps a TLB per
 * virtual CPU, so without the shootdown the other CPUs keep reading the
 * freed page.  (If a CPU happened to evict the entry, nothing is shown.) */
static void
stale_tlb_without_shootdown(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids), stale;

	if (n == 1) {
		ktest_skip(t, "one CPU: no remote TLB");
		return;
	}
	stale = stale_readers(t, false);
	if (stale == 0)
		ktest_skip(t, "no stale entry observed (evicted)");
	else
		KEXPECT_TRUE(t, stale > 0);
}

/* Device interrupts can be routed to any CPU: move the PIT's line to the
 * last online CPU for a while, with a second handler on the line that
 * counts where it runs, and check that the target took most of the
 * PIT's interrupts; then move it back.  Counted per interrupt, not per
 * millisecond: a busy host loses ticks (smp8 on 2 host cores: 34 in
 * 400 ms). */
static volatile uint32_t pit_seen[MAX_CPUS];

static void
pit_counter(void *arg)
{
	(void)arg;
	pit_seen[cpu_id()]++;
}

static void
irq_routed_to_another_cpu(struct ktest *t)
{
	int ids[MAX_CPUS], n = online_cpus(ids), target = ids[n - 1];
	uint32_t total = 0;

	if (n == 1 || irq_get_chip()->set_affinity == NULL) {
		ktest_skip(t, "needs two CPUs and an I/O APIC");
		return;
	}
	for (int i = 0; i < MAX_CPUS; i++)
		pit_seen[i] = 0;
	KASSERT_TRUE(t, irq_register(0, pit_counter, NULL, "ktest") == 0);
	KEXPECT_EQ(t, irq_set_affinity(0, target), 0);
	msleep(300);
	KEXPECT_EQ(t, irq_set_affinity(0, 0), 0);
	irq_unregister(0, pit_counter, NULL);
	for (int i = 0; i < MAX_CPUS; i++)
		total += pit_seen[i];
	/* The ones before the move took effect went to CPU 0. */
	KEXPECT_MSG(t, total > 0 && pit_seen[target] > total / 2,
	            "cpu %d ran %u of the PIT's %u interrupts", target,
	            (unsigned)pit_seen[target], (unsigned)total);
	KEXPECT_EQ(t, irq_set_affinity(0, MAX_CPUS), -ENODEV);
}

KTEST_SUITE(smp, KTEST_CASE(contended_lock_counter), KTEST_CASE(cross_cpu_call),
            KTEST_CASE(spin_held_reads_this_cpu),
            KTEST_CASE(stop_machine_exclusive),
            KTEST_CASE(unmap_faults_on_every_cpu),
            KTEST_CASE(stale_tlb_without_shootdown),
            KTEST_CASE(irq_routed_to_another_cpu));
