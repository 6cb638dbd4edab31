/*
 * elf_mod_check(): each validator refuses a crafted bad input with the
 * code and the one-line message a user would see.  Inputs are the test
 * modules, mutated in one field.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/testutil.h"

/* Message buffer for expectations that name section indices. */
static char want[256];

static void
accepts_test_modules(struct kt *t)
{
	static const char *const ok[] = {"basic",      "relocs", "align",
	                                 "unresolved", "debug",  "refmod"};
	char err[256];
	struct elf_mod m;
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct blob b = mod_read(t, ok[i]);
		int ret = elf_mod_check(&m, b.data, b.size, err, sizeof(err));

		if (ret != 0)
			kt_fail(t, __FILE__, __LINE__, "%s.o refused: %s",
			        ok[i], err);
		KT_EXPECT_EQ(t, m.stage, ELF_MOD_CHECKED);
		blob_free(&b);
	}
}

static void
ident(struct kt *t)
{
	struct blob b = mod_read(t, "basic"), c;

	c = blob_dup(b);
	c.data[EI_MAG1] = 'X';
	EXPECT_REJECT(t, c, -ENOEXEC, "not an ELF file (bad magic)");
	memcpy(c.data, b.data, b.size);
	c.data[EI_CLASS] = 2;
	EXPECT_REJECT(t, c, -ENOEXEC, "ELF class 2, expected 1 (ELF32)");
	memcpy(c.data, b.data, b.size);
	c.data[EI_DATA] = 2;
	EXPECT_REJECT(t, c, -ENOEXEC,
	              "ELF data encoding 2, expected 1 (little-endian)");
	memcpy(c.data, b.data, b.size);
	c.data[EI_VERSION] = 0;
	EXPECT_REJECT(t, c, -ENOEXEC, "ELF version 0, expected 1");
	memcpy(c.data, b.data, b.size);
	c.data[EI_OSABI] = 9;
	EXPECT_REJECT(t, c, -ENOEXEC, "unsupported OS ABI 9");
	memcpy(c.data, b.data, b.size);
	blob_ehdr(c)->e_version = 2;
	EXPECT_REJECT(t, c, -ENOEXEC, "ELF version 2, expected 1");
	blob_free(&c);
	blob_free(&b);
}

static void
type_and_machine(struct kt *t)
{
	struct blob b = mod_read(t, "basic");

	blob_ehdr(b)->e_type = 2;
	EXPECT_REJECT(t, b, -ENOEXEC,
	              "ELF type 2, expected 1 (ET_REL: a .o file)");
	blob_ehdr(b)->e_type = ET_REL;
	blob_ehdr(b)->e_machine = 62;
	EXPECT_REJECT(t, b, -ENOEXEC, "machine 62, expected 3 (i386)");
	blob_ehdr(b)->e_machine = EM_386;
	blob_ehdr(b)->e_ehsize = 64;
	EXPECT_REJECT(t, b, -ENOEXEC, "e_ehsize 64, expected 52");
	blob_free(&b);
}

static void
too_small(struct kt *t)
{
	struct blob b = mod_read(t, "basic");

	b.size = 51;
	EXPECT_REJECT(t, b, -ENOEXEC,
	              "file too small for an ELF header (51 bytes)");
	b.size = 0;
	EXPECT_REJECT(t, b, -ENOEXEC,
	              "file too small for an ELF header (0 bytes)");
	blob_free(&b);
}

static void
misaligned_buffer(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned char *p = malloc(b.size + 1);
	struct blob c = {p + 1, b.size};

	memcpy(p + 1, b.data, b.size);
	EXPECT_REJECT(t, c, -EINVAL, "file buffer not 4-byte aligned");
	free(p);
	blob_free(&b);
}

