/*
 * SMP bring-up and inter-processor calls (see smp.h).
 *
 * Boot: the MADT lists the CPUs; the boot CPU switches interrupt delivery
 * to the I/O APIC + local APICs, calibrates the local APIC timer, then
 * starts each application processor with INIT-SIPI-SIPI (Intel MP spec
 * B.4) through the real-mode trampoline and waits for it to come online.
 */
#include <kernel/arch/smp.h>
#include <kernel/locking/rcu.h>
#include <kernel/arch/acpi.h>
#include <kernel/arch/apic.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/irq.h>
#include <kernel/sched/sched.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/paging.h>
#include <kernel/console/printk.h>
#include <kernel/debug/panic.h>
#include <kernel/sched/timer.h>
#include <kernel/locking/mutex.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>

#define TRAMPOLINE          0x8000
#define AP_START_TIMEOUT_MS 2000
#define STOP_TIMEOUT_SPINS  (1u << 30)

extern char trampoline_start[], trampoline_end[];
extern uint32_t tramp_cr3, tramp_stack, tramp_entry, tramp_cpu;
extern int pit_drives_sched;
void pic_disable(void);

struct call_req {
	struct list_head link;
	void (*fn)(void *);
	void *arg;
	volatile int done;
};

static struct {
	spinlock_t lock;
	struct list_head queue;
	struct call_req async; /* for stop_machine, which never waits */
} callq[MAX_CPUS];

static struct thread ap_idle[MAX_CPUS];
static int online_count = 1;

int
nr_online_cpus(void)
{
	return READ_ONCE(online_count);
}

/* ---- inter-processor calls ---------------------------------------- */

static void
call_func_ipi(struct trapframe *tf)
{
	struct cpu *c = this_cpu();
	struct list_head todo;

	(void)tf;
	c->nr_ipis++;
	lapic_eoi();
	INIT_LIST_HEAD(&todo);
	spin_lock(&callq[c->id].lock);
	while (!list_empty(&callq[c->id].queue)) {
		struct call_req *r = list_first_entry(&callq[c->id].queue,
		                                      struct call_req, link);
		list_del_init(&r->link);
		list_add_tail(&r->link, &todo);
	}
	spin_unlock(&callq[c->id].lock);
	while (!list_empty(&todo)) {
		struct call_req *r =
		    list_first_entry(&todo, struct call_req, link);
		list_del_init(&r->link);
		r->fn(r->arg);
		/* r may live on the caller's stack: done is the last touch. */
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	}
}

static void
check_may_wait(const char *what)
{
	struct cpu *c = this_cpu();

	if (panicking)
		return;
	if (!(read_eflags() & EFLAGS_IF) || c->locks_held != 0 ||
	    c->irq_depth != 0)
		panic("%s: called with interrupts off or a spinlock held "
		      "(would deadlock against another CPU)",
		      what);
}

static void
queue_call(int cpu, struct call_req *r)
{
	uint32_t f = spin_lock_irqsave(&callq[cpu].lock);
	list_add_tail(&r->link, &callq[cpu].queue);
	spin_unlock_irqrestore(&callq[cpu].lock, f);
	lapic_send_ipi(cpus[cpu].apic_id, VEC_CALL_FUNC, false);
}

int
smp_call_on_cpu(int cpu, void (*fn)(void *), void *arg, bool wait)
{
	struct call_req r;

	if (cpu < 0 || cpu >= MAX_CPUS || cpus[cpu].state != CPU_ONLINE)
		return -ENODEV;
	if (cpu == cpu_id()) {
		uint32_t f = local_irq_save();
		fn(arg);
		local_irq_restore(f);
		return 0;
	}
	if (!wait) {
		struct call_req *a = &callq[cpu].async;
		if (!list_empty(&a->link))
			return -EBUSY;
		a->fn = fn;
		a->arg = arg;
		a->done = 0;
		queue_call(cpu, a);
		return 0;
	}
	check_may_wait("smp_call_on_cpu");
	INIT_LIST_HEAD(&r.link);
	r.fn = fn;
	r.arg = arg;
	r.done = 0;
	queue_call(cpu, &r);
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
		cpu_relax();
	return 0;
}

void
smp_call_all(void (*fn)(void *), void *arg)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && cpus[i].state == CPU_ONLINE)
			smp_call_on_cpu(i, fn, arg, true);
}

static void
resched_ipi(struct trapframe *tf)
{
	(void)tf;
	this_cpu()->nr_ipis++;
	this_cpu()->need_resched = 1;
	lapic_eoi();
}

static void
send_reschedule(int cpu)
{
	lapic_send_ipi(cpus[cpu].apic_id, VEC_RESCHED, false);
}

/* ---- TLB shootdown ---------------------------------------------------- */

