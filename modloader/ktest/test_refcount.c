/*
 * KTAP suite "modref": module reference count semantics, run against the
 * implementation chosen at boot (modref=percpu|atomic); the scenarios
 * tests/scenarios/modules-refcount-*.scn run it under both, and both
 * must pass the same cases.  The modules here are fake (no image): only
 * the fields the refcount code reads are set.
 */
#include <kernel/debug/ktest.h>
#include <kernel/bootparam.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/debug/ksyms.h>
#include <kernel/debug/stackdepot.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>
#include "modloader/module_internal.h"

static struct module *
fake_module(int state)
{
	struct module *mod = kzalloc(sizeof(*mod), "ktest-modref");

	if (mod == NULL)
		return NULL;
	strlcpy(mod->name, "ktest_fake", sizeof(mod->name));
	INIT_LIST_HEAD(&mod->list);
	INIT_LIST_HEAD(&mod->uses);
	INIT_LIST_HEAD(&mod->used_by);
	mod->refops = module_default_refops();
	mod->refops->init(mod);
	module_track_init(mod);
	mod->holders.level = 2; /* whatever module_track says */
	mod->state = state;
	return mod;
}

static void
get_put_live(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, mod != NULL);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_TRUE(t, try_module_get(mod));
	KEXPECT_TRUE(t, try_module_get(mod));
	KEXPECT_EQ(t, module_refcount(mod), 2);
	__module_get(mod);
	KEXPECT_EQ(t, module_refcount(mod), 3);
	KEXPECT_EQ(t, mod->bad_gets, 0);
	module_put(mod);
	module_put(mod);
	module_put(mod);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_EQ(t, mod->underflows, 0);
	kfree(mod);
}

static void
try_get_fails_unless_live(struct ktest *t)
{
	static const int states[] = {MODULE_STATE_COMING, MODULE_STATE_GOING,
	                             MODULE_STATE_GONE};

	for (unsigned i = 0; i < 3; i++) {
		struct module *mod = fake_module(states[i]);
		KASSERT_TRUE(t, mod != NULL);
		KEXPECT_TRUE(t, !try_module_get(mod));
		KEXPECT_EQ(t, module_refcount(mod), 0);
		kfree(mod);
	}
}

static void
null_is_the_kernel(struct ktest *t)
{
	KEXPECT_TRUE(t, try_module_get(NULL));
	module_put(NULL);
	__module_get(NULL);
	KEXPECT_EQ(t, module_refcount(NULL), 0);
}

static void
put_underflow_reported(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, mod != NULL);
	module_put(mod);
	KEXPECT_EQ(t, mod->underflows, 1);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	/* The count still works after the bad put was ignored. */
	KEXPECT_TRUE(t, try_module_get(mod));
	KEXPECT_EQ(t, module_refcount(mod), 1);
	module_put(mod);
	KEXPECT_EQ(t, mod->underflows, 1);
	kfree(mod);
}

static void
module_get_needs_a_reference(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, mod != NULL);
	__module_get(mod);
	KEXPECT_EQ(t, mod->bad_gets, 1);
	module_put(mod);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	kfree(mod);
}

static void
module_get_from_own_init(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_COMING);

	KASSERT_TRUE(t, mod != NULL);
	mod->init_thread = current;
	__module_get(mod);
	KEXPECT_EQ(t, mod->bad_gets, 0);
	KEXPECT_EQ(t, module_refcount(mod), 1);
	mod->init_thread = NULL;
	mod->state = MODULE_STATE_LIVE;
	module_put(mod);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	kfree(mod);
}

static void
release_waits_for_references(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, mod != NULL);
	KEXPECT_TRUE(t, try_module_get(mod));
	mod->state = MODULE_STATE_GOING;
	KEXPECT_EQ(t, mod->refops->try_release(mod), -EBUSY);
	KEXPECT_TRUE(t, !try_module_get(mod));
	/* Back to LIVE (rmmod interrupted): works as before. */
	mod->state = MODULE_STATE_LIVE;
	KEXPECT_TRUE(t, try_module_get(mod));
	KEXPECT_EQ(t, module_refcount(mod), 2);
	module_put(mod);
	module_put(mod);
	mod->state = MODULE_STATE_GOING;
	KEXPECT_EQ(t, mod->refops->try_release(mod), 0);
	mod->state = MODULE_STATE_LIVE; /* even a racing LIVE check... */
	if (mod->refops == &module_refops_atomic)
		KEXPECT_TRUE(t, !try_module_get(mod)); /* ...finds 0 */
	KEXPECT_EQ(t, mod->underflows, 0);
	kfree(mod);
}

