/*
 * Console commands of the module layer: insmod, rmmod, lsmod, modinfo,
 * refs, and modcycle (a load/unload loop for leak tests).  Errors follow
 * the console contract with the module's name: "insmod: NAME: ENAME:
 * reason".
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/debug/stackdepot.h>
#include <kernel/sched/clock.h>
#include <kernel/bootmod.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/sched/sched.h>
#include <kernel/lib/string.h>
#include <kernel/sched/waitq.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/hangdump.h>
#include "modloader/elf_mod.h"
#include "modloader/load.h"
#include "modloader/module_internal.h"

#define ERR_MAX 200

static int
mod_error(const char *cmd, const char *name, int err, const char *msg)
{
	kprintf("%s: %s: %s: %s\n", cmd, name, errno_name(err), msg);
	return err;
}

/* ---- insmod ------------------------------------------------------------- */

static int
list_boot_modules(void)
{
	mutex_lock(&module_mutex);
	kprintf("%-24s %8s  %s\n", "Boot module", "Bytes", "Loaded as");
	for (int i = 0; i < boot_module_count(); i++) {
		const struct boot_module *bm = boot_module_at(i);
		const char *as = module_loaded_from(bm);
		kprintf("%-24s %8u  %s\n", bm->name,
		        (unsigned)(bm->end - bm->start), as != NULL ? as : "-");
	}
	if (boot_module_count() == 0)
		kprintf("(none: pass a cpio archive of modules with -initrd "
		        "or a GRUB module line)\n");
	mutex_unlock(&module_mutex);
	return 0;
}

static int
cmd_insmod(int argc, char **argv)
{
	char err[ERR_MAX], name[MODULE_NAME_LEN];
	struct module *mod;
	int r;

	struct args a;

	if (args_parse(&a, "insmod", argc, argv, "l", 0, ARGS_ANY) < 0)
		return -EINVAL;
	if (args_has(&a, 'l'))
		return a.npos == 0 ? list_boot_modules()
		                   : args_refuse(&a, "-l takes no NAME");
	if (a.npos == 0)
		return args_refuse(&a, "missing argument");
	argc = a.argc;
	argv = a.argv;
	r = module_load_by_name(argv[1], argc - 2, argv + 2, name, err,
	                        sizeof(err));
	if (r < 0)
		return mod_error("insmod", argv[1], r, err);
	mutex_lock(&module_mutex);
	mod = module_find(name);
	if (mod != NULL)
		kprintf("insmod: %s: loaded at %08x (%u bytes), %s\n",
		        mod->name, (unsigned)mod->base, (unsigned)mod->size,
		        module_state_name(mod->state));
	mutex_unlock(&module_mutex);
	return 0;
}
COMMAND(insmod, "insmod NAME [k=v..] | insmod -l",
        "load boot module NAME(.ko), or the one with alias NAME, with "
        "parameters; -l lists boot modules",
        cmd_insmod);

/* ---- rmmod -------------------------------------------------------------- */

static int
cmd_rmmod(int argc, char **argv)
{
	struct args a;
	int flags = 0;

	if (args_parse(&a, "rmmod", argc, argv, "nf", 1, 1) < 0)
		return -EINVAL;
	if (args_has(&a, 'n'))
		flags |= RMMOD_NOWAIT;
	if (args_has(&a, 'f'))
		flags |= RMMOD_FORCE;
	if (flags == (RMMOD_NOWAIT | RMMOD_FORCE))
		return args_refuse(&a, "-n and -f exclude each other");
	return module_unload(a.pos[0], flags);
}
COMMAND(rmmod, "rmmod [-n|-f] NAME",
        "unload; waits (progress each second, Ctrl-C aborts); -n never waits, "
        "-f forces",
        cmd_rmmod);

/* ---- lsmod -------------------------------------------------------------- */

