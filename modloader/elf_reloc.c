/*
 * Phases 3 and 4 of loading: give every symbol its final address, then
 * patch the image.
 *
 * Symbols: defined ones are base + section offset + st_value, absolute
 * ones keep st_value, COMMON ones get the slot elf_mod_layout() gave them,
 * undefined ones come from the caller's callback.  An undefined weak
 * symbol the callback does not know is 0 (the module tests `if (&sym)`).
 * Every unknown name is collected before failing, so the user sees the
 * whole list at once.
 *
 * Relocations (i386 psABI, REL form: the addend A is the word already at
 * the place; S is the symbol's address, P the place's final address):
 *   R_386_NONE   nothing
 *   R_386_32     S + A
 *   R_386_PC32   S + A - P
 *   R_386_PLT32  L + A - P with L = S: modules have no PLT, so a call
 *                through "the PLT" goes straight to the function
 * elf_mod_check() has already refused every other type and every entry
 * whose place or symbol is out of range.
 */
#include "modloader/elf_internal.h"

static const char *const reloc_names[] = {
    [R_386_NONE] = "R_386_NONE",
    [R_386_32] = "R_386_32",
    [R_386_PC32] = "R_386_PC32",
    [R_386_GOT32] = "R_386_GOT32",
    [R_386_PLT32] = "R_386_PLT32",
    [R_386_COPY] = "R_386_COPY",
    [R_386_GLOB_DAT] = "R_386_GLOB_DAT",
    [R_386_JMP_SLOT] = "R_386_JMP_SLOT",
    [R_386_RELATIVE] = "R_386_RELATIVE",
    [R_386_GOTOFF] = "R_386_GOTOFF",
    [R_386_GOTPC] = "R_386_GOTPC",
    [R_386_TLS_TPOFF] = "R_386_TLS_TPOFF",
    [R_386_TLS_IE] = "R_386_TLS_IE",
    [R_386_TLS_GOTIE] = "R_386_TLS_GOTIE",
    [R_386_TLS_LE] = "R_386_TLS_LE",
    [R_386_TLS_GD] = "R_386_TLS_GD",
    [R_386_TLS_LDM] = "R_386_TLS_LDM",
    [R_386_16] = "R_386_16",
    [R_386_PC16] = "R_386_PC16",
    [R_386_8] = "R_386_8",
    [R_386_PC8] = "R_386_PC8",
    [R_386_TLS_GD_32] = "R_386_TLS_GD_32",
    [R_386_TLS_GD_PUSH] = "R_386_TLS_GD_PUSH",
    [R_386_TLS_GD_CALL] = "R_386_TLS_GD_CALL",
    [R_386_TLS_GD_POP] = "R_386_TLS_GD_POP",
    [R_386_TLS_LDM_32] = "R_386_TLS_LDM_32",
    [R_386_TLS_LDM_PUSH] = "R_386_TLS_LDM_PUSH",
    [R_386_TLS_LDM_CALL] = "R_386_TLS_LDM_CALL",
    [R_386_TLS_LDM_POP] = "R_386_TLS_LDM_POP",
    [R_386_TLS_LDO_32] = "R_386_TLS_LDO_32",
    [R_386_TLS_IE_32] = "R_386_TLS_IE_32",
    [R_386_TLS_LE_32] = "R_386_TLS_LE_32",
    [R_386_TLS_DTPMOD32] = "R_386_TLS_DTPMOD32",
    [R_386_TLS_DTPOFF32] = "R_386_TLS_DTPOFF32",
    [R_386_TLS_TPOFF32] = "R_386_TLS_TPOFF32",
    [R_386_SIZE32] = "R_386_SIZE32",
    [R_386_TLS_GOTDESC] = "R_386_TLS_GOTDESC",
    [R_386_TLS_DESC_CALL] = "R_386_TLS_DESC_CALL",
    [R_386_TLS_DESC] = "R_386_TLS_DESC",
    [R_386_IRELATIVE] = "R_386_IRELATIVE",
    [R_386_GOT32X] = "R_386_GOT32X",
};

const char *
elf_mod_reloc_name(unsigned int t)
{
	if (t >= sizeof(reloc_names) / sizeof(reloc_names[0]))
		return NULL;
	return reloc_names[t];
}

/* Room kept at the end of the message for " ... (N in all)". */
#define UNRESOLVED_TAIL 24

/* Appends name to "unresolved symbols: a, b" while it fits whole. */
static void
note_unresolved(struct elf_buf *b, unsigned int *shown, const char *name)
{
	size_t need = elf_strlen(name) + (*shown > 0 ? 2 : 0);

	if (b->truncated || elf_buf_room(b) < need + UNRESOLVED_TAIL) {
		b->truncated = true;
		return;
	}
	elf_buf_printf(b, "%s%s", *shown > 0 ? ", " : "", name);
	(*shown)++;
}

