/*
 * Which boot module a name means, and loading it (modloader/load.h).
 * The boot module table is read without a lock (kernel/bootmod.h); each
 * file is hostile, so it is checked by the ELF core (elf_mod_check)
 * before its .modinfo is read, and .modinfo itself by its one reader
 * (elf_modinfo.c).
 */
#include <kernel/bootmod.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/debug/panic.h>
#include <kernel/lib/string.h>
#include "modloader/elf_mod.h"
#include "modloader/load.h"
#include "modloader/module_internal.h"

const char *
module_loaded_from(const struct boot_module *bm)
{
	struct module *mod;

	ASSERT(mutex_held(&module_mutex));
	list_for_each_entry(mod, &modules, list)
		if (strcmp(mod->file, bm->name) == 0)
			return mod->name;
	return NULL;
}

/* Does boot module bm declare alias?  A file that fails the checks
 * declares nothing (insmod of it by file name says why). */
static bool
declares_alias(const struct boot_module *bm, const char *alias)
{
	struct elf_modinfo mi;
	struct elf_mod m;
	char err[8];

	if (elf_mod_check(&m, P2V(bm->start), bm->end - bm->start, err,
	                  sizeof(err)) != 0 ||
	    elf_mod_modinfo(&m, &mi, err, sizeof(err)) != 0)
		return false;
	return elf_modinfo_has(&mi, "alias", alias);
}

int
module_find_file(const char *name, char *file, size_t size, char *err,
                 size_t errlen)
{
	const struct boot_module *bm = boot_module_find(name);
	char ko[BOOT_MODULE_NAME_MAX + 4];
	const char *loaded = NULL;

	err[0] = '\0';
	if (bm == NULL) {
		snprintf(ko, sizeof(ko), "%s.ko", name);
		bm = boot_module_find(ko);
	}
	if (bm != NULL) {
		strlcpy(file, bm->name, size);
		return 0;
	}
	modules_lazy_init();
	mutex_lock(&module_mutex);
	for (int i = 0; (bm = boot_module_at(i)) != NULL; i++) {
		if (!declares_alias(bm, name))
			continue;
		loaded = module_loaded_from(bm);
		if (loaded == NULL) {
			strlcpy(file, bm->name, size);
			mutex_unlock(&module_mutex);
			return 0;
		}
	}
	if (loaded != NULL)
		snprintf(err, errlen, "alias of module %s, which is loaded",
		         loaded);
	else
		snprintf(err, errlen,
		         "no boot module %s.ko and no module with that alias "
		         "(insmod -l lists them)",
		         name);
	mutex_unlock(&module_mutex);
	return loaded != NULL ? -EEXIST : -ENOENT;
}

int
module_load_by_name(const char *name, int argc, char **argv, char *modname,
                    char *err, size_t errlen)
{
	char file[BOOT_MODULE_NAME_MAX];
	int r = module_find_file(name, file, sizeof(file), err, errlen);

	if (r != 0)
		return r;
	return module_load(file, argc, argv, modname, err, errlen);
}