struct cross {
	struct module *mod;
	volatile int done;
};

static void
put_elsewhere(void *arg)
{
	struct cross *c = arg;

	module_put(c->mod);
	c->done = 1;
	kt_shared_put(c);
}

static void
get_here_put_there(struct ktest *t)
{
	struct cross *c = kt_shared_alloc(sizeof(*c), 2);
	struct module *mod = fake_module(MODULE_STATE_LIVE);
	int cpu = kt_other_cpu();

	KASSERT_TRUE(t, c != NULL && mod != NULL);
	if (cpu < 0) {
		ktest_skip(t, "needs two CPUs");
		cpu = cpu_id();
	}
	c->mod = mod;
	KEXPECT_TRUE(t, try_module_get(mod));
	KASSERT_TRUE(t,
	             thread_create("ktest-put", put_elsewhere, c, cpu) != NULL);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(c->done), KT_SOON_MS));
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_EQ(t, mod->underflows, 0);
	kt_shared_put(c);
	kfree(mod);
}

/* Getters on every CPU hammer try_module_get/module_put while one thread
 * moves the module to GOING and runs the unload check until it passes:
 * afterwards no get may succeed and the count must be exactly 0. */
struct race {
	struct module *mod;
	volatile int released;
	volatile int late_gets;
	volatile int gets;
	volatile int running;
};

static void
getter(void *arg)
{
	struct race *r = arg;

	for (int i = 0; i < 5000000 && !r->released; i++) {
		if (try_module_get(r->mod)) {
			if (READ_ONCE(r->released))
				__atomic_add_fetch(&r->late_gets, 1,
				                   __ATOMIC_RELAXED);
			__atomic_add_fetch(&r->gets, 1, __ATOMIC_RELAXED);
			module_put(r->mod);
		}
	}
	__atomic_sub_fetch(&r->running, 1, __ATOMIC_SEQ_CST);
	kt_shared_put(r);
}

static void
unload_check_races_getters(struct ktest *t)
{
	int n = kt_online_cpus() * 2;
	struct race *r = kt_shared_alloc(sizeof(*r), n + 1);
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, r != NULL && mod != NULL);
	r->mod = mod;
	r->running = n;
	for (int i = 0; i < n; i++)
		KASSERT_TRUE(t, thread_create("ktest-get", getter, r,
		                              i % kt_online_cpus()) != NULL);
	msleep(20);
	mod->state = MODULE_STATE_GOING;
	while (mod->refops->try_release(mod) != 0)
		msleep(1);
	r->released = 1;
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(r->running) == 0, KT_SOON_MS));
	KEXPECT_EQ(t, r->late_gets, 0);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_EQ(t, mod->underflows, 0);
	ktest_note(t, "%d gets raced the unload check (%s)", r->gets,
	           mod->refops->name);
	kt_shared_put(r);
	kfree(mod);
}

/* Each CPU's counter in a cache line of its own, in a module
 * record as the loader places it (the first page of the module's area,
 * so page-aligned; a kzalloc'd fake stands in for the offsets). */
static void
pcpu_slots_own_lines(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);

	KASSERT_TRUE(t, mod != NULL);
	kt_expect_slots_own_lines(t, mod->ref.cpu, "module");
	kfree(mod);
}

static __attribute__((noinline)) bool
get_here(struct module *mod, struct ref_tracker *tr)
{
	return try_module_get_track(mod, tr, "ktest");
}

/* A tracked reference is listed with its hold stack (one call site, one
 * stack; another site, another), its put saves the release stack and
 * unlists it; the count moves as with the plain calls. */
