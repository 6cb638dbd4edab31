/*
 * Phase 1 of loading: validate an untrusted buffer as an i386 ELF32
 * relocatable object.
 *
 * Each validator below says exactly what it checks.  They run in order,
 * and each relies only on what the ones before it proved, so after
 * elf_mod_check() returns 0 the later phases may use every offset, index
 * and size in the file without further bounds checks.  A failure leaves
 * one line in m->err naming the section, symbol or relocation at fault.
 */
#include "modloader/elf_internal.h"

/* Non-NOBITS contents must lie in the file: offset + size <= file size. */
static bool
in_file(const struct elf_mod *m, uint32_t off, uint32_t size)
{
	return off <= m->size && size <= m->size - off;
}

/*
 * The ELF header:
 *  - the buffer is non-NULL, 4-byte aligned and holds a whole Elf32_Ehdr;
 *  - magic, ELFCLASS32, ELFDATA2LSB, EI_VERSION == EV_CURRENT, OS ABI
 *    System V or GNU;
 *  - e_type ET_REL, e_machine EM_386, e_version EV_CURRENT;
 *  - e_ehsize and e_shentsize are the ELF32 sizes;
 *  - 0 < e_shnum < SHN_LORESERVE (no extended section numbering);
 *  - e_shoff is 4-byte aligned and the whole header table is in the file;
 *  - 0 < e_shstrndx < e_shnum.
 */
static int
check_ehdr(struct elf_mod *m)
{
	const Elf32_Ehdr *eh = (const Elf32_Ehdr *)m->data;
	const unsigned char *id;

	if (m->data == NULL)
		return elf_err(m, -EINVAL, "no file");
	if (((uintptr_t)m->data & 3) != 0)
		return elf_err(m, -EINVAL, "file buffer not 4-byte aligned");
	if (m->size < sizeof(Elf32_Ehdr))
		return elf_err(m, -ENOEXEC,
		               "file too small for an ELF header (%u bytes)",
		               (unsigned int)m->size);
	id = eh->e_ident;
	if (id[EI_MAG0] != ELFMAG0 || id[EI_MAG1] != ELFMAG1 ||
	    id[EI_MAG2] != ELFMAG2 || id[EI_MAG3] != ELFMAG3)
		return elf_err(m, -ENOEXEC, "not an ELF file (bad magic)");
	if (id[EI_CLASS] != ELFCLASS32)
		return elf_err(m, -ENOEXEC, "ELF class %u, expected 1 (ELF32)",
		               id[EI_CLASS]);
	if (id[EI_DATA] != ELFDATA2LSB)
		return elf_err(m, -ENOEXEC,
		               "ELF data encoding %u, expected 1 "
		               "(little-endian)",
		               id[EI_DATA]);
	if (id[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
		return elf_err(m, -ENOEXEC, "ELF version %u, expected 1",
		               id[EI_VERSION] != EV_CURRENT ? id[EI_VERSION]
		                                            : eh->e_version);
	if (id[EI_OSABI] != ELFOSABI_SYSV && id[EI_OSABI] != ELFOSABI_GNU)
		return elf_err(m, -ENOEXEC, "unsupported OS ABI %u",
		               id[EI_OSABI]);
	if (eh->e_type != ET_REL)
		return elf_err(m, -ENOEXEC,
		               "ELF type %u, expected 1 (ET_REL: a .o file)",
		               eh->e_type);
	if (eh->e_machine != EM_386)
		return elf_err(m, -ENOEXEC, "machine %u, expected 3 (i386)",
		               eh->e_machine);
	if (eh->e_ehsize != sizeof(Elf32_Ehdr))
		return elf_err(m, -ENOEXEC, "e_ehsize %u, expected %u",
		               eh->e_ehsize, (unsigned int)sizeof(Elf32_Ehdr));
	if (eh->e_shentsize != sizeof(Elf32_Shdr))
		return elf_err(m, -ENOEXEC, "e_shentsize %u, expected %u",
		               eh->e_shentsize,
		               (unsigned int)sizeof(Elf32_Shdr));
	if (eh->e_shnum == 0 || eh->e_shnum >= SHN_LORESERVE)
		return elf_err(m, -ENOEXEC, "unsupported section count %u",
		               eh->e_shnum);
	if ((eh->e_shoff & 3) != 0)
		return elf_err(m, -ENOEXEC,
		               "section headers at 0x%x not 4-byte aligned",
		               eh->e_shoff);
	/* e_shnum < 0xff00, so the product fits in 32 bits. */
	if (eh->e_shoff == 0 ||
	    !in_file(m, eh->e_shoff, eh->e_shnum * sizeof(Elf32_Shdr)))
		return elf_err(m, -ENOEXEC,
		               "section headers (offset 0x%x, %u entries) "
		               "outside the file (size 0x%x)",
		               eh->e_shoff, eh->e_shnum, (unsigned int)m->size);
	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
		return elf_err(m, -ENOEXEC,
		               "e_shstrndx %u out of range (%u "
		               "sections)",
		               eh->e_shstrndx, eh->e_shnum);

	m->ehdr = eh;
	m->sec = (const Elf32_Shdr *)(m->data + eh->e_shoff);
	m->nsec = eh->e_shnum;
	return 0;
}

/*
 * A string table, used for section names or symbol names:
 *  - it is SHT_STRTAB, non-empty and inside the file;
 *  - its last byte is NUL, so any index below its size starts a
 *    terminated string.
 */
static int
check_strtab(struct elf_mod *m, unsigned int idx, const char *what)
{
	const Elf32_Shdr *s = &m->sec[idx];

	if (s->sh_type != SHT_STRTAB)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): type %u, expected "
		               "SHT_STRTAB",
		               idx, what, s->sh_type);
	if (s->sh_size == 0 || !in_file(m, s->sh_offset, s->sh_size))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): offset 0x%x size 0x%x "
		               "outside the file (size 0x%x)",
		               idx, what, s->sh_offset, s->sh_size,
		               (unsigned int)m->size);
	if (m->data[s->sh_offset + s->sh_size - 1] != '\0')
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): not NUL-terminated", idx,
		               what);
	return 0;
}

