/*
 * thread_run_on(): run a function in a thread placed on a chosen CPU and
 * wait for it, as if the caller had moved there (modref's threads never
 * migrate).  Ctrl-C on the caller reaches the function: the caller's
 * interrupted wait signals the worker, whose interruptible waits then
 * return -EINTR, and the caller waits on until the function has returned.
 *
 * The worker's entry is core code: a module's function returns into it,
 * and the caller (holding the module) waits for that return, so no
 * module text runs after the caller has let go.
 */
#include <kernel/sched/sched.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/locking/spinlock.h>
#include <kernel/sched/waitq.h>

struct run_job {
	int (*fn)(void *);
	void *arg;
	int result;
	/* The worker while it runs fn (NULL before and after), and whether
	 * the caller was interrupted; both under lock, so a signal never
	 * reaches a thread that has exited. */
	spinlock_t lock;
	struct thread *worker;
	bool interrupted;
	struct completion done;
};

static void
run_job_main(void *arg)
{
	struct run_job *j = arg;
	uint32_t f = spin_lock_irqsave(&j->lock);
	bool intr = j->interrupted;
	int r;

	j->worker = this_cpu()->curr;
	spin_unlock_irqrestore(&j->lock, f);
	if (intr)
		thread_signal(this_cpu()->curr);
	r = j->fn(j->arg);
	f = spin_lock_irqsave(&j->lock);
	j->worker = NULL;
	j->result = r;
	spin_unlock_irqrestore(&j->lock, f);
	complete(&j->done); /* the last touch of *j: the caller frees it */
}

int
thread_run_on(int cpu, const char *name, int (*fn)(void *), void *arg)
{
	struct run_job j = {.fn = fn, .arg = arg};

	if (cpu < 0 || cpu >= MAX_CPUS || cpus[cpu].state != CPU_ONLINE)
		return -ENODEV;
	spin_init(&j.lock, "run_job");
	completion_init(&j.done);
	if (thread_create(name, run_job_main, &j, cpu) == NULL)
		return -ENOMEM;
	if (wait_for_completion_timeout(&j.done, -1, true) == -EINTR) {
		uint32_t f = spin_lock_irqsave(&j.lock);

		j.interrupted = true;
		if (j.worker != NULL)
			thread_signal(j.worker);
		spin_unlock_irqrestore(&j.lock, f);
		wait_for_completion(&j.done);
	}
	return j.result;
}
