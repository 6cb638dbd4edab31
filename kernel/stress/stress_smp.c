/*
 * Suite "stress_smp": stop_machine, grace periods, cross-CPU calls and
 * interrupt handlers with every CPU busy (smp.h, rcu.h, irq.h; rounds
 * scale with the stress_scale sysctl).
 *
 * Pins down:
 *  - stop_machine from two threads at once while two threads per CPU
 *    take spinlocks, sleep, take a mutex and allocate: the functions
 *    never overlap, no worker makes progress while one runs, and no CPU
 *    was stopped inside a spinlock section (two counters bumped under a
 *    lock are always equal)
 *  - readers on every CPU never see an object freed behind their back,
 *    whether the writers wait with synchronize_rcu or defer with
 *    call_rcu; rcu_barrier runs every callback queued before it
 *  - a reader in interrupt context on an otherwise idle CPU holds a
 *    grace period (network receive runs in interrupt handlers)
 *  - smp_call_on_cpu from every CPU to every CPU at once runs each call
 *    exactly once
 *  - irq_unregister returns only after a running handler of that line
 *    finished on every CPU (a module frees its handler's code and data
 *    right after)
 */
#include <kernel/stress/stress_util.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/rcu.h>
#include <kernel/arch/irq.h>
#include <kernel/locking/mutex.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/x86.h>

static int
nworkers(int per_cpu)
{
	int ids[MAX_CPUS], n = stress_online(ids) * per_cpu;

	return n > STRESS_MAX_WORKERS ? STRESS_MAX_WORKERS : n;
}

/* ---- stop_machine under load --------------------------------------------- */

struct sm {
	volatile int stop, in_fn, overlap, torn, moved, stops, bad_ret;
	int rounds, nload;
	spinlock_t lock;
	struct mutex m;
	volatile uint32_t a, b;
	volatile uint32_t beat[STRESS_MAX_WORKERS];
	struct stress_crew *load;
};

static void
sm_load(struct stress_crew *crew, int idx)
{
	struct sm *s = crew->arg;
	uint32_t seed = 0x77u + 101u * idx;

	while (!READ_ONCE(s->stop)) {
		uint32_t f;
		void *p;

		switch (stress_rand(&seed) % 6) {
		case 0:
		case 1:
			f = spin_lock_irqsave(&s->lock);
			s->a++;
			udelay(5);
			s->b++;
			spin_unlock_irqrestore(&s->lock, f);
			break;
		case 2:
			msleep(1);
			break;
		case 3:
			mutex_lock(&s->m);
			thread_yield();
			mutex_unlock(&s->m);
			break;
		case 4:
			p = kmalloc(64 + stress_rand(&seed) % 1000, "ktest");
			kfree(p);
			break;
		case 5:
			udelay(stress_rand(&seed) % 100);
			break;
		}
		s->beat[idx]++;
	}
}

static int
sm_fn(void *arg)
{
	struct sm *s = arg;
	uint32_t before[STRESS_MAX_WORKERS];

	if (__atomic_add_fetch(&s->in_fn, 1, __ATOMIC_SEQ_CST) != 1)
		s->overlap++;
	if (s->a != s->b)
		s->torn++;
	for (int i = 0; i < s->nload; i++)
		before[i] = s->beat[i];
	udelay(300);
	for (int i = 0; i < s->nload; i++)
		if (s->beat[i] != before[i])
			s->moved++;
	s->stops++;
	__atomic_sub_fetch(&s->in_fn, 1, __ATOMIC_SEQ_CST);
	return 0x5707;
}

static void
sm_stopper(struct stress_crew *crew, int idx)
{
	struct sm *s = crew->arg;

	for (int r = 0; r < s->rounds; r++) {
		if (stop_machine(sm_fn, s) != 0x5707)
			__atomic_fetch_add(&s->bad_ret, 1, __ATOMIC_SEQ_CST);
		msleep(1 + idx);
	}
}