static int
check_secstrings(struct elf_mod *m)
{
	unsigned int idx = m->ehdr->e_shstrndx;
	int ret;

	ret = check_strtab(m, idx, "section name table");
	if (ret != 0)
		return ret;
	m->secstrings = (const char *)m->data + m->sec[idx].sh_offset;
	m->secstrings_size = m->sec[idx].sh_size;
	return 0;
}

/* Types a loaded (SHF_ALLOC) section may have: data the image holds. */
static bool
alloc_type_ok(uint32_t type)
{
	return type == SHT_PROGBITS || type == SHT_NOBITS || type == SHT_NOTE ||
	       type == SHT_INIT_ARRAY || type == SHT_FINI_ARRAY ||
	       type == SHT_PREINIT_ARRAY;
}

/*
 * One section header:
 *  - section 0 is SHT_NULL;
 *  - sh_name indexes the section name table;
 *  - not SHT_RELA (i386 uses SHT_REL), SHT_SYMTAB_SHNDX or SHT_DYNSYM;
 *  - unless SHT_NOBITS, offset + size lies inside the file;
 *  - sh_addralign is 0 or a power of two, at most ELF_MOD_MAX_ALIGN;
 *  - SHF_ALLOC sections are PROGBITS, NOBITS, NOTE or *_ARRAY, are not
 *    SHF_TLS and not both writable and executable (W^X in the kernel),
 *    and are at most ELF_MOD_MAX_IMAGE bytes;
 *  - every SHT_STRTAB passes check_strtab().
 */