struct flush_range {
	uintptr_t va;
	size_t n;
};

static void
flush_local(void *arg)
{
	struct flush_range *r = arg;

	for (size_t i = 0; i < r->n; i++)
		invlpg(r->va + i * PAGE_SIZE);
}

volatile unsigned long tlb_idle_skips;

/* c was halted (idle_eqs odd, eqs) when we looked: leave it a note.  The
 * exchange and its cpu_idle_exit's compare-and-swap are both locked, so
 * one comes first: if ours, it reads the note after waking; if its,
 * idle_eqs has moved and we send the IPI after all. */
static bool
defer_to_idle_exit(struct cpu *c, uint32_t eqs)
{
	if ((eqs & 1) == 0)
		return false;
	__atomic_exchange_n(&c->tlb_stale, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&c->idle_eqs, __ATOMIC_SEQ_CST) == eqs;
}

static void
shootdown(uintptr_t va, size_t n)
{
	struct flush_range r = {va, n};

	if (nr_online_cpus() == 1 || panicking)
		return;
	for (int i = 0; i < MAX_CPUS; i++) {
		struct cpu *c = &cpus[i];

		if (i == cpu_id() || c->state != CPU_ONLINE)
			continue;
		if (defer_to_idle_exit(
		        c, __atomic_load_n(&c->idle_eqs, __ATOMIC_SEQ_CST))) {
			__atomic_add_fetch(&tlb_idle_skips, 1,
			                   __ATOMIC_RELAXED);
			continue;
		}
		smp_call_on_cpu(i, flush_local, &r, true);
	}
}

void
cpu_idle_enter(void)
{
	this_cpu()->idle_since = rdtsc();
	rcu_idle_enter();
}

void
cpu_idle_exit(void)
{
	struct cpu *c = this_cpu();

	rcu_idle_exit(); /* a full barrier before we read the note */
	if (c->idle_since != 0) {
		c->idle_tsc += rdtsc() - c->idle_since;
		c->idle_since = 0;
	}
	if (c->tlb_stale &&
	    __atomic_exchange_n(&c->tlb_stale, 0, __ATOMIC_SEQ_CST))
		write_cr3(read_cr3()); /* no global pages: flushes it all */
}

/* ---- stop_machine ----------------------------------------------------- */

static DEFINE_MUTEX(stop_mutex);
static volatile int stop_arrived, stop_release, stop_left;
volatile int stop_machine_active;

static void
stop_cpu(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&stop_arrived, 1, __ATOMIC_SEQ_CST);
	while (!READ_ONCE(stop_release))
		cpu_relax();
	__atomic_add_fetch(&stop_left, 1, __ATOMIC_SEQ_CST);
}

int
stop_machine(int (*fn)(void *), void *arg)
{
	int others = 0, ret;
	uint32_t f, spins = 0;

	check_may_wait("stop_machine");
	mutex_lock(&stop_mutex);
	stop_arrived = 0;
	stop_left = 0;
	stop_release = 0;
	preempt_disable();
	for (int i = 0; i < MAX_CPUS; i++) {
		if (i == cpu_id() || cpus[i].state != CPU_ONLINE)
			continue;
		/* The async slot is stop_machine's alone and the previous
		 * stop has left it, so it cannot be busy; if it were, running
		 * fn with that CPU still going would break the promise. */
		if (smp_call_on_cpu(i, stop_cpu, NULL, false) != 0)
			panic("stop_machine: cannot stop cpu %d", i);
		others++;
	}
	f = local_irq_save();
	while (READ_ONCE(stop_arrived) < others)
		if (++spins == STOP_TIMEOUT_SPINS)
			panic("stop_machine: only %d of %d CPUs stopped",
			      stop_arrived, others);
	stop_machine_active = 1;
	ret = fn(arg);
	stop_machine_active = 0;
	__atomic_store_n(&stop_release, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(stop_left) < others)
		cpu_relax();
	local_irq_restore(f);
	preempt_enable();
	mutex_unlock(&stop_mutex);
	return ret;
}

/* ---- panic: stop everyone, even CPUs spinning with interrupts off ------ */

static void
stop_others_nmi(void)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && cpus[i].state == CPU_ONLINE)
			lapic_send_ipi(cpus[i].apic_id, 0, true);
	udelay(10000);
}

/* ---- bring-up -------------------------------------------------------------
 */

__attribute__((noreturn)) void
ap_main(int id)
{
	char name[16];
	struct cpu *c = &cpus[id];

	cpu_init_segments(id);
	trap_load_idt();
	lapic_setup_cpu();
	c->apic_id = lapic_id();
	snprintf(name, sizeof(name), "idle/%d", id);
	sched_init_cpu_idle(&ap_idle[id], name);
	__atomic_add_fetch(&online_count, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->state, CPU_ONLINE, __ATOMIC_SEQ_CST);
	idle_loop();
}

