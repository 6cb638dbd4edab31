/*
 * KTAP suite "module_hooks": the hook lists of kernel/module.h.
 *
 *   policies_first_refusal_wins   every policy is asked in registration
 *                                 order until one refuses; its errno and
 *                                 reason are rmmod's
 *   refs_hooks_by_name_and_all    `refs NAME` stops at the hook that knows
 *                                 NAME; `refs` calls every hook
 *   unregistered_hook_not_called  after unregister, a hook is never called
 *   unregister_waits_for_caller   unregister returns only once a call in
 *                                 progress has left the hook
 *
 * The modules are fake (no image): policies only read the name.  The
 * hooks the kernel registered at boot (net core) stay registered; the
 * cases account for them.
 */
#include <kernel/lib/errno.h>
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include "modloader/module_internal.h"

static struct module fake = {.name = "ktest_hooks", .state = MODULE_STATE_LIVE};
static int calls[3], order[3], ncalls;

static int
note(int i)
{
	calls[i]++;
	order[ncalls++ % 3] = i;
	return 0;
}

static int
pol0(struct module *mod, char *why, size_t size)
{
	(void)mod, (void)why, (void)size;
	return note(0);
}

static int
pol1(struct module *mod, char *why, size_t size)
{
	note(1);
	snprintf(why, size, "%s: no", mod->name);
	return -EPERM;
}

static int
pol2(struct module *mod, char *why, size_t size)
{
	(void)mod, (void)why, (void)size;
	return note(2);
}

static void
reset(void)
{
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
}

static int
check(char *why, size_t size)
{
	int r;

	mutex_lock(&module_mutex);
	r = module_unload_policy_check(&fake, why, size);
	mutex_unlock(&module_mutex);
	return r;
}

static void
policies_first_refusal_wins(struct ktest *t)
{
	struct module_unload_policy p0 = {.check = pol0};
	struct module_unload_policy p1 = {.check = pol1};
	struct module_unload_policy p2 = {.check = pol2};
	char why[64];

	if (check(why, sizeof(why)) != 0) {
		ktest_skip(t, "a boot policy refuses every unload (pinned)");
		return;
	}
	module_unload_policy_register(&p0);
	module_unload_policy_register(&p1);
	module_unload_policy_register(&p2);
	reset();
	KEXPECT_EQ(t, check(why, sizeof(why)), -EPERM);
	KEXPECT_TRUE(t, strcmp(why, "ktest_hooks: no") == 0);
	KEXPECT_EQ(t, calls[0], 1);
	KEXPECT_EQ(t, calls[1], 1);
	KEXPECT_EQ(t, calls[2], 0); /* after the refusal: not asked */
	KEXPECT_EQ(t, order[0], 0);
	KEXPECT_EQ(t, order[1], 1);
	module_unload_policy_unregister(&p1);
	reset();
	KEXPECT_EQ(t, check(why, sizeof(why)), 0);
	KEXPECT_EQ(t, calls[0], 1);
	KEXPECT_EQ(t, calls[2], 1);
	KEXPECT_EQ(t, order[0], 0);
	KEXPECT_EQ(t, order[1], 2);
	module_unload_policy_unregister(&p0);
	module_unload_policy_unregister(&p2);
}

static int
show0(const char *name)
{
	note(0);
	return name != NULL && strcmp(name, "kt_zero") == 0 ? 0 : -ENOENT;
}

static int
show1(const char *name)
{
	note(1);
	return name != NULL && strcmp(name, "kt_one") == 0 ? 0 : -ENOENT;
}

static void
refs_hooks_by_name_and_all(struct ktest *t)
{
	struct refs_show_hook h0 = {.show = show0};
	struct refs_show_hook h1 = {.show = show1};

	refs_show_hook_register(&h0);
	refs_show_hook_register(&h1);
	reset();
	KEXPECT_EQ(t, refs_show_hooks("kt_zero"), 0);
	KEXPECT_EQ(t, calls[0], 1);
	KEXPECT_EQ(t, calls[1], 0); /* h0 knew it: h1 not asked */
	reset();
	KEXPECT_EQ(t, refs_show_hooks("kt_one"), 0);
	KEXPECT_EQ(t, calls[0], 1);
	KEXPECT_EQ(t, calls[1], 1);
	reset();
	KEXPECT_EQ(t, refs_show_hooks("kt_nobody"), -ENOENT);
	KEXPECT_EQ(t, calls[0] + calls[1], 2);
	refs_show_hook_unregister(&h0);
	refs_show_hook_unregister(&h1);
}

static void
unregistered_hook_not_called(struct ktest *t)
{
	struct refs_show_hook h0 = {.show = show0};

	refs_show_hook_register(&h0);
	refs_show_hook_unregister(&h0);
	reset();
	KEXPECT_EQ(t, refs_show_hooks("kt_zero"), -ENOENT);
	KEXPECT_EQ(t, calls[0], 0);
}

/* A hook that stays inside until told to leave. */
static volatile int blocker_in, blocker_release, unreg_done, seen_done;

static int
show_blocking(const char *name)
{
	if (name == NULL || strcmp(name, "kt_block") != 0)
		return -ENOENT;
	WRITE_ONCE(blocker_in, 1);
	kt_poll(READ_ONCE(blocker_release), 4 * KT_SOON_MS);
	seen_done = READ_ONCE(unreg_done);
	return 0;
}

static struct refs_show_hook blocking = {.show = show_blocking};

static int
do_refs(void *arg)
{
	(void)arg;
	return refs_show_hooks("kt_block");
}

static int
do_unregister(void *arg)
{
	(void)arg;
	refs_show_hook_unregister(&blocking);
	WRITE_ONCE(unreg_done, 1);
	return 0;
}

static void
unregister_waits_for_caller(struct ktest *t)
{
	struct kt_async *caller, *unreg;

	blocker_in = blocker_release = unreg_done = seen_done = 0;
	refs_show_hook_register(&blocking);
	caller = kt_async_start("ktest-refs", do_refs, NULL);
	KASSERT_TRUE(t, caller != NULL);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(blocker_in), KT_SOON_MS));
	unreg = kt_async_start("ktest-unreg", do_unregister, NULL);
	KEXPECT_TRUE(t, unreg != NULL);
	/* A bounded look for what must not happen: unregister finishing
	 * while the hook runs. */
	KEXPECT_TRUE(t, !kt_poll(READ_ONCE(unreg_done), 200));
	WRITE_ONCE(blocker_release, 1);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(caller->done), KT_SOON_MS));
	KEXPECT_EQ(t, caller->result, 0);
	KEXPECT_EQ(t, seen_done, 0);
	if (unreg != NULL) {
		KEXPECT_TRUE(t, kt_poll(READ_ONCE(unreg->done), KT_SOON_MS));
		kt_shared_put(unreg);
	}
	kt_shared_put(caller);
	/* Gone: a new call does not reach it. */
	KEXPECT_EQ(t, refs_show_hooks("kt_block"), -ENOENT);
}

KTEST_SUITE(module_hooks, KTEST_CASE(policies_first_refusal_wins),
            KTEST_CASE(refs_hooks_by_name_and_all),
            KTEST_CASE(unregistered_hook_not_called),
            KTEST_CASE(unregister_waits_for_caller));
