/*
 * The timer list and the tick that fires it (see timer.h; the clock is
 * clock.c).  One sorted list under one lock: modref has few timers, and a
 * single list keeps "when does the next one fire" and "delete, waiting for
 * a running callback" obvious.
 */
#include <kernel/sched/timer.h>
#include <kernel/locking/spinlock.h>
#include <kernel/arch/cpu.h>
#include <kernel/arch/irq.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/x86.h>

static DEFINE_SPINLOCK(timer_lock);
static LIST_HEAD(timer_list);
/* The first pending expiry in ns (UINT64_MAX: none), so a tick with
 * nothing due takes no lock and does no division.  Written under
 * timer_lock; read whole with cmpxchg8b. */
static uint64_t next_expiry_ns = UINT64_MAX;
static struct timer *volatile running_timer;
static volatile int running_cpu = -1; /* where running_timer runs */
static DEFINE_SPINLOCK(tick_lock);
/* Until local APIC timers tick each CPU, the PIT drives the scheduler. */
int pit_drives_sched = 1;

/* Call with timer_lock held. */
static void
update_next_expiry(void)
{
	uint64_t next =
	    list_empty(&timer_list)
	        ? UINT64_MAX
	        : list_first_entry(&timer_list, struct timer, link)->expires;

	write64_atomic(&next_expiry_ns, next < UINT64_MAX / 1000000
	                                    ? next * 1000000
	                                    : UINT64_MAX);
}

void
timer_init(struct timer *t, void (*fn)(struct timer *), void *data)
{
	INIT_LIST_HEAD(&t->link);
	t->fn = fn;
	t->data = data;
	t->pending = false;
	t->expires = 0;
}

void
timer_add(struct timer *t, uint64_t expires)
{
	struct timer *pos;
	uint32_t f = spin_lock_irqsave(&timer_lock);

	if (t->pending)
		list_del_init(&t->link);
	t->expires = expires;
	t->pending = true;
	list_for_each_entry(pos, &timer_list, link)
		if (pos->expires > expires)
			break;
	list_add_tail(&t->link, &pos->link);
	update_next_expiry();
	spin_unlock_irqrestore(&timer_lock, f);
}

/*
 * A running callback may re-arm its own timer (a periodic timer): after
 * waiting for it, look again, so that once we return the timer is
 * neither pending nor running.
 */
bool
timer_del(struct timer *t)
{
	bool was = false, running;

	for (;;) {
		uint32_t f = spin_lock_irqsave(&timer_lock);

		if (t->pending) {
			list_del_init(&t->link);
			t->pending = false;
			was = true;
			update_next_expiry();
		}
		running = running_timer == t;
		/* A callback deleting its own timer (it runs on this CPU)
		 * must not wait for itself; anyone else waits. */
		if (running && running_cpu == cpu_id())
			running = false;
		spin_unlock_irqrestore(&timer_lock, f);
		if (!running)
			return was;
		while (running_timer == t)
			cpu_relax();
	}
}

static void
run_timers(uint64_t now)
{
	spin_lock(&timer_lock);
	while (!list_empty(&timer_list)) {
		struct timer *t =
		    list_first_entry(&timer_list, struct timer, link);
		if (t->expires > now)
			break;
		list_del_init(&t->link);
		t->pending = false;
		update_next_expiry();
		running_timer = t;
		running_cpu = cpu_id();
		spin_unlock(&timer_lock);
		t->fn(t);
		spin_lock(&timer_lock);
		running_timer = NULL;
	}
	spin_unlock(&timer_lock);
}

/*
 * Timers fire by the clock, not by counting ticks: a timer due at T runs
 * at the first tick at or after T, however many ticks were lost before.
 */
void
timer_tick(void)
{
	uint64_t ns = now_ns();

	clock_tick(ns);
	if (ns < read64_atomic(&next_expiry_ns))
		return;
	/* The tick normally arrives on one CPU, but its line can be moved
	 * (irq_set_affinity) while a tick is in flight: serialise, so
	 * callbacks never overlap. */
	spin_lock(&tick_lock);
	run_timers(ns / 1000000);
	spin_unlock(&tick_lock);
}

/* ---- the 8254 PIT: boot-time tick (Intel 82C54 datasheet, mode 2) ---- */
#define PIT_CH0 0x40
#define PIT_CMD 0x43
#define PIT_HZ  1193182

static void
pit_irq(void *arg)
{
	(void)arg;
	timer_tick();
	if (pit_drives_sched)
		sched_tick(1);
}

void
pit_init(void)
{
	uint16_t div = (PIT_HZ + HZ / 2) / HZ;

	outb(PIT_CMD, 0x34); /* channel 0, lo/hi byte, rate generator */
	outb(PIT_CH0, div & 0xff);
	outb(PIT_CH0, div >> 8);
	irq_register(0, pit_irq, NULL, "pit");
}