static void
section_header_table(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	Elf32_Ehdr *eh = blob_ehdr(b);
	Elf32_Ehdr orig = *eh;

	eh->e_shentsize = 64;
	EXPECT_REJECT(t, b, -ENOEXEC, "e_shentsize 64, expected 40");
	*eh = orig;
	eh->e_shnum = 0;
	EXPECT_REJECT(t, b, -ENOEXEC, "unsupported section count 0");
	*eh = orig;
	eh->e_shnum = 0xff00;
	EXPECT_REJECT(t, b, -ENOEXEC, "unsupported section count 65280");
	*eh = orig;
	eh->e_shoff += 2;
	snprintf(want, sizeof(want),
	         "section headers at 0x%x not 4-byte aligned", eh->e_shoff);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*eh = orig;
	eh->e_shnum++; /* the table now runs past the end of the file */
	snprintf(want, sizeof(want),
	         "section headers (offset 0x%x, %u entries) outside the file "
	         "(size 0x%x)",
	         eh->e_shoff, eh->e_shnum, (unsigned int)b.size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*eh = orig;
	eh->e_shoff = 0xfffffff0; /* offset + size would wrap */
	snprintf(want, sizeof(want),
	         "section headers (offset 0xfffffff0, %u entries) outside "
	         "the file (size 0x%x)",
	         eh->e_shnum, (unsigned int)b.size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*eh = orig;
	eh->e_shstrndx = eh->e_shnum;
	snprintf(want, sizeof(want), "e_shstrndx %u out of range (%u sections)",
	         eh->e_shnum, eh->e_shnum);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	eh->e_shstrndx = SHN_UNDEF;
	snprintf(want, sizeof(want), "e_shstrndx 0 out of range (%u sections)",
	         eh->e_shnum);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

static void
string_tables(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int shstr = blob_ehdr(b)->e_shstrndx;
	unsigned int str = blob_sec(t, b, ".strtab");
	Elf32_Shdr *s = blob_shdr(b, shstr);

	b.data[s->sh_offset + s->sh_size - 1] = 'x';
	snprintf(want, sizeof(want),
	         "section %u (section name table): not NUL-terminated", shstr);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	b.data[s->sh_offset + s->sh_size - 1] = '\0';

	s->sh_type = SHT_PROGBITS;
	snprintf(want, sizeof(want),
	         "section %u (section name table): type 1, expected "
	         "SHT_STRTAB",
	         shstr);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_type = SHT_STRTAB;

	s = blob_shdr(b, str);
	b.data[s->sh_offset + s->sh_size - 1] = 'x';
	snprintf(want, sizeof(want), "section %u (.strtab): not NUL-terminated",
	         str);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	b.data[s->sh_offset + s->sh_size - 1] = '\0';

	s = blob_shdr(b, 1);
	s->sh_name = blob_shdr(b, shstr)->sh_size;
	snprintf(want, sizeof(want),
	         "section 1: name offset 0x%x outside the section name table "
	         "(size 0x%x)",
	         s->sh_name, s->sh_name);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

static void
section_bounds(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int text = blob_sec(t, b, ".text");
	unsigned int bss = blob_sec(t, b, ".bss");
	Elf32_Shdr *s = blob_shdr(b, text);
	Elf32_Shdr orig = *s;

	s->sh_offset = (uint32_t)b.size - s->sh_size + 1;
	snprintf(want, sizeof(want),
	         "section %u (.text): offset 0x%x size 0x%x outside the file "
	         "(size 0x%x)",
	         text, s->sh_offset, s->sh_size, (unsigned int)b.size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_offset = 0x10;
	s->sh_size = 0xfffffff8; /* offset + size wraps to 8 */
	snprintf(want, sizeof(want),
	         "section %u (.text): offset 0x10 size 0xfffffff8 outside the "
	         "file (size 0x%x)",
	         text, (unsigned int)b.size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;

	/* SHT_NOBITS occupies no file space: any offset, size up to the
	 * image limit, and beyond it a clear refusal. */
	blob_shdr(b, bss)->sh_offset = 0xfffffff0;
	blob_shdr(b, bss)->sh_size = 0x100000;
	KT_EXPECT_EQ(
	    t, elf_mod_check(&(struct elf_mod){0}, b.data, b.size, NULL, 0), 0);
	blob_shdr(b, bss)->sh_size = ELF_MOD_MAX_IMAGE + 1;
	snprintf(want, sizeof(want),
	         "section %u (.bss): size 0x%x exceeds the module limit 0x%x",
	         bss, ELF_MOD_MAX_IMAGE + 1, ELF_MOD_MAX_IMAGE);
	EXPECT_REJECT(t, b, -EFBIG, want);
	blob_free(&b);
}

static void
alignment(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int data = blob_sec(t, b, ".data");
	Elf32_Shdr *s = blob_shdr(b, data);

	s->sh_addralign = 12;
	snprintf(want, sizeof(want),
	         "section %u (.data): bad alignment 0xc (must be a power of "
	         "two up to 0x1000)",
	         data);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_addralign = 0x2000;
	snprintf(want, sizeof(want),
	         "section %u (.data): bad alignment 0x2000 (must be a power "
	         "of two up to 0x1000)",
	         data);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_addralign = 0; /* means no constraint */
	KT_EXPECT_EQ(
	    t, elf_mod_check(&(struct elf_mod){0}, b.data, b.size, NULL, 0), 0);
	blob_free(&b);
}

static void
loaded_section_kinds(struct kt *t)
{
	struct blob b = mod_read(t, "basic"), tls = mod_read(t, "tls");
	unsigned int data = blob_sec(t, b, ".data");
	unsigned int tdata = blob_sec(t, tls, ".tdata");
	Elf32_Shdr *s = blob_shdr(b, data);

	s->sh_flags |= SHF_EXECINSTR;
	snprintf(want, sizeof(want),
	         "section %u (.data): both writable and executable", data);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_flags &= ~SHF_EXECINSTR;
	s->sh_type = SHT_DYNAMIC;
	snprintf(want, sizeof(want),
	         "section %u (.data): type 6 cannot be "
	         "loaded",
	         data);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_type = SHT_RELA;
	snprintf(want, sizeof(want),
	         "section %u (.data): SHT_RELA relocations are not used on "
	         "i386 (expected SHT_REL)",
	         data);
	EXPECT_REJECT(t, b, -ENOEXEC, want);

	snprintf(want, sizeof(want),
	         "section %u (.tdata): thread-local storage is not supported "
	         "in modules",
	         tdata);
	EXPECT_REJECT(t, tls, -ENOEXEC, want);
	blob_free(&tls);
	blob_free(&b);
}

static void
symbol_table(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int symtab = blob_sec(t, b, ".symtab");
	unsigned int comment = blob_sec(t, b, ".comment");
	Elf32_Shdr *s = blob_shdr(b, symtab), orig = *s;
	unsigned int nsym = s->sh_size / sizeof(Elf32_Sym);

	s->sh_type = SHT_PROGBITS;
	EXPECT_REJECT(t, b, -ENOEXEC, "no symbol table");
	*s = orig;
	blob_shdr(b, comment)->sh_type = SHT_SYMTAB;
	snprintf(want, sizeof(want),
	         "sections %u and %u: more than one symbol table", comment,
	         symtab);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_shdr(b, comment)->sh_type = SHT_PROGBITS;
	s->sh_entsize = 24;
	snprintf(want, sizeof(want),
	         "section %u (.symtab): entry size 24, expected 16", symtab);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_size -= 4;
	snprintf(want, sizeof(want),
	         "section %u (.symtab): size 0x%x is not a non-zero multiple "
	         "of 16",
	         symtab, s->sh_size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_link = comment;
	snprintf(want, sizeof(want),
	         "section %u (symbol name table): type 1, expected SHT_STRTAB",
	         comment);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_link = 1000;
	snprintf(want, sizeof(want),
	         "section %u (.symtab): string table index 1000 out of range",
	         symtab);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_info = nsym + 1;
	snprintf(want, sizeof(want),
	         "section %u (.symtab): first global symbol %u beyond %u "
	         "symbols",
	         symtab, nsym + 1, nsym);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

static void
symbols(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int init = blob_sym(t, b, "basic_init");
	unsigned int common = blob_sym(t, b, "basic_common");
	unsigned int counter = blob_sym(t, b, "counter");
	unsigned int text = blob_sec(t, b, ".text");
	Elf32_Sym *sym = blob_symp(b, init), orig = *sym;
	uint32_t text_size = blob_shdr(b, text)->sh_size;

	sym->st_shndx = 200;
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): section index 200 out of range",
	         init);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_shndx = 0xfff5; /* reserved, not ABS or COMMON */
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): section index 65525 out of range",
	         init);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*sym = orig;
	sym->st_name = 0x7fffffff;
	snprintf(want, sizeof(want),
	         "symbol %u: name offset 0x7fffffff outside the string table "
	         "(size 0x%x)",
	         init, blob_shdr(b, blob_sec(t, b, ".strtab"))->sh_size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*sym = orig;
	sym->st_value = text_size - 1; /* and st_size > 1 */
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): value 0x%x size 0x%x outside "
	         "section %u (.text, size 0x%x)",
	         init, text_size - 1, sym->st_size, text, text_size);
	EXPECT_REJECT(t, b, -ERANGE, want);
	*sym = orig;
	sym->st_info = ELF32_ST_INFO(STB_GLOBAL, STT_TLS);
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): thread-local storage is not "
	         "supported in modules",
	         init);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_info = ELF32_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC);
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): unsupported symbol type 10", init);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_info = ELF32_ST_INFO(10, STT_FUNC); /* STB_GNU_UNIQUE */
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): unsupported binding 10", init);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_info = ELF32_ST_INFO(STB_LOCAL, STT_FUNC);
	snprintf(want, sizeof(want),
	         "symbol %u (basic_init): local symbol on the wrong side of "
	         "the first global (%u)",
	         init, blob_shdr(b, blob_sec(t, b, ".symtab"))->sh_info);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*sym = orig;

	sym = blob_symp(b, counter);
	orig = *sym;
	sym->st_shndx = SHN_UNDEF;
	snprintf(want, sizeof(want),
	         "symbol %u (counter): undefined local symbol", counter);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*sym = orig;

	sym = blob_symp(b, common);
	KT_EXPECT_EQ(t, sym->st_shndx, SHN_COMMON);
	KT_EXPECT_EQ(t, sym->st_value, 16); /* aligned(16) */
	sym->st_value = 24;
	snprintf(want, sizeof(want),
	         "symbol %u (basic_common): bad COMMON alignment 0x18", common);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_value = 0;
	snprintf(want, sizeof(want),
	         "symbol %u (basic_common): bad COMMON alignment 0x0", common);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	sym->st_value = 16;
	sym->st_size = 0x7fffffff;
	snprintf(want, sizeof(want),
	         "symbol %u (basic_common): COMMON size 0x7fffffff exceeds "
	         "the module limit 0x%x",
	         common, ELF_MOD_MAX_IMAGE);
	EXPECT_REJECT(t, b, -EFBIG, want);
	blob_free(&b);
}