/* The MP spec's 10 ms wait after INIT (B.4) is for the external 82489DX
 * APIC; a CPU with its APIC on chip (family 6 and later) is ready for
 * the STARTUP IPI at once, as Linux also assumes.  Under QEMU the wait
 * was 10 ms of every boot per AP. */
static bool
init_wait_needed(void)
{
	uint32_t a, b, c, d, family;

	cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return family < 6;
}

static int
start_ap(int id, int apic_id)
{
	char *t = P2V(TRAMPOLINE);
	void *stack = alloc_pages(KSTACK_PAGES, "stack");
	uint64_t deadline;

	if (stack == NULL)
		return -ENOMEM;
	memcpy(t, trampoline_start, trampoline_end - trampoline_start);
#define TRAMP_WORD(sym) (*(uint32_t *)(t + ((char *)&(sym)-trampoline_start)))
	TRAMP_WORD(tramp_cr3) = V2P(kernel_page_directory());
	TRAMP_WORD(tramp_stack) = (uint32_t)stack + KSTACK_SIZE;
	TRAMP_WORD(tramp_entry) = (uint32_t)ap_main;
	TRAMP_WORD(tramp_cpu) = (uint32_t)id;
#undef TRAMP_WORD
	cpus[id].apic_id = apic_id;
	cpus[id].state = CPU_BOOTING;
	lapic_send_init(apic_id);
	if (init_wait_needed())
		udelay(10000);
	for (int i = 0; i < 2 && cpus[id].state != CPU_ONLINE; i++) {
		lapic_send_startup(apic_id, TRAMPOLINE);
		udelay(200);
	}
	deadline = now_ms() + AP_START_TIMEOUT_MS;
	while (READ_ONCE(cpus[id].state) != CPU_ONLINE) {
		if (now_ms() > deadline) {
			cpus[id].state = CPU_OFFLINE;
			/* The stack stays allocated: the AP may yet run. */
			return -ETIMEDOUT;
		}
		cpu_relax();
	}
	return 0;
}

void
smp_init(void)
{
	uint32_t *pd = kernel_page_directory();
	int next = 1;

	for (int i = 0; i < MAX_CPUS; i++) {
		spin_init(&callq[i].lock, "callq");
		INIT_LIST_HEAD(&callq[i].queue);
		INIT_LIST_HEAD(&callq[i].async.link);
	}
	if (acpi_init() != 0) {
		pr_warn("smp: no MADT, running on the boot CPU with the "
		        "8259 PIC\n");
		return;
	}
	nr_cpus = madt.ncpus;
	pr_debug("smp: MADT: %d cpu(s), lapic %08x, ioapic %08x, irq0 -> "
	         "gsi %u\n",
	         madt.ncpus, madt.lapic_phys, madt.ioapic_phys,
	         madt.isa[0].gsi);
	lapic_init(madt.lapic_phys);
	cpus[0].apic_id = lapic_id();
	vector_register(VEC_CALL_FUNC, call_func_ipi);
	vector_register(VEC_RESCHED, resched_ipi);
	cli();
	/* Silence the 8259s first: an IRQ they raise after the local APIC
	 * masks LINT0 would reach the CPU with no vector at all. */
	pic_disable();
	lapic_setup_cpu(); /* enabled, so it accepts I/O APIC messages */
	if (ioapic_init() != 0)
		pr_warn("smp: no I/O APIC; device interrupts stay on the "
		        "8259\n");
	pr_debug("smp: interrupts through %s\n", irq_get_chip()->name);
	lapic_calibrate();
	pr_debug("smp: local APIC timer: %u ticks/ms\n",
	         this_cpu()->lapic_ticks_per_ms);
	lapic_setup_cpu(); /* again, now with the timer running */
	pit_drives_sched = 0;
	sti();
	smp_send_reschedule = send_reschedule;
	tlb_shootdown = shootdown;
	panic_stop_others = stop_others_nmi;

	pd[0] = 0x83; /* identity 0-4 MiB for the trampoline's jump */
	for (int i = 0; i < madt.ncpus; i++) {
		int err;
		if (madt.apic_ids[i] == cpus[0].apic_id)
			continue;
		err = start_ap(next, madt.apic_ids[i]);
		if (err != 0)
			pr_err("smp: cpu with APIC id %d did not start (%s)\n",
			       madt.apic_ids[i], errno_name(err));
		else
			next++;
	}
	pd[0] = 0;
	tlb_flush_range(0, 1);
	pr_info("smp: %d of %d cpu(s) online\n", nr_online_cpus(), madt.ncpus);
}
