/*
 * insmod: load a boot module by name, in short checked phases (after
 * Linux's kernel/module/main.c).  Each phase returns 0 or -errno with one
 * line in err; failure unwinds through a descending goto ladder, so a
 * refused or failed module leaves no page, mapping, allocation or list
 * entry behind (meminfo -d proves it in tests/scenarios/modules-*.scn).
 *
 *   find_file      the boot module NAME or NAME.ko
 *   read_modinfo   .modinfo from the file, before anything is allocated
 *   elf pipeline   check, layout, copy, resolve, relocate (elf_mod.h),
 *                  into pages mapped in the module area
 *   read_tables    exports, parameters and entry points, all checked
 *                  against the image: the file is hostile
 *   apply params   insmod NAME k=v
 *   copy_symbols   sections and functions, kept by the kernel for
 *                  modinfo, gdb, backtraces and the graveyard
 *   protect        text and read-only data made read-only
 *   do_init        COMING, init outside module_mutex, then LIVE, or the
 *                  failed-init path (keep_failed_init keeps the memory)
 */
#include <kernel/mm/kmalloc.h>
#include <kernel/bootmod.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/errno.h>
#include "modloader/elf_mod.h"
#include "modloader/module_internal.h"

#define MAX_FUNCS   4096
#define SYMNAME_MAX 64

struct load_info {
	const char *name; /* as asked */
	const struct boot_module *bm;
	const void *data;
	size_t size;
	struct elf_mod em;
	const char *modinfo; /* in the file */
	uint32_t modinfo_size;
	char modname[MODULE_NAME_LEN];
	void *scratch;
	struct module_area area;
	struct module *mod;
	char *err;
	size_t errlen;
};

static int
find_file(struct load_info *li)
{
	char ko[80];

	li->bm = boot_module_find(li->name);
	if (li->bm == NULL) {
		snprintf(ko, sizeof(ko), "%s.ko", li->name);
		li->bm = boot_module_find(ko);
	}
	if (li->bm == NULL) {
		snprintf(li->err, li->errlen,
		         "no boot module %s.ko (insmod -l lists them)",
		         li->name);
		return -ENOENT;
	}
	li->data = P2V(li->bm->start);
	li->size = li->bm->end - li->bm->start;
	if (((uintptr_t)li->data & 3) != 0) {
		snprintf(li->err, li->errlen,
		         "boot module %s is not 4-byte aligned in memory",
		         li->bm->name);
		return -ENOEXEC;
	}
	return 0;
}

