/*
 * What the module layer asks of a loaded object: its special sections
 * (.modinfo, __ksymtab, .this_module), its entry points by name, and its
 * symbols, so it can export some and keep its functions (with their
 * sizes) for symbolizing backtraces and use-after-unload reports.
 *
 * Names point into the file buffer: copy what must outlive it.
 */
#include "modloader/elf_internal.h"

int
elf_mod_find_section(const struct elf_mod *m, const char *name)
{
	unsigned int i;

	if (m->stage < ELF_MOD_CHECKED)
		return -EINVAL;
	for (i = 1; i < m->nsec; i++)
		if (elf_strcmp(elf_sec_name(m, i), name) == 0)
			return (int)i;
	return -ENOENT;
}

const void *
elf_mod_section_data(const struct elf_mod *m, unsigned int idx, uint32_t *size)
{
	const Elf32_Shdr *s;

	if (m->stage < ELF_MOD_CHECKED || idx == 0 || idx >= m->nsec ||
	    m->sec[idx].sh_type == SHT_NOBITS)
		return NULL;
	s = &m->sec[idx];
	if (size != NULL)
		*size = s->sh_size;
	return m->data + s->sh_offset;
}

int
elf_mod_section_addr(const struct elf_mod *m, const char *name, uint32_t *addr,
                     uint32_t *size)
{
	int idx;

	if (m->stage < ELF_MOD_RESOLVED)
		return -EINVAL;
	idx = elf_mod_find_section(m, name);
	if (idx < 0 || !elf_sec_loaded(m, (unsigned int)idx))
		return -ENOENT;
	*addr = m->base + m->sec_off[idx];
	if (size != NULL)
		*size = m->sec[idx].sh_size;
	return 0;
}

static void
fill_sym(const struct elf_mod *m, unsigned int i, struct elf_mod_sym *out)
{
	const Elf32_Sym *sym = &m->sym[i];

	out->name = elf_sym_name(m, i);
	out->addr = m->sym_addr[i];
	out->size = sym->st_size;
	out->bind = ELF32_ST_BIND(sym->st_info);
	out->type = ELF32_ST_TYPE(sym->st_info);
	out->index = i;
}

/* Defined by this module and given an address in the image (or ABS). */
static bool
sym_defined(const struct elf_mod *m, unsigned int i)
{
	unsigned int shndx = m->sym[i].st_shndx;

	return shndx == SHN_ABS || shndx == SHN_COMMON ||
	       (shndx != SHN_UNDEF && elf_sec_loaded(m, shndx));
}

static bool
sym_is_global(const struct elf_mod *m, unsigned int i)
{
	unsigned int type = ELF32_ST_TYPE(m->sym[i].st_info);

	return i >= m->first_global && sym_defined(m, i) &&
	       type != STT_SECTION && type != STT_FILE;
}

static bool
sym_is_func(const struct elf_mod *m, unsigned int i)
{
	return ELF32_ST_TYPE(m->sym[i].st_info) == STT_FUNC &&
	       sym_defined(m, i);
}

int
elf_mod_find_symbol(const struct elf_mod *m, const char *name,
                    struct elf_mod_sym *out)
{
	unsigned int i;

	if (m->stage < ELF_MOD_RESOLVED)
		return -EINVAL;
	for (i = m->first_global; i < m->nsym; i++) {
		if (sym_is_global(m, i) &&
		    elf_strcmp(elf_sym_name(m, i), name) == 0) {
			fill_sym(m, i, out);
			return 0;
		}
	}
	return -ENOENT;
}

static int
for_each(const struct elf_mod *m,
         bool (*pick)(const struct elf_mod *, unsigned int), elf_mod_sym_fn fn,
         void *ctx)
{
	struct elf_mod_sym s;
	unsigned int i;
	int ret;

	if (m->stage < ELF_MOD_RESOLVED)
		return -EINVAL;
	for (i = 1; i < m->nsym; i++) {
		if (!pick(m, i))
			continue;
		fill_sym(m, i, &s);
		ret = fn(ctx, &s);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int
elf_mod_for_each_global(const struct elf_mod *m, elf_mod_sym_fn fn, void *ctx)
{
	return for_each(m, sym_is_global, fn, ctx);
}

int
elf_mod_for_each_func(const struct elf_mod *m, elf_mod_sym_fn fn, void *ctx)
{
	return for_each(m, sym_is_func, fn, ctx);
}
