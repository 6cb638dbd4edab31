/*
 * The hook lists of kernel/module.h: unload policies and refs hooks.
 *
 * Each list is guarded by hooks_mutex, which the caller of the hooks holds
 * for the whole walk: a register or unregister waits for a walk in
 * progress, so after unregister returns nobody is in (or about to enter)
 * the hook.  The lists are short and walked rarely (rmmod, `refs`), so
 * one sleeping lock is the simple, obviously correct choice; RCU would
 * forbid hooks that sleep (the refs hook takes rtnl).
 *
 * Lock order: module_mutex -> hooks_mutex -> whatever a hook takes
 * (rtnl for the net hooks).  Registering while holding hooks_mutex (from
 * inside a hook) would deadlock: asserted instead.
 */
#include <kernel/errno.h>
#include <kernel/panic.h>
#include "modloader/module_internal.h"

static DEFINE_MUTEX(hooks_mutex);
static LIST_HEAD(unload_policies);
static LIST_HEAD(refs_hooks);

static bool
on_list(struct list_head *head, struct list_head *node)
{
	for (struct list_head *p = head->next; p != head; p = p->next)
		if (p == node)
			return true;
	return false;
}

static void
hook_add(struct list_head *head, struct list_head *node)
{
	ASSERT(!mutex_held(&hooks_mutex)); /* not from inside a hook */
	mutex_lock(&hooks_mutex);
	ASSERT(!on_list(head, node)); /* registered twice */
	list_add_tail(node, head);
	mutex_unlock(&hooks_mutex);
}

static void
hook_del(struct list_head *head, struct list_head *node)
{
	ASSERT(!mutex_held(&hooks_mutex));
	mutex_lock(&hooks_mutex);
	ASSERT(on_list(head, node)); /* never registered */
	list_del_init(node);
	mutex_unlock(&hooks_mutex);
}

void
module_unload_policy_register(struct module_unload_policy *p)
{
	ASSERT(p->check != NULL);
	hook_add(&unload_policies, &p->link);
}
EXPORT_SYMBOL(module_unload_policy_register);

void
module_unload_policy_unregister(struct module_unload_policy *p)
{
	hook_del(&unload_policies, &p->link);
}
EXPORT_SYMBOL(module_unload_policy_unregister);

void
refs_show_hook_register(struct refs_show_hook *h)
{
	ASSERT(h->show != NULL);
	hook_add(&refs_hooks, &h->link);
}
EXPORT_SYMBOL(refs_show_hook_register);

void
refs_show_hook_unregister(struct refs_show_hook *h)
{
	hook_del(&refs_hooks, &h->link);
}
EXPORT_SYMBOL(refs_show_hook_unregister);

int
module_unload_policy_check(struct module *mod, char *why, size_t size)
{
	struct module_unload_policy *p;
	int r = 0;

	ASSERT(mutex_held(&module_mutex));
	ASSERT(mod->state == MODULE_STATE_LIVE);
	mutex_lock(&hooks_mutex);
	list_for_each_entry(p, &unload_policies, link) {
		why[0] = '\0';
		r = p->check(mod, why, size);
		/* The contract holds across the call too. */
		ASSERT(mod->state == MODULE_STATE_LIVE);
		if (r != 0)
			break;
	}
	mutex_unlock(&hooks_mutex);
	ASSERT(r <= 0);
	return r;
}

int
refs_show_hooks(const char *name)
{
	struct refs_show_hook *h;
	int r = -ENOENT;

	ASSERT(!mutex_held(&module_mutex));
	mutex_lock(&hooks_mutex);
	list_for_each_entry(h, &refs_hooks, link) {
		if (name == NULL) {
			h->show(NULL);
			r = 0;
		} else if (h->show(name) == 0) {
			r = 0;
			break;
		}
	}
	mutex_unlock(&hooks_mutex);
	return r;
}