static int
resolve_undefined(struct elf_mod *m, elf_mod_resolve_fn fn, void *ctx)
{
	struct elf_buf b;
	unsigned int i, count = 0, shown = 0;
	const Elf32_Sym *sym;
	int ret;

	elf_buf_init(&b, m->err, m->errlen);
	elf_buf_printf(&b, "unresolved symbols: ");
	for (i = m->first_global; i < m->nsym; i++) {
		sym = &m->sym[i];
		if (sym->st_shndx != SHN_UNDEF)
			continue;
		ret = fn(ctx, elf_sym_name(m, i), &m->sym_addr[i]);
		if (ret == 0)
			continue;
		m->sym_addr[i] = 0;
		if (ret != -ENOENT)
			return elf_err(m, ret,
			               "symbol %u (%s): lookup failed (error "
			               "%d)",
			               i, elf_sym_name(m, i), ret);
		if (ELF32_ST_BIND(sym->st_info) == STB_WEAK)
			continue;
		count++;
		note_unresolved(&b, &shown, elf_sym_name(m, i));
	}
	if (count == 0) {
		elf_buf_init(&b, m->err, m->errlen);
		return 0;
	}
	if (b.truncated) {
		b.truncated = false;
		elf_buf_printf(&b, "%s... (%u in all)", shown > 0 ? " " : "",
		               count);
	}
	return -ENOENT;
}

int
elf_mod_resolve(struct elf_mod *m, uint32_t base, elf_mod_resolve_fn fn,
                void *ctx)
{
	const Elf32_Sym *sym;
	unsigned int i;
	int ret;

	if (m->stage != ELF_MOD_COPIED || fn == NULL)
		return elf_err(m, -EINVAL, "resolve: image not copied");
	if ((base & (ELF_MOD_PAGE_SIZE - 1)) != 0)
		return elf_err(m, -EINVAL,
		               "load address 0x%x is not page-aligned", base);
	if (base + m->image_size < base)
		return elf_err(m, -ERANGE,
		               "image of 0x%x bytes at 0x%x wraps around",
		               m->image_size, base);
	m->base = base;

	for (i = 1; i < m->nsym; i++) {
		sym = &m->sym[i];
		if (sym->st_shndx == SHN_UNDEF)
			continue;
		else if (sym->st_shndx == SHN_ABS)
			m->sym_addr[i] = sym->st_value;
		else if (sym->st_shndx == SHN_COMMON)
			m->sym_addr[i] += base; /* image offset from layout */
		else if (elf_sec_loaded(m, sym->st_shndx))
			m->sym_addr[i] =
			    base + m->sec_off[sym->st_shndx] + sym->st_value;
		else
			m->sym_addr[i] = 0; /* not loaded, never relocated */
	}
	ret = resolve_undefined(m, fn, ctx);
	if (ret != 0) {
		m->stage = ELF_MOD_EMPTY; /* sym_addr[] is half-done */
		return ret;
	}
	m->stage = ELF_MOD_RESOLVED;
	return 0;
}

static void
apply_rel_section(struct elf_mod *m, unsigned int i, unsigned char *image)
{
	const Elf32_Shdr *s = &m->sec[i];
	const Elf32_Rel *rel = (const Elf32_Rel *)(m->data + s->sh_offset);
	unsigned int j, n = s->sh_size / sizeof(Elf32_Rel);
	uint32_t off, where, S, A;

	for (j = 0; j < n; j++) {
		off = m->sec_off[s->sh_info] + rel[j].r_offset;
		where = m->base + off;
		S = m->sym_addr[ELF32_R_SYM(rel[j].r_info)];
		switch (ELF32_R_TYPE(rel[j].r_info)) {
		case R_386_32:
			A = elf_get32(image + off);
			elf_put32(image + off, S + A);
			break;
		case R_386_PC32:
		case R_386_PLT32:
			A = elf_get32(image + off);
			elf_put32(image + off, S + A - where);
			break;
		default: /* R_386_NONE; elf_mod_check() refused the rest */
			continue;
		}
		m->nrelocs++;
	}
}

int
elf_mod_relocate(struct elf_mod *m, void *image)
{
	unsigned int i;

	if (m->stage != ELF_MOD_RESOLVED || image == NULL)
		return elf_err(m, -EINVAL, "relocate: symbols not resolved");
	for (i = 1; i < m->nsec; i++)
		if (elf_rel_applied(m, i))
			apply_rel_section(m, i, image);
	m->stage = ELF_MOD_RELOCATED;
	return 0;
}