static int
check_section(struct elf_mod *m, unsigned int i)
{
	const Elf32_Shdr *s = &m->sec[i];
	const char *name;

	if (s->sh_name >= m->secstrings_size)
		return elf_err(m, -ENOEXEC,
		               "section %u: name offset 0x%x outside the "
		               "section name table (size 0x%x)",
		               i, s->sh_name, m->secstrings_size);
	name = elf_sec_name(m, i);
	if (i == 0) {
		if (s->sh_type != SHT_NULL)
			return elf_err(m, -ENOEXEC,
			               "section 0: type %u, expected SHT_NULL",
			               s->sh_type);
		return 0;
	}
	if (s->sh_type == SHT_RELA)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): SHT_RELA relocations are not "
		               "used on i386 (expected SHT_REL)",
		               i, name);
	if (s->sh_type == SHT_SYMTAB_SHNDX || s->sh_type == SHT_DYNSYM)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): unsupported section type %u",
		               i, name, s->sh_type);
	if (s->sh_type != SHT_NOBITS && !in_file(m, s->sh_offset, s->sh_size))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): offset 0x%x size 0x%x outside "
		               "the file (size 0x%x)",
		               i, name, s->sh_offset, s->sh_size,
		               (unsigned int)m->size);
	if (s->sh_addralign != 0 && (!elf_is_pow2(s->sh_addralign) ||
	                             s->sh_addralign > ELF_MOD_MAX_ALIGN))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): bad alignment 0x%x (must be "
		               "a power of two up to 0x%x)",
		               i, name, s->sh_addralign, ELF_MOD_MAX_ALIGN);
	if (s->sh_type == SHT_STRTAB) {
		int ret = check_strtab(m, i, name);

		if (ret != 0)
			return ret;
	}
	if ((s->sh_flags & SHF_ALLOC) == 0)
		return 0;
	if (!alloc_type_ok(s->sh_type))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): type %u cannot be loaded", i,
		               name, s->sh_type);
	if (s->sh_flags & SHF_TLS)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): thread-local storage is not "
		               "supported in modules",
		               i, name);
	if ((s->sh_flags & (SHF_WRITE | SHF_EXECINSTR)) ==
	    (SHF_WRITE | SHF_EXECINSTR))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): both writable and executable",
		               i, name);
	if (s->sh_size > ELF_MOD_MAX_IMAGE)
		return elf_err(m, -EFBIG,
		               "section %u (%s): size 0x%x exceeds the module "
		               "limit 0x%x",
		               i, name, s->sh_size, ELF_MOD_MAX_IMAGE);
	return 0;
}

/*
 * The symbol table:
 *  - exactly one SHT_SYMTAB section;
 *  - sh_entsize == sizeof(Elf32_Sym), sh_size a non-zero multiple of it,
 *    sh_offset 4-byte aligned (section bounds: check_section());
 *  - sh_link names a valid string table (check_strtab());
 *  - sh_info, the index of the first non-local symbol, is <= the count.
 */
static int
check_symtab(struct elf_mod *m)
{
	const Elf32_Shdr *s = NULL;
	unsigned int i, idx = 0;
	int ret;

	for (i = 1; i < m->nsec; i++) {
		if (m->sec[i].sh_type != SHT_SYMTAB)
			continue;
		if (s != NULL)
			return elf_err(m, -ENOEXEC,
			               "sections %u and %u: more than one "
			               "symbol table",
			               idx, i);
		s = &m->sec[i];
		idx = i;
	}
	if (s == NULL)
		return elf_err(m, -ENOEXEC, "no symbol table");
	if (s->sh_entsize != sizeof(Elf32_Sym))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): entry size %u, expected %u",
		               idx, elf_sec_name(m, idx), s->sh_entsize,
		               (unsigned int)sizeof(Elf32_Sym));
	if (s->sh_size == 0 || s->sh_size % sizeof(Elf32_Sym) != 0)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): size 0x%x is not a non-zero "
		               "multiple of %u",
		               idx, elf_sec_name(m, idx), s->sh_size,
		               (unsigned int)sizeof(Elf32_Sym));
	if ((s->sh_offset & 3) != 0)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): offset 0x%x not 4-byte "
		               "aligned",
		               idx, elf_sec_name(m, idx), s->sh_offset);
	if (s->sh_link == 0 || s->sh_link >= m->nsec)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): string table index %u out of "
		               "range",
		               idx, elf_sec_name(m, idx), s->sh_link);
	ret = check_strtab(m, s->sh_link, "symbol name table");
	if (ret != 0)
		return ret;

	m->symtab_idx = idx;
	m->sym = (const Elf32_Sym *)(m->data + s->sh_offset);
	m->nsym = s->sh_size / sizeof(Elf32_Sym);
	if (s->sh_info > m->nsym)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): first global symbol %u beyond "
		               "%u symbols",
		               idx, elf_sec_name(m, idx), s->sh_info, m->nsym);
	m->first_global = s->sh_info;
	m->strtab = (const char *)m->data + m->sec[s->sh_link].sh_offset;
	m->strtab_size = m->sec[s->sh_link].sh_size;
	return 0;
}

