/*
 * Phase 2 of loading: decide where every loaded section and every COMMON
 * symbol lives in the module image, then fill the image.
 *
 * The image is one block, page-aligned at its final address:
 *
 *   0          text_size         ro_size (page)              image_size
 *   | text ... | rodata ...  pad | data ... | bss ... | COMMON |
 *
 * Executable sections come first, then read-only data, so the kernel can
 * map [0, ro_size) read-only; everything writable follows the page
 * boundary, zero-filled parts (SHT_NOBITS, COMMON) last.  Within a group
 * sections keep their order in the file, each aligned to sh_addralign.
 * Sections without SHF_ALLOC (symbols, relocations, debug info) are not
 * placed.
 */
#include "modloader/elf_internal.h"

enum layout_group {
	GROUP_TEXT,
	GROUP_RODATA,
	GROUP_DATA,
	GROUP_BSS,
	NGROUPS,
};

static enum layout_group
group_of(const Elf32_Shdr *s)
{
	if (s->sh_flags & SHF_EXECINSTR)
		return GROUP_TEXT;
	if ((s->sh_flags & SHF_WRITE) == 0)
		return GROUP_RODATA;
	return s->sh_type == SHT_NOBITS ? GROUP_BSS : GROUP_DATA;
}

/*
 * Reserves size bytes aligned to align at *off.  Offsets stay below
 * ELF_MOD_MAX_IMAGE (64 MiB) and align, size are checked to be at most
 * that, so nothing here can wrap.
 */
static int
place(struct elf_mod *m, uint32_t *off, uint32_t align, uint32_t size,
      uint32_t *at)
{
	uint32_t start = elf_align_up(*off, align == 0 ? 1 : align);

	if (start > ELF_MOD_MAX_IMAGE || size > ELF_MOD_MAX_IMAGE - start)
		return elf_err(m, -EFBIG, "module image larger than 0x%x bytes",
		               ELF_MOD_MAX_IMAGE);
	*at = start;
	*off = start + size;
	return 0;
}

static int
place_group(struct elf_mod *m, enum layout_group g, uint32_t *off)
{
	const Elf32_Shdr *s;
	unsigned int i;
	int ret;

	for (i = 1; i < m->nsec; i++) {
		s = &m->sec[i];
		if (!elf_sec_loaded(m, i) || group_of(s) != g)
			continue;
		ret =
		    place(m, off, s->sh_addralign, s->sh_size, &m->sec_off[i]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* COMMON symbols, in symbol table order, each aligned to its st_value.
 * Until elf_mod_resolve() their sym_addr[] holds the image offset. */
static int
place_commons(struct elf_mod *m, uint32_t *off)
{
	const Elf32_Sym *sym;
	unsigned int i;
	int ret;

	m->common_off = *off;
	for (i = 1; i < m->nsym; i++) {
		sym = &m->sym[i];
		if (sym->st_shndx != SHN_COMMON)
			continue;
		ret =
		    place(m, off, sym->st_value, sym->st_size, &m->sym_addr[i]);
		if (ret != 0)
			return ret;
	}
	m->common_size = *off - m->common_off;
	return 0;
}

size_t
elf_mod_scratch_size(const struct elf_mod *m)
{
	return ((size_t)m->nsec + m->nsym) * sizeof(uint32_t);
}

int
elf_mod_layout(struct elf_mod *m, void *scratch, size_t scratch_size)
{
	uint32_t off = 0;
	unsigned int i;
	int ret;

	if (m->stage != ELF_MOD_CHECKED)
		return elf_err(m, -EINVAL, "layout: module not checked");
	if (scratch == NULL || ((uintptr_t)scratch & 3) != 0 ||
	    scratch_size < elf_mod_scratch_size(m))
		return elf_err(m, -ENOMEM,
		               "layout: scratch memory missing, misaligned or "
		               "smaller than %u bytes",
		               (unsigned int)elf_mod_scratch_size(m));
	m->scratch = scratch;
	m->sec_off = scratch;
	m->sym_addr = m->sec_off + m->nsec;
	for (i = 0; i < m->nsec; i++)
		m->sec_off[i] = ELF_MOD_NOT_LOADED;
	for (i = 0; i < m->nsym; i++)
		m->sym_addr[i] = 0;

	ret = place_group(m, GROUP_TEXT, &off);
	if (ret != 0)
		return ret;
	m->text_size = off;
	ret = place_group(m, GROUP_RODATA, &off);
	if (ret != 0)
		return ret;
	/* off <= 64 MiB, so rounding to a page cannot wrap. */
	off = elf_align_up(off, ELF_MOD_PAGE_SIZE);
	m->ro_size = off;
	ret = place_group(m, GROUP_DATA, &off);
	if (ret != 0)
		return ret;
	ret = place_group(m, GROUP_BSS, &off);
	if (ret != 0)
		return ret;
	ret = place_commons(m, &off);
	if (ret != 0)
		return ret;
	m->image_size = off;
	m->stage = ELF_MOD_LAID_OUT;
	return 0;
}

int
elf_mod_copy(struct elf_mod *m, void *image)
{
	unsigned char *dst = image;
	const unsigned char *src;
	const Elf32_Shdr *s;
	unsigned int i;
	uint32_t k;

	if (m->stage != ELF_MOD_LAID_OUT || image == NULL)
		return elf_err(m, -EINVAL, "copy: module not laid out");
	for (k = 0; k < m->image_size; k++)
		dst[k] = 0;
	for (i = 1; i < m->nsec; i++) {
		s = &m->sec[i];
		if (!elf_sec_loaded(m, i) || s->sh_type == SHT_NOBITS)
			continue;
		src = m->data + s->sh_offset;
		for (k = 0; k < s->sh_size; k++)
			dst[m->sec_off[i] + k] = src[k];
	}
	m->stage = ELF_MOD_COPIED;
	return 0;
}