static void
tracked_holders_have_stacks(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);
	struct ref_tracker ab[2], c;
	volatile int two = 2; /* a loop the compiler cannot unroll */
	const uintptr_t *f;
	struct sym_info si;
	struct ref_tracker *tr;
	int n = 0;

	KASSERT_TRUE(t, mod != NULL);
	for (int i = 0; i < two; i++)
		KEXPECT_TRUE(t, get_here(mod, &ab[i]));
	KEXPECT_TRUE(t, try_module_get_track(mod, &c, "ktest"));
	KEXPECT_EQ(t, module_refcount(mod), 3);
	KEXPECT_NE(t, ab[0].hold_stack, 0u);
	KEXPECT_EQ(t, ab[0].hold_stack, ab[1].hold_stack);
	KEXPECT_NE(t, ab[0].hold_stack, c.hold_stack);
	KASSERT_TRUE(t, stack_frames(ab[0].hold_stack, &f) >= 2);
	KEXPECT_TRUE(t, ksym_lookup(f[0], &si) == 0 &&
	                    strcmp(si.name, "get_here") == 0);
	KEXPECT_TRUE(t,
	             ksym_lookup(f[1], &si) == 0 &&
	                 strcmp(si.name, "tracked_holders_have_stacks") == 0);
	list_for_each_entry(tr, &mod->holders.list, link)
		n++;
	KEXPECT_EQ(t, n, 3);
	module_put_track(mod, &ab[0]);
	KEXPECT_NE(t, ab[0].put_stack, 0u);
	KEXPECT_NE(t, ab[0].put_stack, ab[0].hold_stack);
	module_put_track(mod, &ab[1]);
	module_put_track(mod, &c);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_TRUE(t, list_empty(&mod->holders.list));
	KEXPECT_EQ(t, mod->underflows, 0);
	kfree(mod);
}

/* A second put through one tracker is reported and refused: the
 * reference it would drop is another holder's. */
static void
tracked_double_put_refused(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);
	struct ref_tracker a, other;
	unsigned before = ref_tracker_double_releases;

	KASSERT_TRUE(t, mod != NULL);
	KEXPECT_TRUE(t, try_module_get_track(mod, &a, "ktest"));
	KEXPECT_TRUE(t, try_module_get_track(mod, &other, "ktest-other"));
	module_put_track(mod, &a);
	module_put_track(mod, &a);
	KEXPECT_EQ(t, ref_tracker_double_releases, before + 1);
	KEXPECT_EQ(t, module_refcount(mod), 1); /* other's, still */
	module_put_track(mod, &other);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	KEXPECT_EQ(t, mod->underflows, 0);
	kfree(mod);
}

/* A put through a tracker whose memory was freed and reused (here:
 * scribbled over, as a new owner of the memory would) is reported and
 * refused, and the quarantine still knows where it was taken and
 * released. */
static void
tracked_put_after_free_quarantined(struct ktest *t)
{
	struct module *mod = fake_module(MODULE_STATE_LIVE);
	struct ref_tracker *tr = kzalloc(sizeof(*tr), "ktest-modref");
	unsigned before = ref_tracker_bad_releases;
	uint32_t hold = 0, put = 0;

	KASSERT_TRUE(t, mod != NULL && tr != NULL);
	KEXPECT_TRUE(t, try_module_get_track(mod, tr, "ktest"));
	KEXPECT_TRUE(t, try_module_get(mod)); /* someone else's */
	module_put_track(mod, tr);
	KEXPECT_TRUE(t, ref_tracker_quarantined(tr, &hold, &put));
	KEXPECT_NE(t, hold, 0u);
	KEXPECT_NE(t, put, 0u);
	memset(tr, 0x6b, sizeof(*tr)); /* its memory reused */
	module_put_track(mod, tr);
	KEXPECT_EQ(t, ref_tracker_bad_releases, before + 1);
	KEXPECT_EQ(t, module_refcount(mod), 1);
	module_put(mod);
	KEXPECT_EQ(t, module_refcount(mod), 0);
	kfree(tr);
	kfree(mod);
}

static void
impl_matches_boot_param(struct ktest *t)
{
	const struct bootparam *p = bootparam_find("modref");
	char v[16];

	KASSERT_TRUE(t, p != NULL);
	bootparam_format(p, v, sizeof(v));
	KEXPECT_TRUE(t, strcmp(v, module_default_refops()->name) == 0);
	ktest_note(t, "modref=%s", v);
}

KTEST_SUITE(modref, KTEST_CASE(impl_matches_boot_param),
            KTEST_CASE(get_put_live), KTEST_CASE(try_get_fails_unless_live),
            KTEST_CASE(null_is_the_kernel), KTEST_CASE(put_underflow_reported),
            KTEST_CASE(module_get_needs_a_reference),
            KTEST_CASE(module_get_from_own_init),
            KTEST_CASE(release_waits_for_references),
            KTEST_CASE(get_here_put_there),
            KTEST_CASE(unload_check_races_getters),
            KTEST_CASE(pcpu_slots_own_lines),
            KTEST_CASE(tracked_holders_have_stacks),
            KTEST_CASE(tracked_double_put_refused),
            KTEST_CASE(tracked_put_after_free_quarantined));