static bool
valid_modname(const char *s, size_t len)
{
	if (len == 0 || len >= MODULE_NAME_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* Checks (beyond elf_modinfo_check's): there is a name= entry, a valid
 * module name (letters, digits, _ and -, under 32 bytes), and every
 * name= entry agrees. */
int
module_read_modinfo(const struct elf_mod *em, const char **info, uint32_t *size,
                    char *name, char *err, size_t errlen)
{
	struct elf_modinfo mi;
	struct elf_modinfo_entry e;
	uint32_t pos = 0;
	int r;

	name[0] = '\0';
	r = elf_mod_modinfo(em, &mi, err, errlen);
	if (r != 0)
		return r;
	while (elf_modinfo_next(&mi, &pos, &e) == 1) {
		if (e.keylen != 4 || strncmp(e.key, "name", 4) != 0)
			continue;
		if (!valid_modname(e.value, strlen(e.value))) {
			snprintf(err, errlen,
			         ".modinfo: bad module name '%.40s'", e.value);
			return -ENOEXEC;
		}
		if (name[0] != '\0' && strcmp(name, e.value) != 0) {
			snprintf(err, errlen,
			         ".modinfo names the module twice: %s and %s",
			         name, e.value);
			return -ENOEXEC;
		}
		strlcpy(name, e.value, MODULE_NAME_LEN);
	}
	if (name[0] == '\0') {
		snprintf(err, errlen, ".modinfo has no name= entry");
		return -ENOEXEC;
	}
	*info = mi.data;
	*size = mi.size;
	return 0;
}

static int
resolve_symbol(void *ctx, const char *name, uint32_t *addr)
{
	struct load_info *li = ctx;
	const struct kernel_symbol *ks;
	struct module *owner;
	int r;

	if (strcmp(name, "__this_module") == 0) {
		*addr = (uint32_t)li->mod;
		return 0;
	}
	ks = kernel_symbol_find(name);
	if (ks == NULL) {
		ks = module_symbol_find(name, &owner);
		if (ks == NULL)
			return -ENOENT;
		r = module_add_use(li->mod, owner);
		if (r != 0)
			return r;
	}
	*addr = (uint32_t)ks->value;
	return 0;
}

static int
elf_pipeline(struct load_info *li)
{
	struct elf_mod *em = &li->em;
	size_t ssize = elf_mod_scratch_size(em);
	struct module *mod;
	int r;

	li->scratch = kmalloc(ssize > 0 ? ssize : 4, MODULE_TAG);
	if (li->scratch == NULL) {
		snprintf(li->err, li->errlen,
		         "no memory for %u bytes of "
		         "loader scratch",
		         (unsigned)ssize);
		return -ENOMEM;
	}
	r = elf_mod_layout(em, li->scratch, ssize);
	if (r != 0)
		return r;
	r = area_alloc(em->image_size, &li->area);
	if (r != 0) {
		snprintf(li->err, li->errlen,
		         "no room for %u bytes in the module area",
		         (unsigned)em->image_size);
		return r;
	}
	r = area_map(&li->area);
	if (r != 0) {
		area_unmap_free(&li->area);
		snprintf(li->err, li->errlen, "no memory for the image");
		return r;
	}
	/* The record fills the area's first page; the image starts on the
	 * next (the per-CPU slots make it grow with MAX_CPUS). */
	_Static_assert(sizeof(struct module) <= PAGE_SIZE,
	               "struct module must fit in one page");
	mod = (struct module *)li->area.start;
	li->mod = mod;
	strlcpy(mod->name, li->modname, sizeof(mod->name));
	strlcpy(mod->file, li->bm->name, sizeof(mod->file));
	INIT_LIST_HEAD(&mod->list);
	INIT_LIST_HEAD(&mod->uses);
	INIT_LIST_HEAD(&mod->used_by);
	mod->state = MODULE_STATE_COMING;
	mod->area = li->area.start;
	mod->area_end = li->area.end;
	mod->base = li->area.start + PAGE_SIZE;
	mod->size = em->image_size;
	mod->text_size = em->text_size;
	mod->ro_size = em->ro_size;
	r = elf_mod_copy(em, (void *)mod->base);
	if (r == 0)
		r = elf_mod_resolve(em, mod->base, resolve_symbol, li);
	if (r == 0)
		r = elf_mod_relocate(em, (void *)mod->base);
	return r;
}

/* Address of entry point sym, NULL if the module has none; a symbol by
 * that name that is not a function in the module's text is refused. */
static int
find_hook(struct load_info *li, const char *sym, void **fn)
{
	struct elf_mod_sym s;
	struct module *mod = li->mod;

	*fn = NULL;
	if (elf_mod_find_symbol(&li->em, sym, &s) != 0)
		return 0;
	if (s.type != STT_FUNC || s.addr < mod->base ||
	    s.addr >= mod->base + mod->text_size) {
		snprintf(li->err, li->errlen,
		         "%s is not a function in the module's text", sym);
		return -ENOEXEC;
	}
	*fn = (void *)s.addr;
	return 0;
}

/* A table section: entsize-byte entries, 4-aligned, inside the image. */
static int
find_table(struct load_info *li, const char *sec, uint32_t entsize,
           const void **tab, unsigned *n)
{
	uint32_t addr, size;

	*tab = NULL;
	*n = 0;
	if (elf_mod_section_addr(&li->em, sec, &addr, &size) != 0)
		return 0;
	if ((addr & 3) != 0 || size % entsize != 0) {
		snprintf(li->err, li->errlen,
		         "section %s: size %u is not a multiple of %u or "
		         "misaligned",
		         sec, (unsigned)size, (unsigned)entsize);
		return -ENOEXEC;
	}
	*tab = (const void *)addr;
	*n = size / entsize;
	return 0;
}

/* Checks each export: the name a short string in the image, the value
 * inside the image, and the name exported by nobody else (kernel or
 * another module) nor twice by this one. */
static int
check_exports(struct load_info *li)
{
	struct module *mod = li->mod, *owner;

	for (unsigned i = 0; i < mod->nsyms; i++) {
		const struct kernel_symbol *s = &mod->syms[i];
		uintptr_t v = (uintptr_t)s->value;

		if (!module_image_string(mod, s->name, SYMNAME_MAX)) {
			snprintf(li->err, li->errlen,
			         "export %u: bad name pointer", i);
			return -ENOEXEC;
		}
		if (v < mod->base || v >= mod->base + mod->size) {
			snprintf(li->err, li->errlen,
			         "export %s: value %08x outside the module",
			         s->name, (unsigned)v);
			return -ENOEXEC;
		}
		if (kernel_symbol_find(s->name) != NULL ||
		    module_symbol_find(s->name, &owner) != NULL) {
			snprintf(li->err, li->errlen,
			         "exports %s, already exported by %s", s->name,
			         kernel_symbol_find(s->name) != NULL
			             ? "the kernel"
			             : owner->name);
			return -EEXIST;
		}
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(mod->syms[j].name, s->name) == 0) {
				snprintf(li->err, li->errlen,
				         "exports %s twice", s->name);
				return -ENOEXEC;
			}
		}
	}
	return 0;
}

static int
read_tables(struct load_info *li)
{
	struct module *mod = li->mod;
	const void *tab;
	void *fn;
	int r;

	r = find_table(li, "__ksymtab", sizeof(struct kernel_symbol), &tab,
	               &mod->nsyms);
	if (r != 0)
		return r;
	mod->syms = tab;
	r = find_table(li, "__param", sizeof(struct module_param), &tab,
	               &mod->nparams);
	if (r != 0)
		return r;
	mod->params = tab;
#define HOOK(field, sym)                                                       \
	do {                                                                   \
		r = find_hook(li, sym, &fn);                                   \
		if (r != 0)                                                    \
			return r;                                              \
		*(void **)&mod->field = fn;                                    \
	} while (0)
	HOOK(init, "__module_init");
	HOOK(exit, "__module_exit");
	HOOK(can_unload, "__module_can_unload");
	HOOK(quiesce, "__module_quiesce");
	HOOK(resume, "__module_resume");
	HOOK(force, "__module_force");
	HOOK(status, "__module_status");
#undef HOOK
	r = check_exports(li);
	if (r != 0)
		return r;
	return module_params_check(mod, li->err, li->errlen);
}

/* ---- kernel copies: sections and functions ------------------------------ */

static int
copy_sections(struct load_info *li)
{
	const struct elf_mod *em = &li->em;
	struct module *mod = li->mod;
	size_t names = 0;
	unsigned n = 0;
	char *s;

	for (unsigned i = 1; i < em->nsec; i++) {
		if (em->sec_off[i] == ELF_MOD_NOT_LOADED)
			continue;
		names += strlen(em->secstrings + em->sec[i].sh_name) + 1;
		n++;
	}
	mod->sections =
	    kmalloc(n * sizeof(*mod->sections) + names + 1, MODULE_TAG);
	if (mod->sections == NULL)
		return -ENOMEM;
	s = (char *)(mod->sections + n);
	for (unsigned i = 1; i < em->nsec; i++) {
		const char *name = em->secstrings + em->sec[i].sh_name;
		struct module_section *ms = &mod->sections[mod->nsections];

		if (em->sec_off[i] == ELF_MOD_NOT_LOADED)
			continue;
		strlcpy(s, name, strlen(name) + 1);
		ms->name = s;
		ms->addr = mod->base + em->sec_off[i];
		ms->size = em->sec[i].sh_size;
		s += strlen(name) + 1;
		mod->nsections++;
	}
	return 0;
}

struct func_walk {
	struct module *mod;
	unsigned n;
	size_t names;
	char *name_next;
};

static size_t
symname_len(const char *name)
{
	return strnlen(name, SYMNAME_MAX - 1) + 1;
}

static int
count_func(void *ctx, const struct elf_mod_sym *s)
{
	struct func_walk *w = ctx;

	if (w->n == MAX_FUNCS || s->name[0] == '\0')
		return 0;
	w->n++;
	w->names += symname_len(s->name);
	return 0;
}

static int
add_func(void *ctx, const struct elf_mod_sym *s)
{
	struct func_walk *w = ctx;
	struct module *mod = w->mod;
	struct module_sym *ms;

	if (mod->nsymtab == w->n || s->name[0] == '\0')
		return 0;
	ms = &mod->symtab[mod->nsymtab++];
	ms->addr = s->addr;
	ms->size = s->size;
	ms->name = (uint32_t)(w->name_next - mod->symnames);
	strlcpy(w->name_next, s->name, symname_len(s->name));
	w->name_next += symname_len(s->name);
	return 0;
}

static void
sort_syms(struct module_sym *v, unsigned n)
{
	/* Shell sort: no recursion, no allocation, fine for 4096. */
	for (unsigned gap = n / 2; gap > 0; gap /= 2) {
		for (unsigned i = gap; i < n; i++) {
			struct module_sym t = v[i];
			unsigned j = i;
			while (j >= gap && v[j - gap].addr > t.addr) {
				v[j] = v[j - gap];
				j -= gap;
			}
			v[j] = t;
		}
	}
}

static int
copy_symbols(struct load_info *li)
{
	struct module *mod = li->mod;
	struct func_walk w = {mod, 0, 0, NULL};
	char *blob;

	elf_mod_for_each_func(&li->em, count_func, &w);
	blob =
	    kmalloc(w.n * sizeof(struct module_sym) + w.names + 1, MODULE_TAG);
	if (blob == NULL)
		return -ENOMEM;
	mod->symtab = (struct module_sym *)blob;
	mod->symnames = blob + w.n * sizeof(struct module_sym);
	w.name_next = (char *)mod->symnames;
	elf_mod_for_each_func(&li->em, add_func, &w);
	sort_syms(mod->symtab, mod->nsymtab);
	return 0;
}

static int
copy_modinfo(struct load_info *li)
{
	struct module *mod = li->mod;

	mod->modinfo = kmalloc(li->modinfo_size, MODULE_TAG);
	if (mod->modinfo == NULL)
		return -ENOMEM;
	memcpy(mod->modinfo, li->modinfo, li->modinfo_size);
	mod->modinfo_size = li->modinfo_size;
	return 0;
}

static void
free_copies(struct module *mod)
{
	kfree(mod->sections);
	kfree(mod->symtab);
	kfree(mod->modinfo);
	mod->sections = NULL;
	mod->symtab = NULL;
	mod->modinfo = NULL;
}

void
module_free(struct module *mod)
{
	struct module_area a = {mod->area, mod->area_end};

	free_copies(mod);
	/* mod itself lives in the first page of the area. */
	area_unmap_free(&a);
}

/* ---- init -------------------------------------------------------------- */

/* scripts/gdb-modref.py breaks here to load the module's symbols before
 * its init runs, so a debugger user can break inside init. */
__attribute__((noinline)) void
modref_gdb_module_loaded(struct module *mod)
{
	__asm__ volatile("" : : "r"(mod) : "memory");
}

/* Called with module_mutex held; returns with it released. */
static int
do_init(struct load_info *li) RELEASE(module_mutex)
{
	struct module *mod = li->mod;
	int ret = 0;

	mod->refops = module_default_refops();
	mod->refops->init(mod);
	module_track_init(mod);
	mod->loaded_ms = now_ms();
	list_add_tail_rcu(&mod->list, &modules); /* lockless readers: RCU */
	trace_mod_phase(mod, "load");
	mutex_unlock(&module_mutex);
	modref_gdb_module_loaded(mod);

	/* Without the mutex: init may load or look up other modules. */
	if (mod->init != NULL) {
		mod->init_thread = current;
		ret = mod->init();
		mod->init_thread = NULL;
	}
	mod->init_ret = ret;
	mutex_lock(&module_mutex);
	if (ret >= 0) {
		__atomic_store_n(&mod->state, MODULE_STATE_LIVE,
		                 __ATOMIC_SEQ_CST);
		trace_mod_phase(mod, "live");
		mutex_unlock(&module_mutex);
		return 0;
	}
	snprintf(li->err, li->errlen, "init failed (%d)%s", ret,
	         keep_failed_init ? "; memory kept (keep_failed_init)" : "");
	__atomic_store_n(&mod->state, MODULE_STATE_GONE, __ATOMIC_SEQ_CST);
	trace_mod_phase(mod, "init-failed");
	if (keep_failed_init) {
		/* Rusty's policy: never free what init may have handed out.
		 * Stays listed as GONE; rmmod frees it. */
		mutex_unlock(&module_mutex);
		return ret;
	}
	/* Unlisted before the mutex drops, so rmmod never mistakes it for a
	 * kept failed module; the grace period inside covers pointers init
	 * published and withdrew. */
	module_teardown_locked(mod);
	return ret;
}

int
module_load(const char *name, int argc, char **argv, char *modname, char *err,
            size_t errlen)
{
	struct load_info li;
	int r;

	memset(&li, 0, sizeof(li));
	li.name = name;
	li.err = err;
	li.errlen = errlen;
	err[0] = '\0';
	modules_lazy_init();

	r = find_file(&li);
	if (r != 0)
		return r;
	r = elf_mod_check(&li.em, li.data, li.size, err, errlen);
	if (r != 0)
		return r;
	r = module_read_modinfo(&li.em, &li.modinfo, &li.modinfo_size,
	                        li.modname, err, errlen);
	if (r != 0)
		return r;

	mutex_lock(&module_mutex);
	if (module_find(li.modname) != NULL) {
		snprintf(err, errlen, "module %s is already loaded",
		         li.modname);
		r = -EEXIST;
		goto out_unlock;
	}
	r = elf_pipeline(&li);
	if (r != 0)
		goto out_unmap;
	r = read_tables(&li);
	if (r != 0)
		goto out_unmap;
	r = module_params_apply(li.mod, argc, argv, err, errlen);
	if (r != 0)
		goto out_unmap;
	r = copy_modinfo(&li);
	if (r == 0)
		r = copy_sections(&li);
	if (r == 0)
		r = copy_symbols(&li);
	if (r != 0) {
		snprintf(err, errlen, "no memory for the module's tables");
		goto out_copies;
	}
	area_protect_ro(li.mod->base, li.mod->base + li.mod->ro_size);
	kfree(li.scratch);
	li.scratch = NULL;
	if (modname != NULL)
		strlcpy(modname, li.modname, MODULE_NAME_LEN);
	return do_init(&li);

out_copies:
	free_copies(li.mod);
out_unmap:
	if (li.mod != NULL) {
		module_drop_uses(li.mod);
		area_unmap_free(&li.area);
	}
	kfree(li.scratch);
out_unlock:
	mutex_unlock(&module_mutex);
	return r;
}