/*
 * One symbol (index i >= 1):
 *  - st_name indexes the symbol string table;
 *  - binding is LOCAL, GLOBAL or WEAK, and locals are exactly the
 *    symbols below the symtab's sh_info;
 *  - type is NOTYPE, OBJECT, FUNC, SECTION, FILE or COMMON (no TLS, no
 *    GNU_IFUNC);
 *  - st_shndx is SHN_UNDEF (not for a local), SHN_ABS, SHN_COMMON or a
 *    section index below e_shnum; no other reserved index;
 *  - a COMMON symbol is not local, its alignment (st_value) is a power
 *    of two up to ELF_MOD_MAX_ALIGN and its size at most
 *    ELF_MOD_MAX_IMAGE;
 *  - a symbol defined in a loaded section has st_value <= section size,
 *    and a FUNC or OBJECT also st_value + st_size <= section size.
 */
static int
check_symbol(struct elf_mod *m, unsigned int i)
{
	const Elf32_Sym *sym = &m->sym[i];
	unsigned int bind = ELF32_ST_BIND(sym->st_info);
	unsigned int type = ELF32_ST_TYPE(sym->st_info);
	const Elf32_Shdr *s;
	const char *name;

	if (sym->st_name >= m->strtab_size)
		return elf_err(m, -ENOEXEC,
		               "symbol %u: name offset 0x%x outside the string "
		               "table (size 0x%x)",
		               i, sym->st_name, m->strtab_size);
	name = elf_sym_name(m, i);
	if (bind != STB_LOCAL && bind != STB_GLOBAL && bind != STB_WEAK)
		return elf_err(m, -ENOEXEC,
		               "symbol %u (%s): unsupported binding %u", i,
		               name, bind);
	if ((bind == STB_LOCAL) != (i < m->first_global))
		return elf_err(m, -ENOEXEC,
		               "symbol %u (%s): %s symbol on the wrong side of "
		               "the first global (%u)",
		               i, name, bind == STB_LOCAL ? "local" : "global",
		               m->first_global);
	if (type == STT_TLS)
		return elf_err(m, -ENOEXEC,
		               "symbol %u (%s): thread-local storage is not "
		               "supported in modules",
		               i, name);
	if (type > STT_COMMON)
		return elf_err(m, -ENOEXEC,
		               "symbol %u (%s): unsupported symbol type %u", i,
		               name, type);

	switch (sym->st_shndx) {
	case SHN_UNDEF:
		if (bind == STB_LOCAL)
			return elf_err(m, -ENOEXEC,
			               "symbol %u (%s): undefined local symbol",
			               i, name);
		return 0;
	case SHN_ABS:
		return 0;
	case SHN_COMMON:
		if (bind == STB_LOCAL)
			return elf_err(m, -ENOEXEC,
			               "symbol %u (%s): local COMMON symbol", i,
			               name);
		if (!elf_is_pow2(sym->st_value) ||
		    sym->st_value > ELF_MOD_MAX_ALIGN)
			return elf_err(m, -ENOEXEC,
			               "symbol %u (%s): bad COMMON alignment "
			               "0x%x",
			               i, name, sym->st_value);
		if (sym->st_size > ELF_MOD_MAX_IMAGE)
			return elf_err(
			    m, -EFBIG,
			    "symbol %u (%s): COMMON size 0x%x exceeds "
			    "the module limit 0x%x",
			    i, name, sym->st_size, ELF_MOD_MAX_IMAGE);
		return 0;
	}
	if (sym->st_shndx >= m->nsec)
		return elf_err(m, -ENOEXEC,
		               "symbol %u (%s): section index %u out of range",
		               i, name, sym->st_shndx);
	if (!elf_sec_loaded(m, sym->st_shndx))
		return 0; /* debug info and such: never relocated against */
	s = &m->sec[sym->st_shndx];
	if (sym->st_value > s->sh_size ||
	    ((type == STT_FUNC || type == STT_OBJECT) &&
	     sym->st_size > s->sh_size - sym->st_value))
		return elf_err(m, -ERANGE,
		               "symbol %u (%s): value 0x%x size 0x%x outside "
		               "section %u (%s, size 0x%x)",
		               i, name, sym->st_value, sym->st_size,
		               sym->st_shndx, elf_sec_name(m, sym->st_shndx),
		               s->sh_size);
	return 0;
}