static void
relocation_sections(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int rel = blob_sec(t, b, ".rel.text");
	unsigned int bss = blob_sec(t, b, ".bss");
	unsigned int comment = blob_sec(t, b, ".comment");
	Elf32_Shdr *s = blob_shdr(b, rel), orig = *s;

	s->sh_type = SHT_RELA;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): SHT_RELA relocations are not used "
	         "on i386 (expected SHT_REL)",
	         rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_entsize = 12;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): entry size 12 size 0x%x, expected a "
	         "multiple of 8",
	         rel, s->sh_size);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_link = comment;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): symbol table link %u, expected %u",
	         rel, comment, blob_sec(t, b, ".symtab"));
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*s = orig;
	s->sh_info = 0;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): target section 0 invalid", rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_info = 999;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): target section 999 invalid", rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	s->sh_info = bss;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): target section %u (.bss) is "
	         "SHT_NOBITS",
	         rel, bss);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

static void
relocation_entries(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	unsigned int rel = blob_sec(t, b, ".rel.text");
	unsigned int text = blob_sec(t, b, ".text");
	unsigned int comment = blob_sec(t, b, ".comment");
	uint32_t size = blob_shdr(b, text)->sh_size;
	unsigned int nsym = blob_shdr(b, blob_sec(t, b, ".symtab"))->sh_size /
	                    sizeof(Elf32_Sym);
	Elf32_Rel *r = blob_rel(b, rel, 3), orig = *r;

	/* The last 4-byte field starts at size - 4; one past is refused. */
	r->r_offset = size - 4;
	KT_EXPECT_EQ(
	    t, elf_mod_check(&(struct elf_mod){0}, b.data, b.size, NULL, 0), 0);
	r->r_offset = size - 3;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 offset 0x%x out of "
	         "range (section size 0x%x)",
	         rel, size - 3, size);
	EXPECT_REJECT(t, b, -ERANGE, want);
	r->r_offset = 0xfffffffe;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 offset 0xfffffffe out "
	         "of range (section size 0x%x)",
	         rel, size);
	EXPECT_REJECT(t, b, -ERANGE, want);
	*r = orig;
	r->r_info = ELF32_R_INFO(nsym, R_386_32);
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 symbol %u out of range "
	         "(%u symbols)",
	         rel, nsym, nsym);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	r->r_info = ELF32_R_INFO(1, 200);
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 has type 200 (?): "
	         "unknown relocation type",
	         rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	r->r_info = ELF32_R_INFO(1, R_386_TLS_LE);
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 has type 17 "
	         "(R_386_TLS_LE): thread-local storage is not supported in "
	         "modules",
	         rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	r->r_info = ELF32_R_INFO(1, R_386_16);
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 has type 20 "
	         "(R_386_16): not emitted by the C compiler for modules",
	         rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	r->r_info = ELF32_R_INFO(1, R_386_RELATIVE);
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 3 has type 8 "
	         "(R_386_RELATIVE): dynamic relocation, not valid in a .o "
	         "file",
	         rel);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	*r = orig;

	/* A loaded section cannot point at a symbol in .comment; the first
	 * relocation against optional_hook is number 2. */
	blob_symp(b, ELF32_R_SYM(r->r_info))->st_shndx = (Elf32_Half)comment;
	blob_symp(b, ELF32_R_SYM(r->r_info))->st_value = 0;
	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 2 refers to symbol %u "
	         "(optional_hook) in section %u (.comment), which is not "
	         "loaded",
	         rel, ELF32_R_SYM(r->r_info), comment);
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