static int
cmd_lsmod(int argc, char **argv)
{
	struct module *mod;
	char users[128];

	struct args a;

	if (args_parse(&a, "lsmod", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	modules_lazy_init();
	mutex_lock(&module_mutex);
	kprintf("%-20s %8s %5s  %-6s  %s\n", "Module", "Size", "Refs", "State",
	        "Used by");
	list_for_each_entry(mod, &modules, list) {
		module_used_by(mod, users, sizeof(users));
		kprintf("%-20s %8u %5d  %-6s  %s\n", mod->name,
		        (unsigned)mod->size, module_refcount(mod),
		        module_state_name(mod->state), users);
	}
	mutex_unlock(&module_mutex);
	return 0;
}
COMMAND(lsmod, "lsmod", "loaded modules: size, refcount, state, used by",
        cmd_lsmod);

/* ---- modinfo ------------------------------------------------------------ */

/* The strings were checked (elf_modinfo_check) when read from the file. */
static void
print_modinfo_strings(const char *p, uint32_t size)
{
	struct elf_modinfo mi = {p, size};
	struct elf_modinfo_entry e;
	uint32_t pos = 0;

	while (elf_modinfo_next(&mi, &pos, &e) == 1)
		kprintf("%.*s:%*s%s\n", (int)e.keylen, e.key,
		        e.keylen < 12 ? 12 - (int)e.keylen : 1, "", e.value);
}

/* A boot module that is not loaded: what its file says. */
static int
modinfo_file(const char *name)
{
	const struct boot_module *bm = boot_module_find(name);
	char ko[80], err[ERR_MAX], modname[MODULE_NAME_LEN];
	struct elf_mod em;
	const char *info;
	uint32_t size;
	int r;

	if (bm == NULL) {
		snprintf(ko, sizeof(ko), "%s.ko", name);
		bm = boot_module_find(ko);
	}
	if (bm == NULL)
		return mod_error("modinfo", name, -ENOENT,
		                 "not loaded and no such boot module");
	r = elf_mod_check(&em, P2V(bm->start), bm->end - bm->start, err,
	                  sizeof(err));
	if (r == 0)
		r = module_read_modinfo(&em, &info, &size, modname, err,
		                        sizeof(err));
	if (r != 0)
		return mod_error("modinfo", name, r, err);
	kprintf("file:        %s (%u bytes, not loaded)\n", bm->name,
	        (unsigned)(bm->end - bm->start));
	print_modinfo_strings(info, size);
	return 0;
}

static void
modinfo_loaded(struct module *mod)
{
	struct module_use *u;

	kprintf("file:        %s\n", mod->file);
	print_modinfo_strings(mod->modinfo, mod->modinfo_size);
	kprintf("state:       %s, refcount %d (%s)\n",
	        module_state_name(mod->state), module_refcount(mod),
	        mod->refops->name);
	kprintf("image:       %08x-%08x (%u bytes; text %u, read-only %u)\n",
	        (unsigned)mod->base, (unsigned)(mod->base + mod->size),
	        (unsigned)mod->size, (unsigned)mod->text_size,
	        (unsigned)mod->ro_size);
	kprintf("struct module at %08x\n", (unsigned)mod->area);
	kprintf("sections:\n");
	for (unsigned i = 0; i < mod->nsections; i++)
		kprintf("  %-24s %08x %6u\n", mod->sections[i].name,
		        (unsigned)mod->sections[i].addr,
		        (unsigned)mod->sections[i].size);
	kprintf("params:%s\n", mod->nparams == 0 ? "      (none)" : "");
	for (unsigned i = 0; i < mod->nparams; i++) {
		const struct module_param *p = &mod->params[i];
		char v[80];
		module_param_format(p, v, sizeof(v));
		kprintf("  %s = %s (%s)%s%s\n", p->name, v,
		        module_param_type_name(p->type),
		        p->desc != NULL ? " " : "",
		        p->desc != NULL ? p->desc : "");
	}
	kprintf("exports:%s\n", mod->nsyms == 0 ? "     (none)" : "");
	for (unsigned i = 0; i < mod->nsyms; i++)
		kprintf("  %-24s %08x\n", mod->syms[i].name,
		        (unsigned)(uintptr_t)mod->syms[i].value);
	kprintf("depends:    ");
	list_for_each_entry(u, &mod->uses, uses_link)
		kprintf(" %s", u->target->name);
	kprintf("\nused by:    ");
	list_for_each_entry(u, &mod->used_by, used_by_link)
		kprintf(" %s", u->user->name);
	kprintf("\n");
}

static int
cmd_modinfo(int argc, char **argv)
{
	struct module *mod;
	struct args a;

	if (args_parse(&a, "modinfo", argc, argv, "", 1, 1) < 0)
		return -EINVAL;
	argv = a.argv;
	modules_lazy_init();
	mutex_lock(&module_mutex);
	mod = module_find(argv[1]);
	if (mod != NULL)
		modinfo_loaded(mod);
	mutex_unlock(&module_mutex);
	return mod != NULL ? 0 : modinfo_file(argv[1]);
}
COMMAND(modinfo, "modinfo NAME",
        "a module's info, sections and load addresses, params, exports, deps",
        cmd_modinfo);

/* ---- refs --------------------------------------------------------------- */

/* "netsim: refcount 1 (percpu), state GOING": refs' first line without
 * its "used by", and the hang dump's module line. */
static int
module_summary(struct module *mod, char *buf, size_t size)
{
	return snprintf(buf, size, "%s: refcount %d (%s), state %s", mod->name,
	                module_refcount(mod), mod->refops->name,
	                module_state_name(mod->state));
}

static void
refs_one(struct module *mod) REQUIRES(module_mutex)
{
	char users[128], line[MODULE_NAME_LEN + 64];

	module_used_by(mod, users, sizeof(users));
	module_summary(mod, line, sizeof(line));
	kprintf("%s, used by: %s\n", line, users[0] ? users : "-");
	if (mod->refops == &module_refops_percpu) {
		kprintf("  per-cpu:");
		for (int i = 0; i < MAX_CPUS; i++)
			if (cpus[i].state == CPU_ONLINE)
				kprintf(" cpu%d=%d", i, mod->ref.cpu[i].n);
		kprintf("\n");
	}
	kprintf("  module_put underflows: %d, __module_get without a "
	        "reference: %d\n",
	        mod->underflows, mod->bad_gets);
	if (mod->holders.level == 0)
		kprintf("  (holder tracking off: module_track=0)\n");
	else if (!list_empty(&mod->holders.list))
		ref_tracker_print(&mod->holders, "  ");
}

static int
cmd_refs(int argc, char **argv)
{
	struct module *mod;
	struct args a;
	int r = 0;

	if (args_parse(&a, "refs", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	/* A network device of that name (a refs hook) comes first. */
	if (argc == 2 && refs_show_hooks(argv[1]) == 0)
		return 0;
	modules_lazy_init();
	mutex_lock(&module_mutex);
	if (argc == 1) {
		list_for_each_entry(mod, &modules, list)
			refs_one(mod);
	} else if ((mod = module_find(argv[1])) != NULL) {
		refs_one(mod);
	} else {
		r = mod_error("refs", argv[1], -ENOENT,
		              "no such module or device");
	}
	mutex_unlock(&module_mutex);
	if (argc == 1) {
		struct stack_depot_stats st;

		refs_show_hooks(NULL);
		stack_depot_stats(&st);
		kprintf("stack depot: %u of %u stacks, %u not saved (full)\n",
		        st.stacks, st.capacity, st.misses);
		kprintf("tracked releases refused: %u double, %u through a "
		        "tracker holding nothing\n",
		        ref_tracker_double_releases, ref_tracker_bad_releases);
	}
	return r;
}
COMMAND(refs, "refs [MODULE|DEV]",
        "reference counts and holders of a module (or of all)", cmd_refs);

/*
 * The hang dump's module list: lockless, as module_by_addr walks it (a
 * module is freed a grace period after it left the list, and the dump
 * is a read-side section).  Without "used by": that list changes under
 * module_mutex only, which the dump must not wait for.
 */
static void
modules_hangdump(void)
{
	char line[MODULE_NAME_LEN + 64];
	struct module *mod;
	int n = 0;

	list_for_each_entry_rcu(mod, &modules, list)
	{
		module_summary(mod, line, sizeof(line));
		hangdump_printf("module %s", line);
		n++;
	}
	hangdump_printf("modules: %d loaded", n);
}
HANGDUMP_PART(modules, modules_hangdump);

/* ---- modcycle ------------------------------------------------------------ */

/* "modcycle: hello: 1000 cycles in 4.123 s, 242.5/s, 4.123 ms each" */
static void
modcycle_summary(const char *name, unsigned long done, uint64_t t0)
{
	uint64_t us = now_us() - t0;
	uint64_t per10 = us != 0 ? (uint64_t)done * 10000000 / us : 0;

	if (done == 0)
		return;
	kprintf(
	    "modcycle: %s: %lu cycles in %llu.%03u s, %llu.%u/s, " USEC_MS_FMT
	    " ms each\n",
	    name, done, us / 1000000, (unsigned)(us / 1000 % 1000), per10 / 10,
	    (unsigned)(per10 % 10), USEC_MS(us / done));
}

static int
cmd_modcycle(int argc, char **argv)
{
	unsigned long n;
	char err[ERR_MAX], name[MODULE_NAME_LEN];
	uint64_t t0 = now_us();
	struct args a;
	int r;

	if (args_parse(&a, "modcycle", argc, argv, "", 2, ARGS_ANY) < 0 ||
	    args_num(&a, "N", a.pos[1], 1, 1000000, &n) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	for (unsigned long i = 0; i < n; i++) {
		r = module_load(argv[1], argc - 3, argv + 3, name, err,
		                sizeof(err));
		if (r < 0) {
			modcycle_summary(argv[1], i, t0);
			return mod_error("modcycle", argv[1], r, err);
		}
		r = module_unload(name, RMMOD_QUIET);
		if (r < 0) {
			modcycle_summary(argv[1], i, t0);
			return r;
		}
		if ((i + 1) % 250 == 0 || i + 1 == n)
			kprintf("modcycle: %s: %lu/%lu cycles\n", argv[1],
			        i + 1, n);
		if (signal_pending()) {
			modcycle_summary(argv[1], i + 1, t0);
			return mod_error("modcycle", argv[1], -EINTR,
			                 "interrupted");
		}
	}
	modcycle_summary(argv[1], n, t0);
	return 0;
}
COMMAND(modcycle, "modcycle NAME N [k=v..]",
        "insmod and rmmod NAME N times (leak tests; Ctrl-C stops)",
        cmd_modcycle);
