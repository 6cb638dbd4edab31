/*
 * Race points (see racepoint.h).  State, under race_lock:
 *   IDLE -> ARMED (race_arm) -> PARKED (a thread reached the point)
 *        -> IDLE (race_release; the thread goes on)
 */
#include <kernel/debug/racepoint.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/waitq.h>
#include <kernel/arch/x86.h>

enum { RP_IDLE, RP_ARMED, RP_PARKED };

volatile int race_armed;
static DEFINE_SPINLOCK(race_lock);
static const char *armed_name;
static volatile int rp_state;
static volatile int rp_go; /* generation: release bumps it */

void
__race_point(const char *name, bool may_sleep)
{
	uint32_t f;
	int gen;
	uint64_t end;

	ASSERT(this_cpu()->locks_held == 0 && this_cpu()->irq_depth == 0);
	ASSERT(!may_sleep || (read_eflags() & EFLAGS_IF));
	f = spin_lock_irqsave(&race_lock);
	if (rp_state != RP_ARMED || strcmp(name, armed_name) != 0) {
		spin_unlock_irqrestore(&race_lock, f);
		return;
	}
	rp_state = RP_PARKED;
	gen = rp_go;
	spin_unlock_irqrestore(&race_lock, f);
	kprintf("race: %s parked at %s\n", thread_name(current), name);
	end = now_ms() + RACE_PARK_MAX_MS;
	while (__atomic_load_n(&rp_go, __ATOMIC_ACQUIRE) == gen) {
		if (now_ms() >= end) {
			kprintf("race: %s: nobody released %s in %u ms, going "
			        "on\n",
			        thread_name(current), name, RACE_PARK_MAX_MS);
			race_disarm();
			break;
		}
		if (may_sleep)
			msleep(1);
		else
			cpu_relax();
	}
	kprintf("race: %s goes on from %s\n", thread_name(current), name);
}

int
race_arm(const char *name)
{
	uint32_t f = spin_lock_irqsave(&race_lock);

	if (rp_state != RP_IDLE) {
		spin_unlock_irqrestore(&race_lock, f);
		return -EBUSY;
	}
	armed_name = name;
	rp_state = RP_ARMED;
	__atomic_store_n(&race_armed, 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&race_lock, f);
	return 0;
}

bool
race_wait_parked(unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (__atomic_load_n(&rp_state, __ATOMIC_ACQUIRE) != RP_PARKED) {
		if (now_ms() >= end)
			return false;
		msleep(1);
	}
	return true;
}

void
race_disarm(void)
{
	uint32_t f = spin_lock_irqsave(&race_lock);

	rp_state = RP_IDLE;
	armed_name = NULL;
	__atomic_store_n(&race_armed, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&rp_go, 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&race_lock, f);
}

void
race_release(void)
{
	race_disarm();
}
