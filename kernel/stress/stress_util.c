/*
 * Helpers for the stress suites (see stress_util.h).
 */
#include <kernel/stress/stress_util.h>
#include <kernel/bootparam.h>
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>
#include <kernel/arch/x86.h>

int stress_scale = 1;
BOOTPARAM_INT(stress_scale, stress_scale, 1, 1000,
              "rounds multiplier for the stress_* ktest suites", 1);

struct crew_arg {
	struct stress_crew *crew;
	int idx;
};

int
stress_online(int *ids)
{
	int n = 0;

	for (int i = 0; i < MAX_CPUS; i++)
		if (READ_ONCE(cpus[i].state) == CPU_ONLINE)
			ids[n++] = i;
	return n;
}

static void
crew_worker(void *p)
{
	struct crew_arg *a = p;
	struct stress_crew *crew = a->crew;
	int idx = a->idx;

	kt_shared_put(a);
	__atomic_fetch_add(&crew->running, 1, __ATOMIC_SEQ_CST);
	crew->fn(crew, idx);
	if (__atomic_add_fetch(&crew->finished, 1, __ATOMIC_SEQ_CST) ==
	    crew->started)
		complete(&crew->all_done);
	kt_shared_put(crew->arg);
	kt_shared_put(crew);
}

struct stress_crew *
stress_crew_start(stress_fn fn, void *arg, int n)
{
	int ids[MAX_CPUS], ncpu = stress_online(ids);
	struct stress_crew *crew;

	if (n > STRESS_MAX_WORKERS)
		n = STRESS_MAX_WORKERS;
	/* One reference for the case, one per worker. */
	crew = kt_shared_alloc(sizeof(*crew), 1 + n);
	if (crew == NULL)
		return NULL;
	crew->fn = fn;
	crew->arg = arg;
	/* started must be final before the first worker can finish. */
	crew->started = n;
	completion_init(&crew->all_done);
	for (int i = 0; i < n; i++) {
		struct crew_arg *a = kt_shared_alloc(sizeof(*a), 1);

		if (a != NULL) {
			a->crew = crew;
			a->idx = i;
			kt_shared_get(arg);
			if (thread_create("stress", crew_worker, a,
			                  ids[i % ncpu]) != NULL)
				continue;
			kt_shared_put(arg);
			kt_shared_put(a);
		}
		/* Worker i never ran: count it as finished, and failed. */
		__atomic_fetch_add(&crew->failed_to_start, 1, __ATOMIC_SEQ_CST);
		if (__atomic_add_fetch(&crew->finished, 1, __ATOMIC_SEQ_CST) ==
		    crew->started)
			complete(&crew->all_done);
		kt_shared_put(crew);
	}
	return crew;
}

bool
stress_crew_wait(struct stress_crew *crew, unsigned ms)
{
	bool ok = wait_for_completion_timeout(&crew->all_done, ms, false) == 0;

	kt_shared_put(crew);
	return ok;
}

bool
stress_crew_wait_progress(struct stress_crew *crew,
                          const volatile int *progress, unsigned stall_ms)
{
	int seen = *progress;
	bool ok;

	for (;;) {
		int now;

		ok = wait_for_completion_timeout(&crew->all_done, stall_ms,
		                                 false) == 0;
		now = *progress;
		if (ok || now == seen)
			break;
		seen = now;
	}
	kt_shared_put(crew);
	return ok;
}