static void
stop_machine_under_load(struct ktest *t)
{
	struct sm *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *load, *stoppers;

	KASSERT_TRUE(t, s != NULL);
	spin_init(&s->lock, "stress-sm");
	mutex_init(&s->m, "stress-sm");
	s->rounds = stress_rounds(20);
	s->nload = nworkers(2);
	load = stress_crew_start(sm_load, s, s->nload);
	if (load == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	/* Every load worker must be running before the first stop. */
	KEXPECT_TRUE(t,
	             kt_poll(READ_ONCE(load->running) == s->nload, KT_SOON_MS));
	stoppers = stress_crew_start(sm_stopper, s, 2);
	if (stoppers == NULL) {
		KEXPECT_MSG(t, false, "cannot start the stoppers");
	} else {
		KEXPECT_TRUE(
		    t, stress_crew_wait(stoppers, stress_bound_ms(60000)));
		KEXPECT_EQ(t, s->stops, 2 * s->rounds);
	}
	WRITE_ONCE(s->stop, 1);
	KEXPECT_TRUE(t, stress_crew_wait(load, stress_bound_ms(30000)));
	KEXPECT_EQ(t, s->bad_ret, 0);
	KEXPECT_EQ(t, s->overlap, 0);
	KEXPECT_MSG(t, s->torn == 0,
	            "%d stop(s) caught a CPU inside a spinlock section",
	            s->torn);
	KEXPECT_MSG(t, s->moved == 0,
	            "%d time(s) a worker ran while stop_machine's function "
	            "did",
	            s->moved);
	KEXPECT_EQ(t, s->a, s->b);
out:
	kt_shared_put(s);
}

/* ---- RCU readers and writers ------------------------------------------ */

#define OBJ_LIVE 0x11fe11fe
#define OBJ_DEAD 0xdeadbeef

struct robj {
	struct rcu_head head;
	volatile uint32_t magic;
	struct rstate *s;
};

struct rstate {
	struct robj *volatile ptr;
	volatile int stop, bad_reads, reads, cb_queued, cb_run;
	int rounds, nreaders;
	struct stress_crew *writers;
};

static void
robj_free_cb(struct rcu_head *h)
{
	struct robj *o = container_of(h, struct robj, head);
	struct rstate *s = o->s;

	o->magic = OBJ_DEAD;
	kfree(o);
	__atomic_fetch_add(&s->cb_run, 1, __ATOMIC_SEQ_CST);
	kt_shared_put(s);
}

static void
rcu_worker(struct stress_crew *crew, int idx)
{
	struct rstate *s = crew->arg;
	uint32_t seed = 0x3c3c + 37u * idx;

	if (idx >= s->nreaders) {
		/* Writer: publish a new object, retire the old one. */
		for (int r = 0; r < s->rounds; r++) {
			struct robj *n = kmalloc(sizeof(*n), "ktest");
			struct robj *old;

			if (n == NULL)
				continue;
			n->magic = OBJ_LIVE;
			n->s = s;
			old = __atomic_exchange_n(&s->ptr, n, __ATOMIC_SEQ_CST);
			if (old == NULL)
				continue;
			if (stress_rand(&seed) % 2) {
				synchronize_rcu();
				old->magic = OBJ_DEAD;
				kfree(old);
			} else {
				kt_shared_get(s);
				__atomic_fetch_add(&s->cb_queued, 1,
				                   __ATOMIC_SEQ_CST);
				call_rcu(&old->head, robj_free_cb);
			}
		}
		return;
	}
	while (!READ_ONCE(s->stop)) {
		struct robj *p;

		rcu_read_lock();
		p = READ_ONCE(s->ptr);
		if (p != NULL) {
			if (p->magic != OBJ_LIVE)
				__atomic_fetch_add(&s->bad_reads, 1,
				                   __ATOMIC_SEQ_CST);
			udelay(stress_rand(&seed) % 50);
			if (p->magic != OBJ_LIVE)
				__atomic_fetch_add(&s->bad_reads, 1,
				                   __ATOMIC_SEQ_CST);
		}
		rcu_read_unlock();
		__atomic_fetch_add(&s->reads, 1, __ATOMIC_SEQ_CST);
		if (stress_rand(&seed) % 8 == 0)
			msleep(1);
	}
}

static void
rcu_readers_writers(struct ktest *t)
{
	struct rstate *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	struct robj *last;
	int nw = 2;

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(40);
	s->nreaders = nworkers(1);
	if (s->nreaders + nw > STRESS_MAX_WORKERS)
		s->nreaders = STRESS_MAX_WORKERS - nw;
	crew = stress_crew_start(rcu_worker, s, s->nreaders + nw);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	/* The writers are done when the callbacks they queued plus the
	 * objects they freed themselves account for every round. */
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(crew->finished) >= nw,
	                        stress_bound_ms(60000)));
	WRITE_ONCE(s->stop, 1);
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(30000)));
	rcu_barrier();
	KEXPECT_EQ(t, s->cb_run, s->cb_queued);
	KEXPECT_MSG(t, s->bad_reads == 0,
	            "%d read(s) found a retired object inside a read-side "
	            "section",
	            s->bad_reads);
	KEXPECT_TRUE(t, s->reads > 0);
	last = __atomic_exchange_n(&s->ptr, NULL, __ATOMIC_SEQ_CST);
	kfree(last);
