/*
 * Unloading tcp.ko (docs/tcp.md, "Unloading tcp.ko").  Every pcb the
 * core holds - sockets, the echo service's connections, orphans still
 * closing and TIME_WAIT - keeps the module: can_unload vetoes while the
 * core's table is not empty, and says what is left the way rmmod prints
 * it: "2 ESTABLISHED, 37 TIME_WAIT (longest 41 s left)".
 *
 *   quiesce  the core refuses new sockets (EPROTONOSUPPORT) and answers
 *            new SYNs with RST; the echo listener closes; with
 *            tcp_unload_tw=purge TIME_WAIT is purged now and as it
 *            appears, else it expires on its own (2 * tcp_msl_ms)
 *   resume   (Ctrl-C) all of that undone; connections never noticed
 *   force    (rmmod -f) purge TIME_WAIT, reset everything else (the
 *            peers get a real RST), so the table is empty at once
 */
#include "net/tcp/ko/tcp_mod.h"
#include "net/tcp/resident/tcp_persist.h"
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

static volatile bool going;

static int
tcp_can_unload(char *reason, size_t size)
{
	unsigned counts[TCP_NSTATES], total;
	uint64_t longest;
	size_t len = 0;
	uint32_t f = tcp_lock_irqsave();

	total = tcp_count_by_state(tcp_stack, counts);
	longest = tcp_time_wait_longest(tcp_stack, now_ms());
	spin_unlock_irqrestore(&tcp_lock, f);
	if (total == 0)
		return 0;
	reason[0] = '\0';
	for (int st = 0; st < TCP_NSTATES && len < size; st++) {
		if (counts[st] == 0)
			continue;
		snprintf(reason + len, size - len, "%s%u %s", len ? ", " : "",
		         counts[st], tcp_state_name((enum tcp_state)st));
		len = strlen(reason);
	}
	if (counts[TCP_TIME_WAIT] != 0 && len < size)
		snprintf(reason + len, size - len, " (longest %u s left)",
		         ((uint32_t)longest + 999) / 1000);
	return -EBUSY;
}

static void
tcp_quiesce(void)
{
	uint32_t f = tcp_lock_irqsave();

	going = true;
	tcp_set_going(tcp_stack, true);
	tcp_unlock_flush(f);
	tcp_echo_pause();
	tcp_unload_tick();
}

static void
tcp_resume(void)
{
	unsigned counts[TCP_NSTATES], total;
	uint32_t f = tcp_lock_irqsave();

	going = false;
	tcp_set_going(tcp_stack, false);
	total = tcp_count_by_state(tcp_stack, counts);
	tcp_unlock_flush(f);
	tcp_echo_unpause();
	kprintf("tcp: resumed: %u connections carry on\n", total);
}

static int
tcp_force(char *msg, size_t size)
{
	unsigned purged, reset, echo;
	uint32_t f;

	tcp_echo_pause();
	echo = tcp_echo_abort_all();
	f = tcp_lock_irqsave();
	going = true;
	tcp_set_going(tcp_stack, true);
	purged = tcp_purge_time_wait(tcp_stack);
	reset = tcp_reset_all(tcp_stack, now_ms());
	tcp_unlock_flush(f);
	snprintf(msg, size, "purged %u TIME_WAIT, reset %u connections", purged,
	         reset + echo);
	return 0;
}

static void
tcp_status(char *buf, size_t size)
{
	snprintf(buf, size, "tcp_unload_tw=%s",
	         tcp_unload_tw == TCP_UNLOAD_TW_PURGE ? "purge" : "wait");
}

/* From the module's work: with the purge policy, TIME_WAIT entered while
 * rmmod waits goes at once too. */
void
tcp_unload_tick(void)
{
	unsigned n;
	uint32_t f;

	if (!going || tcp_unload_tw != TCP_UNLOAD_TW_PURGE)
		return;
	f = tcp_lock_irqsave();
	n = tcp_purge_time_wait(tcp_stack);
	spin_unlock_irqrestore(&tcp_lock, f);
	if (n != 0)
		kprintf("tcp: purged %u TIME_WAIT (tcp_unload_tw=purge)\n", n);
}

MODULE_CAN_UNLOAD(tcp_can_unload);
MODULE_QUIESCE(tcp_quiesce);
MODULE_RESUME(tcp_resume);
MODULE_FORCE(tcp_force);
MODULE_UNLOAD_STATUS(tcp_status);
