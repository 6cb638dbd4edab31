/*
 * The kernel's API for modules: every symbol a module may link against.
 * A module that uses anything else is refused at insmod with the list of
 * unresolved names.  Exported on purpose, in one place, so the API is a
 * decision and not an accident; the module layer exports its own
 * functions (try_module_get, ...) next to their definitions.
 */
#include <kernel/module.h>
#include <kernel/console/console.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/arch/irq.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/ktest.h>
#include <kernel/debug/trace.h>
#include <kernel/locking/mutex.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/arch/smp.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/sched/waitq.h>
#include <kernel/sched/work.h>

/* Output and failure. */
EXPORT_SYMBOL(printk);
EXPORT_SYMBOL(kprintf);
EXPORT_SYMBOL(panic);
EXPORT_SYMBOL(backtrace);
EXPORT_SYMBOL(errno_name);
/* Fault-tolerant access, for modules that test their own protections. */
EXPORT_SYMBOL(probe_read32);
EXPORT_SYMBOL(probe_write32);

/* Library (GCC may also emit calls to the mem* functions by itself). */
EXPORT_SYMBOL(memcpy);
EXPORT_SYMBOL(memmove);
EXPORT_SYMBOL(memset);
EXPORT_SYMBOL(memcmp);
EXPORT_SYMBOL(strlen);
EXPORT_SYMBOL(strnlen);
EXPORT_SYMBOL(strcmp);
EXPORT_SYMBOL(strncmp);
EXPORT_SYMBOL(strchr);
EXPORT_SYMBOL(strrchr);
EXPORT_SYMBOL(strlcpy);
EXPORT_SYMBOL(snprintf);
EXPORT_SYMBOL(vsnprintf);
EXPORT_SYMBOL(parse_ulong);
EXPORT_SYMBOL(parse_long);

/* Memory. */
EXPORT_SYMBOL(kmalloc);
EXPORT_SYMBOL(kzalloc);
EXPORT_SYMBOL(kfree);
EXPORT_SYMBOL(alloc_page);
EXPORT_SYMBOL(free_page);

/* Threads, time, sleeping and waking. */
EXPORT_SYMBOL(thread_create);
EXPORT_SYMBOL(thread_exit);
EXPORT_SYMBOL(thread_run_on);
EXPORT_SYMBOL(thread_yield);
EXPORT_SYMBOL(wake_up_thread);
EXPORT_SYMBOL(msleep);
EXPORT_SYMBOL(msleep_interruptible);
EXPORT_SYMBOL(now_ms);
EXPORT_SYMBOL(clock_coarse_ms);
EXPORT_SYMBOL(now_us);
EXPORT_SYMBOL(now_ns);
EXPORT_SYMBOL(udelay);
EXPORT_SYMBOL(signal_pending);
EXPORT_SYMBOL(waitq_init);
EXPORT_SYMBOL(wait_entry_init);
EXPORT_SYMBOL(prepare_to_wait);
EXPORT_SYMBOL(finish_wait);
EXPORT_SYMBOL(schedule_until);
EXPORT_SYMBOL(wake_up);
EXPORT_SYMBOL(completion_init);
EXPORT_SYMBOL(complete);
EXPORT_SYMBOL(wait_for_completion);
EXPORT_SYMBOL(wait_for_completion_timeout);
EXPORT_SYMBOL(timer_init);
EXPORT_SYMBOL(timer_add);
EXPORT_SYMBOL(timer_del);
EXPORT_SYMBOL(work_init);
EXPORT_SYMBOL(schedule_work);
EXPORT_SYMBOL(cancel_work_sync);

/* Locks and grace periods. */
EXPORT_SYMBOL(spin_init);
EXPORT_SYMBOL(spin_lock_irqsave);
EXPORT_SYMBOL(spin_unlock_irqrestore);
EXPORT_SYMBOL(mutex_init);
EXPORT_SYMBOL(mutex_lock);
EXPORT_SYMBOL(mutex_lock_interruptible);
EXPORT_SYMBOL(mutex_unlock);
EXPORT_SYMBOL(mutex_held);
EXPORT_SYMBOL(synchronize_rcu);
EXPORT_SYMBOL(call_rcu);
EXPORT_SYMBOL(rcu_barrier);

/* CPUs. */
EXPORT_SYMBOL(cpus);
EXPORT_SYMBOL(nr_online_cpus);
EXPORT_SYMBOL(smp_call_on_cpu);

/* Console commands and in-kernel tests a module may add. */
EXPORT_SYMBOL(__command_register);
EXPORT_SYMBOL(__invariant_register);
EXPORT_SYMBOL(invariant_unregister);
EXPORT_SYMBOL(debug_invariants);
EXPORT_SYMBOL(command_unregister);
EXPORT_SYMBOL(cmd_error);
EXPORT_SYMBOL(cmd_usage);
EXPORT_SYMBOL(args_parse);
EXPORT_SYMBOL(args_has);
EXPORT_SYMBOL(args_val);
EXPORT_SYMBOL(args_num);
EXPORT_SYMBOL(args_flag_num);
EXPORT_SYMBOL(args_refuse);
EXPORT_SYMBOL(cmd_refuse);
EXPORT_SYMBOL(ktest_register);
EXPORT_SYMBOL(ktest_unregister);
EXPORT_SYMBOL(ktest_fail);
EXPORT_SYMBOL(ktest_abort);
EXPORT_SYMBOL(ktest_skip);
EXPORT_SYMBOL(ktest_note);

/* The reference timeline (kernel/debug/trace.h): events of a module's own
 * objects (tcp.ko's TIME_WAIT timers). */
EXPORT_SYMBOL(trace_on);
EXPORT_SYMBOL(trace_record);