/*
 * One SHT_REL section header:
 *  - sh_entsize == sizeof(Elf32_Rel), sh_size a multiple of it, sh_offset
 *    4-byte aligned;
 *  - sh_link is the symbol table;
 *  - sh_info is a section index other than 0 and its own; if that target
 *    is loaded, it is not SHT_NOBITS (nothing there to patch).
 * Relocations for sections that are not loaded (.debug_*) are skipped
 * by the loader, so their entries are not checked.
 */
static int
check_rel_section(struct elf_mod *m, unsigned int i)
{
	const Elf32_Shdr *s = &m->sec[i];
	const char *name = elf_sec_name(m, i);

	if (s->sh_entsize != sizeof(Elf32_Rel) ||
	    s->sh_size % sizeof(Elf32_Rel) != 0)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): entry size %u size 0x%x, "
		               "expected a multiple of %u",
		               i, name, s->sh_entsize, s->sh_size,
		               (unsigned int)sizeof(Elf32_Rel));
	if ((s->sh_offset & 3) != 0)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): offset 0x%x not 4-byte "
		               "aligned",
		               i, name, s->sh_offset);
	if (s->sh_link != m->symtab_idx)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): symbol table link %u, "
		               "expected %u",
		               i, name, s->sh_link, m->symtab_idx);
	if (s->sh_info == 0 || s->sh_info >= m->nsec || s->sh_info == i)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): target section %u invalid", i,
		               name, s->sh_info);
	if (elf_sec_loaded(m, s->sh_info) &&
	    m->sec[s->sh_info].sh_type == SHT_NOBITS)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): target section %u (%s) is "
		               "SHT_NOBITS",
		               i, name, s->sh_info,
		               elf_sec_name(m, s->sh_info));
	return 0;
}

/* Why a relocation type is refused, for the error message. */
static const char *
reloc_refusal(unsigned int type)
{
	switch (type) {
	case R_386_GOT32:
	case R_386_GOT32X:
	case R_386_GOTOFF:
	case R_386_GOTPC:
		return "position-independent code needs a GOT: build "
		       "modules with -fno-pic";
	case R_386_COPY:
	case R_386_GLOB_DAT:
	case R_386_JMP_SLOT:
	case R_386_RELATIVE:
	case R_386_IRELATIVE:
		return "dynamic relocation, not valid in a .o file";
	case R_386_16:
	case R_386_PC16:
	case R_386_8:
	case R_386_PC8:
	case R_386_SIZE32:
		return "not emitted by the C compiler for modules";
	}
	if (type >= R_386_TLS_TPOFF && type <= R_386_TLS_DESC &&
	    elf_mod_reloc_name(type) != NULL)
		return "thread-local storage is not supported in modules";
	return "unknown relocation type";
}