out:
	kt_shared_put(s);
}

/* ---- a reader in interrupt context on an idle CPU ------------------------ */

#define IRQ_READER_MS 100

static struct {
	volatile int entered, done, was_idle;
} irq_rd;

static void
irq_reader(void *arg)
{
	struct cpu *c = this_cpu();

	(void)arg;
	rcu_read_lock();
	irq_rd.was_idle = c->curr == c->idle;
	WRITE_ONCE(irq_rd.entered, 1);
	udelay(IRQ_READER_MS * 1000);
	WRITE_ONCE(irq_rd.done, 1);
	rcu_read_unlock();
}

static void
rcu_waits_for_irq_reader_on_idle_cpu(struct ktest *t)
{
	int ids[MAX_CPUS], n = stress_online(ids), tried = 0, caught = 0;

	if (n < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	for (int r = 0; r < stress_rounds(3); r++) {
		for (int i = 0; i < n; i++) {
			int cpu = ids[i];

			if (cpu == cpu_id() ||
			    !kt_poll(READ_ONCE(cpus[cpu].curr) ==
			                 cpus[cpu].idle,
			             1000))
				continue;
			irq_rd.entered = irq_rd.done = irq_rd.was_idle = 0;
			if (smp_call_on_cpu(cpu, irq_reader, NULL, false) != 0)
				continue;
			if (!stress_spin_until(READ_ONCE(irq_rd.entered),
			                       KT_SOON_MS)) {
				KEXPECT_MSG(t, false,
				            "cpu %d never ran the "
				            "call",
				            cpu);
				return;
			}
			synchronize_rcu();
			if (irq_rd.was_idle) {
				tried++;
				if (!READ_ONCE(irq_rd.done))
					caught++;
			}
			kt_poll(READ_ONCE(irq_rd.done), KT_SOON_MS);
		}
	}
	if (tried == 0) {
		ktest_skip(t, "no idle CPU found");
		return;
	}
	KEXPECT_MSG(t, caught == 0,
	            "%d of %d grace periods ended while an interrupt "
	            "handler on an idle CPU was inside rcu_read_lock",
	            caught, tried);
}

/* ---- cross-CPU calls from everywhere ------------------------------------- */

struct xc {
	int rounds;
	volatile uint32_t hits[MAX_CPUS];
	volatile int wrong_cpu, irqs_on;
	volatile uint32_t sent;
};

struct xc_arg {
	struct xc *s;
	int cpu;
};

static void
xc_fn(void *arg)
{
	struct xc_arg *a = arg;

	if (cpu_id() != a->cpu)
		a->s->wrong_cpu++;
	if (read_eflags() & EFLAGS_IF)
		a->s->irqs_on++;
	__atomic_fetch_add(&a->s->hits[cpu_id()], 1, __ATOMIC_SEQ_CST);
}

static void
xc_worker(struct stress_crew *crew, int idx)
{
	struct xc *s = crew->arg;
	int ids[MAX_CPUS], n = stress_online(ids);
	uint32_t seed = 0x1111 + idx;

	for (int r = 0; r < s->rounds; r++) {
		struct xc_arg a = {s, ids[stress_rand(&seed) % n]};

		if (smp_call_on_cpu(a.cpu, xc_fn, &a, true) == 0)
			__atomic_fetch_add(&s->sent, 1, __ATOMIC_SEQ_CST);
	}
}

static void
cross_calls_everywhere(struct ktest *t)
{
	struct xc *s = kt_shared_alloc(sizeof(*s), 1);
	struct stress_crew *crew;
	uint32_t total = 0;
	int n = nworkers(2);

	KASSERT_TRUE(t, s != NULL);
	s->rounds = stress_rounds(200);
	crew = stress_crew_start(xc_worker, s, n);
	if (crew == NULL) {
		KEXPECT_MSG(t, false, "cannot start the crew");
		goto out;
	}
	KEXPECT_TRUE(t, stress_crew_wait(crew, stress_bound_ms(60000)));
	for (int i = 0; i < MAX_CPUS; i++)
		total += s->hits[i];
	KEXPECT_EQ(t, s->sent, (uint32_t)(n * s->rounds));
	KEXPECT_EQ(t, total, s->sent);
	KEXPECT_EQ(t, s->wrong_cpu, 0);
	KEXPECT_EQ(t, s->irqs_on, 0);
out:
	kt_shared_put(s);
}

/* ---- irq_unregister against a running handler -----------------------------
 */

/* The last I/O APIC line: nothing in QEMU's pc machine drives it.  The
 * "interrupt" is raised with a software int on another CPU, which goes
 * through trap() exactly like a device line. */
#define TEST_IRQ   (NR_IRQS - 1)
#define HANDLER_MS 50

static struct {
	volatile int entered, left, calls;
	volatile void *arg_seen;
} irqh;

static void
slow_handler(void *arg)
{
	irqh.arg_seen = arg;
	irqh.calls++;
	WRITE_ONCE(irqh.entered, 1);
	udelay(HANDLER_MS * 1000);
	WRITE_ONCE(irqh.left, 1);
}

struct raiser {
	int target;
};

/* One worker per CPU; the one on the target CPU raises the line. */
static void
raiser_thread(struct stress_crew *crew, int idx)
{
	struct raiser *ra = crew->arg;

	(void)idx;
	if (cpu_id() == ra->target)
		__asm__ volatile("int %0"
		                 :
		                 : "i"(IRQ_BASE + TEST_IRQ)
		                 : "memory");
}

static void
irq_unregister_waits_for_handler(struct ktest *t)
{
	int ids[MAX_CPUS], n = stress_online(ids), bad = 0;
	int rounds = stress_rounds(3);
	void *cookie = &irqh;

	if (n < 2 || irq_get_chip()->set_affinity == NULL) {
		ktest_skip(t, "needs two CPUs and an I/O APIC");
		return;
	}
	if (irq_name(TEST_IRQ) != NULL) {
		ktest_skip(t, "the test line is in use");
		return;
	}
	for (int r = 0; r < rounds; r++) {
		struct raiser *ra = kt_shared_alloc(sizeof(*ra), 1);
		struct stress_crew *crew;

		if (ra == NULL)
			break;
		ra->target = kt_other_cpu();
		irqh.entered = irqh.left = irqh.calls = 0;
		irqh.arg_seen = NULL;
		KEXPECT_EQ(
		    t,
		    irq_register(TEST_IRQ, slow_handler, cookie, "stress-irq"),
		    0);
		crew = stress_crew_start(raiser_thread, ra, n);
		kt_shared_put(ra);
		if (crew == NULL) {
			irq_unregister(TEST_IRQ, slow_handler, cookie);
			KEXPECT_MSG(t, false, "cannot start the crew");
			break;
		}
		if (!stress_spin_until(READ_ONCE(irqh.entered), KT_SOON_MS)) {
			irq_unregister(TEST_IRQ, slow_handler, cookie);
			stress_crew_wait(crew, KT_SOON_MS);
			KEXPECT_MSG(t, false, "the handler never ran");
			break;
		}
		/* The handler certainly runs now, on another CPU. */
		irq_unregister(TEST_IRQ, slow_handler, cookie);
		if (!READ_ONCE(irqh.left))
			bad++;
		KEXPECT_TRUE(t, stress_crew_wait(crew, KT_SOON_MS));
		KEXPECT_EQ(t, irqh.calls, 1);
		KEXPECT_TRUE(t, irqh.arg_seen == cookie);
	}
	KEXPECT_TRUE(t, irq_name(TEST_IRQ) == NULL);
	KEXPECT_MSG(t, bad == 0,
	            "%d of %d irq_unregister calls returned while the "
	            "handler still ran",
	            bad, rounds);
}

KTEST_SUITE(stress_smp, KTEST_CASE(stop_machine_under_load),
            KTEST_CASE(rcu_readers_writers),
            KTEST_CASE(rcu_waits_for_irq_reader_on_idle_cpu),
            KTEST_CASE(cross_calls_everywhere),
            KTEST_CASE(irq_unregister_waits_for_handler));
