/*
 * selfput: the race of the 2003 thread, on purpose.  The module holds a
 * reference to itself (taken in its own init, the one place that may).
 * When rmmod starts waiting for it, quiesce starts a thread on another
 * CPU that drops that last reference *from module text* and then goes on
 * running module code for tail_ms: exactly "executing module code while
 * the reference count is zero".
 *
 * It is safe only because the thread runs inside an RCU read-side
 * section opened and closed in kernel text (module_guarded_thread), and
 * rmmod waits for a grace period before it unmaps the module.  With
 * rcu_skip_grace=1 the wait is gone, the code is unmapped under the
 * thread's feet, and the use-after-unload detector must name it.
 */
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>

static int tail_ms = 300;
static int put_delay_ms;
MODULE_PARAM(tail_ms, INT, "ms of module code run after the last put");
MODULE_PARAM(put_delay_ms, INT, "ms the thread waits before its put");

static void __attribute__((noinline)) selfput_tail(void *arg)
{
	uint64_t end;

	(void)arg;
	end = now_ms() + (unsigned)put_delay_ms;
	while (now_ms() < end)
		cpu_relax();
	kprintf("selfput: cpu %d drops the last reference from module text\n",
	        cpu_id());
	module_put(THIS_MODULE);
	end = now_ms() + (unsigned)tail_ms;
	while (now_ms() < end)
		cpu_relax();
	kprintf("selfput: still in module text %d ms after the last put, "
	        "returning\n",
	        tail_ms);
}

static struct module_guarded_call tail_call = {selfput_tail, NULL};

/* One thread in the module's life: it holds the reference init took
 * until its put, so rmmod waits for it, however many times it is
 * interrupted and retried.  A second thread (an rmmod after an
 * interrupted one) would hold nothing: rmmod could unload the module
 * before it ran, and it would run unloaded code; and its put would be
 * one too many. */
static volatile int started;

static void
selfput_quiesce(void)
{
	int cpu = -1;

	if (__atomic_exchange_n(&started, 1, __ATOMIC_SEQ_CST) != 0)
		return;

	for (int i = 0; i < MAX_CPUS; i++)
		if (i != cpu_id() && cpus[i].state == CPU_ONLINE)
			cpu = i;
	if (cpu < 0)
		cpu = cpu_id();
	/* Without the thread nothing drops the reference rmmod waits for:
	 * the next rmmod (after Ctrl-C) must be able to start it. */
	if (thread_create("selfput", module_guarded_thread, &tail_call, cpu) ==
	    NULL) {
		kprintf("selfput: cannot start the thread\n");
		__atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
	}
}

static int
selfput_init(void)
{
	if (tail_ms < 0 || tail_ms > 10000 || put_delay_ms < 0 ||
	    put_delay_ms > 10000)
		return -EINVAL;
	__module_get(THIS_MODULE);
	kprintf("selfput: holding a reference to myself (refcount %d)\n",
	        module_refcount(THIS_MODULE));
	return 0;
}

module_init(selfput_init);
MODULE_QUIESCE(selfput_quiesce);
MODULE_DESCRIPTION("drops its own last reference and keeps running");