/*
 * One relocation entry j of an applied SHT_REL section i:
 *  - the type is R_386_NONE, R_386_32, R_386_PC32 or R_386_PLT32; any
 *    other is named with the reason it is refused;
 *  - the symbol index is inside the symbol table;
 *  - except for R_386_NONE, the 4 patched bytes lie inside the target;
 *  - the symbol is undefined, absolute, COMMON or in a loaded section
 *    (a loaded section cannot point into debug info).
 */
static int
check_rel(struct elf_mod *m, unsigned int i, unsigned int j, const Elf32_Rel *r)
{
	const Elf32_Shdr *t = &m->sec[m->sec[i].sh_info];
	unsigned int type = ELF32_R_TYPE(r->r_info);
	unsigned int symi = ELF32_R_SYM(r->r_info);
	const char *name = elf_sec_name(m, i);
	unsigned int shndx;

	switch (type) {
	case R_386_NONE:
	case R_386_32:
	case R_386_PC32:
	case R_386_PLT32:
		break;
	default:
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): relocation %u has type %u "
		               "(%s): %s",
		               i, name, j, type,
		               elf_mod_reloc_name(type) != NULL
		                   ? elf_mod_reloc_name(type)
		                   : "?",
		               reloc_refusal(type));
	}
	if (symi >= m->nsym)
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): relocation %u symbol %u out "
		               "of range (%u symbols)",
		               i, name, j, symi, m->nsym);
	if (type != R_386_NONE &&
	    (r->r_offset > t->sh_size || t->sh_size - r->r_offset < 4))
		return elf_err(m, -ERANGE,
		               "section %u (%s): relocation %u offset 0x%x out "
		               "of range (section size 0x%x)",
		               i, name, j, r->r_offset, t->sh_size);
	shndx = m->sym[symi].st_shndx;
	if (shndx != SHN_UNDEF && shndx != SHN_ABS && shndx != SHN_COMMON &&
	    !elf_sec_loaded(m, shndx))
		return elf_err(m, -ENOEXEC,
		               "section %u (%s): relocation %u refers to "
		               "symbol %u (%s) in section %u (%s), which is "
		               "not loaded",
		               i, name, j, symi, elf_sym_name(m, symi), shndx,
		               elf_sec_name(m, shndx));
	return 0;
}

static int
check_relocations(struct elf_mod *m)
{
	const Elf32_Rel *rel;
	unsigned int i, j, n;
	int ret;

	for (i = 1; i < m->nsec; i++) {
		if (m->sec[i].sh_type != SHT_REL)
			continue;
		ret = check_rel_section(m, i);
		if (ret != 0)
			return ret;
		if (!elf_rel_applied(m, i))
			continue;
		rel = (const Elf32_Rel *)(m->data + m->sec[i].sh_offset);
		n = m->sec[i].sh_size / sizeof(Elf32_Rel);
		for (j = 0; j < n; j++) {
			ret = check_rel(m, i, j, &rel[j]);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

int
elf_mod_check(struct elf_mod *m, const void *data, size_t size, char *err,
              size_t errlen)
{
	unsigned int i;
	int ret;

	*m = (struct elf_mod){0};
	m->data = data;
	m->size = size;
	m->err = err;
	m->errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	/* Offsets are 32-bit: a larger buffer cannot be an ELF32 file. */
	if (size != (uint32_t)size)
		return elf_err(m, -EFBIG, "file too large");

	ret = check_ehdr(m);
	if (ret != 0)
		return ret;
	ret = check_secstrings(m);
	if (ret != 0)
		return ret;
	for (i = 0; i < m->nsec; i++) {
		ret = check_section(m, i);
		if (ret != 0)
			return ret;
	}
	ret = check_symtab(m);
	if (ret != 0)
		return ret;
	for (i = 1; i < m->nsym; i++) {
		ret = check_symbol(m, i);
		if (ret != 0)
			return ret;
	}
	ret = check_relocations(m);
	if (ret != 0)
		return ret;
	m->stage = ELF_MOD_CHECKED;
	return 0;
}
