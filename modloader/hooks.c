/*
 * The hook lists of kernel/module.h: unload policies and refs hooks.
 *
 * Each list has a mutex that the caller of its hooks holds for the whole
 * walk: a register or unregister waits for a walk in progress, so after
 * unregister returns nobody is in (or about to enter) the hook.  The
 * lists are short and walked rarely (rmmod, `refs`), so a sleeping lock
 * is the simple, obviously correct choice; RCU would forbid hooks that
 * sleep (the refs hook takes rtnl).  Two lists, two locks: a policy runs
 * under module_mutex and a refs hook takes rtnl, and one shared lock
 * would tie those two orders together.
 *
 * Lock order: module_mutex -> policies.lock -> what a policy takes;
 * refs_hooks.lock -> what a refs hook takes (rtnl).  Registering from
 * inside a hook would deadlock on the list's lock: asserted instead.
 */
#include <kernel/lib/errno.h>
#include <kernel/debug/panic.h>
#include "modloader/module_internal.h"

struct hook_list {
	struct mutex lock;
	struct list_head head;
};

#define HOOK_LIST(n)                                                           \
	struct hook_list n = {MUTEX_INIT(n.lock), LIST_HEAD_INIT(n.head)}

static HOOK_LIST(policies);
static HOOK_LIST(refs_hooks);

static bool
on_list(struct list_head *head, struct list_head *node)
{
	for (struct list_head *p = head->next; p != head; p = p->next)
		if (p == node)
			return true;
	return false;
}

/* Not from inside a hook: that thread holds a list's lock. */
static void
assert_not_in_hook(void)
{
	ASSERT(!mutex_held(&policies.lock));
	ASSERT(!mutex_held(&refs_hooks.lock));
}

static void
hook_add(struct hook_list *l, struct list_head *node)
{
	assert_not_in_hook();
	mutex_lock(&l->lock);
	ASSERT(!on_list(&l->head, node)); /* registered twice */
	list_add_tail(node, &l->head);
	mutex_unlock(&l->lock);
}

static void
hook_del(struct hook_list *l, struct list_head *node)
{
	assert_not_in_hook();
	mutex_lock(&l->lock);
	ASSERT(on_list(&l->head, node)); /* never registered */
	list_del_init(node);
	mutex_unlock(&l->lock);
}

void
module_unload_policy_register(struct module_unload_policy *p)
{
	ASSERT(p->check != NULL);
	hook_add(&policies, &p->link);
}
EXPORT_SYMBOL(module_unload_policy_register);

void
module_unload_policy_unregister(struct module_unload_policy *p)
{
	hook_del(&policies, &p->link);
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
	mutex_lock(&policies.lock);
	list_for_each_entry(p, &policies.head, link) {
		why[0] = '\0';
		r = p->check(mod, why, size);
		/* The contract holds across the call too. */
		ASSERT(mod->state == MODULE_STATE_LIVE);
		if (r != 0)
			break;
	}
	mutex_unlock(&policies.lock);
	ASSERT(r <= 0);
	return r;
}

int
refs_show_hooks(const char *name)
{
	struct refs_show_hook *h;
	int r = -ENOENT;

	ASSERT(!mutex_held(&module_mutex));
	mutex_lock(&refs_hooks.lock);
	list_for_each_entry(h, &refs_hooks.head, link) {
		if (name == NULL) {
			h->show(NULL);
			r = 0;
		} else if (h->show(name) == 0) {
			r = 0;
			break;
		}
	}
	mutex_unlock(&refs_hooks.lock);
	return r;
}
