/*
 * Exported symbols and the dependencies they create.
 *
 * The kernel's export table is the __ksymtab section collected by the
 * linker (EXPORT_SYMBOL in kernel/exports.c and next to module-layer
 * functions); each module's own __ksymtab is validated at load time
 * (load.c) and searched only while the module is LIVE.  Resolving a
 * symbol against another module records a module_use: the target cannot
 * be unloaded while its user is loaded (lsmod "Used by").
 *
 * Callers hold module_mutex.
 */
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include "modloader/module_internal.h"

extern const struct kernel_symbol __ksymtab_start[], __ksymtab_end[];

const struct kernel_symbol *
kernel_symbol_find(const char *name)
{
	for (const struct kernel_symbol *s = __ksymtab_start; s < __ksymtab_end;
	     s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct kernel_symbol *
module_symbol_find(const char *name, struct module **owner)
{
	struct module *mod;

	list_for_each_entry(mod, &modules, list) {
		if (mod->state != MODULE_STATE_LIVE)
			continue;
		for (unsigned i = 0; i < mod->nsyms; i++) {
			if (strcmp(mod->syms[i].name, name) == 0) {
				*owner = mod;
				return &mod->syms[i];
			}
		}
	}
	return NULL;
}

int
module_add_use(struct module *user, struct module *target)
{
	struct module_use *u;

	list_for_each_entry(u, &user->uses, uses_link)
		if (u->target == target)
			return 0;
	u = kzalloc(sizeof(*u), MODULE_TAG);
	if (u == NULL)
		return -ENOMEM;
	u->user = user;
	u->target = target;
	list_add_tail(&u->uses_link, &user->uses);
	list_add_tail(&u->used_by_link, &target->used_by);
	return 0;
}

void
module_drop_uses(struct module *mod)
{
	while (!list_empty(&mod->uses)) {
		struct module_use *u =
		    list_first_entry(&mod->uses, struct module_use, uses_link);
		list_del_init(&u->uses_link);
		list_del_init(&u->used_by_link);
		kfree(u);
	}
}

void
module_used_by(struct module *mod, char *buf, size_t size)
{
	struct module_use *u;
	size_t len = 0;

	buf[0] = '\0';
	list_for_each_entry(u, &mod->used_by, used_by_link) {
		int n = snprintf(buf + len, size - len, "%s%s",
		                 len > 0 ? "," : "", u->user->name);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}
