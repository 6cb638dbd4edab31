/*
 * The module list's invariants (kernel/debug/invariant.h), under module_mutex:
 * names are unique, states are known, no count is below zero, and every
 * dependency is recorded on both ends with both ends listed.
 */
#include <kernel/debug/invariant.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include "modloader/module_internal.h"

static bool
listed(const struct module *m)
{
	const struct module *o;

	list_for_each_entry(o, &modules, list)
		if (o == m)
			return true;
	return false;
}

static bool
has_use(const struct list_head *head, const struct module_use *u, bool by)
{
	const struct module_use *o;

	if (by) {
		list_for_each_entry(o, head, used_by_link)
			if (o == u)
				return true;
	} else {
		list_for_each_entry(o, head, uses_link)
			if (o == u)
				return true;
	}
	return false;
}

static const char *
module_sane(const struct module *mod, char *buf, size_t size)
{
	const struct module *o;
	const struct module_use *u;

	if (mod->state < MODULE_STATE_COMING ||
	    mod->state > MODULE_STATE_GONE ||
	    module_refcount((struct module *)mod) < 0) {
		snprintf(buf, size, "%s: state %d, refcount %d", mod->name,
		         mod->state, module_refcount((struct module *)mod));
		return buf;
	}
	list_for_each_entry(o, &modules, list) {
		if (o == mod)
			break;
		if (strcmp(o->name, mod->name) == 0) {
			snprintf(buf, size, "%s listed twice", mod->name);
			return buf;
		}
	}
	list_for_each_entry(u, &mod->uses, uses_link) {
		if (u->user != mod || !listed(u->target) ||
		    !has_use(&u->target->used_by, u, true)) {
			snprintf(buf, size, "%s: a use of %s is one-sided",
			         mod->name, module_name(u->target));
			return buf;
		}
	}
	list_for_each_entry(u, &mod->used_by, used_by_link) {
		if (u->target != mod || !listed(u->user) ||
		    !has_use(&u->user->uses, u, false)) {
			snprintf(buf, size, "%s: used by %s one-sidedly",
			         mod->name, module_name(u->user));
			return buf;
		}
	}
	return NULL;
}

static const char *
modules_sane(char *buf, size_t size)
{
	const struct module *mod;
	const char *why = NULL;

	mutex_lock(&module_mutex);
	list_for_each_entry(mod, &modules, list) {
		if ((why = module_sane(mod, buf, size)) != NULL)
			break;
	}
	mutex_unlock(&module_mutex);
	return why;
}
INVARIANT(modules, modules_sane);