static void
pic_module(struct kt *t)
{
	struct blob b = mod_read(t, "pic");

	snprintf(want, sizeof(want),
	         "section %u (.rel.text): relocation 1 has type 10 "
	         "(R_386_GOTPC): position-independent code needs a GOT: "
	         "build modules with -fno-pic",
	         blob_sec(t, b, ".rel.text"));
	EXPECT_REJECT(t, b, -ENOEXEC, want);
	blob_free(&b);
}

/* Every prefix of a good module is refused cleanly (ASan watches). */
static void
truncated_files(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	size_t n, accepted = 0;
	struct elf_mod m;
	char err[256];

	for (n = 0; n < b.size; n++) {
		struct blob c = {malloc(n + 1), n};

		memcpy(c.data, b.data, n);
		if (elf_mod_check(&m, c.data, c.size, err, sizeof(err)) == 0)
			accepted++;
		else if (err[0] == '\0')
			kt_fail(t, __FILE__, __LINE__,
			        "prefix %zu refused silently", n);
		blob_free(&c);
	}
	KT_EXPECT_EQ(t, accepted, 0);
	blob_free(&b);
}

static const struct kt_case check_cases[] = {
    KT_CASE(accepts_test_modules),
    KT_CASE(ident),
    KT_CASE(type_and_machine),
    KT_CASE(too_small),
    KT_CASE(misaligned_buffer),
    KT_CASE(section_header_table),
    KT_CASE(string_tables),
    KT_CASE(section_bounds),
    KT_CASE(alignment),
    KT_CASE(loaded_section_kinds),
    KT_CASE(symbol_table),
    KT_CASE(symbols),
    KT_CASE(relocation_sections),
    KT_CASE(relocation_entries),
    KT_CASE(pic_module),
    KT_CASE(truncated_files),
    KT_END,
};

const struct kt_suite check_suite = {"modloader-check", check_cases};
