/*
 * elf_mod_layout() and elf_mod_copy(): where sections and COMMON symbols
 * land.  mods/align.S has sections of every group with awkward sizes and
 * alignments; the offsets below are worked out by hand from the rules:
 * text, rodata, page boundary, data, bss, COMMON; file order inside a
 * group; each start aligned to sh_addralign (COMMON: st_value).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/testutil.h"

static const struct ksym no_ksyms[] = {{NULL, 0}};

struct expect_sec {
	const char *name;
	uint32_t off;
};

static void
align_offsets(struct kt *t)
{
	static const struct expect_sec want[] = {
	    {".text", 0},      /* empty, align 1 */
	    {".text.a", 0},    /* 3 bytes, align 4 */
	    {".text.b", 16},   /* align 16 */
	    {".rodata.a", 64}, /* after text: align 64 */
	    {".rodata.b", 66}, /* align 2 */
	    {".data", 4096},   /* page boundary, empty */
	    {".data.a", 4096}, /* align 8, 12 bytes */
	    {".data.b", 8192}, /* align 4096 */
	    {".bss", 8196},    /* bss after all data, empty */
	    {".bss.a", 8224},  /* align 32, 5 bytes */
	};
	struct blob b = mod_read(t, "align");
	struct loaded l;
	unsigned int i;

	KT_ASSERT(t, load_at(&l, b, 0xd0800000, no_ksyms) == 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t off = sec_off(t, &l, want[i].name);

		if (off != want[i].off)
			kt_fail(t, __FILE__, __LINE__,
			        "%s at 0x%x, expected 0x%x", want[i].name, off,
			        want[i].off);
	}
	KT_EXPECT_EQ(t, l.m.text_size, 17);
	KT_EXPECT_EQ(t, l.m.ro_size, 4096);
	KT_EXPECT_EQ(t, l.m.common_off, 8229);
	KT_EXPECT_EQ(t, l.m.image_size, 8360);
	KT_EXPECT_EQ(t, l.m.common_size, 8360 - 8229);
	unload(&l);
	blob_free(&b);
}

static void
non_alloc_sections_skipped(struct kt *t)
{
	struct blob b = mod_read(t, "align");
	static const char *const skipped[] = {
	    ".comment.a", ".symtab", ".strtab", ".shstrtab", ".note.GNU-stack"};
	struct loaded l;
	unsigned int i;
	int idx;

	KT_ASSERT(t, load_at(&l, b, 0xd0800000, no_ksyms) == 0);
	for (i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		idx = elf_mod_find_section(&l.m, skipped[i]);
		KT_ASSERT(t, idx > 0);
		KT_EXPECT_EQ(t, l.m.sec_off[idx], ELF_MOD_NOT_LOADED);
	}
	unload(&l);
	blob_free(&b);
}

static void
common_symbols(struct kt *t)
{
	struct blob b = mod_read(t, "align");
	struct elf_mod_sym s;
	struct loaded l;
	const uint32_t base = 0xd0800000;

	KT_ASSERT(t, load_at(&l, b, base, no_ksyms) == 0);
	/* In symbol table order, each at its own alignment. */
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "c_small", &s) == 0);
	KT_EXPECT_EQ(t, s.addr, base + 8229); /* align 1, 3 bytes */
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "c_big", &s) == 0);
	KT_EXPECT_EQ(t, s.addr, base + 8256); /* align 32, 100 bytes */
	KT_EXPECT_EQ(t, s.size, 100);
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "c_mid", &s) == 0);
	KT_EXPECT_EQ(t, s.addr, base + 8356); /* align 4 */
	unload(&l);
	blob_free(&b);
}

static void
image_contents(struct kt *t)
{
	struct blob b = mod_read(t, "align");
	struct loaded l;
	uint32_t i, nonzero = 0;

	KT_ASSERT(t, load_at(&l, b, 0xd0800000, no_ksyms) == 0);
	KT_EXPECT_EQ(t, image_word(&l, 0), 0x00909090);
	KT_EXPECT_EQ(t, l.image[16], 0xc3);
	KT_EXPECT_EQ(t, l.image[64], 1);
	KT_EXPECT_EQ(t, l.image[66], 0x5a);
	KT_EXPECT_EQ(t, l.image[67], 0x5a);
	KT_EXPECT_EQ(t, image_word(&l, 4096), 1);
	KT_EXPECT_EQ(t, image_word(&l, 4100), 2);
	KT_EXPECT_EQ(t, image_word(&l, 4104), 3);
	KT_EXPECT_EQ(t, image_word(&l, 8192), 7);
	/* Everything else, padding, bss and COMMON included, is zero
	 * although load_at() filled the image with 0xa5 first. */
	for (i = 0; i < l.m.image_size; i++)
		nonzero += l.image[i] != 0;
	KT_EXPECT_EQ(t, nonzero, 3 + 1 + 1 + 2 + 1 + 1 + 1 + 1);
	unload(&l);
	blob_free(&b);
}

static void
ro_rw_split(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	static const struct ksym ksyms[] = {{"printk", 0xc0100000},
	                                    {"kmalloc", 0xc0100100},
	                                    {"jiffies", 0xc0200000},
	                                    {NULL, 0}};
	struct loaded l;
	unsigned int i;

	KT_ASSERT(t, load_at(&l, b, 0xd0800000, ksyms) == 0);
	KT_EXPECT_EQ(t, l.m.ro_size % ELF_MOD_PAGE_SIZE, 0);
	KT_EXPECT(t, l.m.text_size <= l.m.ro_size);
	KT_EXPECT(t, sec_off(t, &l, ".text") < l.m.text_size);
	for (i = 1; i < l.m.nsec; i++) {
		const Elf32_Shdr *s = &l.m.sec[i];

		if ((s->sh_flags & SHF_ALLOC) == 0)
			continue;
		if (s->sh_flags & SHF_WRITE)
			KT_EXPECT(t, l.m.sec_off[i] >= l.m.ro_size);
		else
			KT_EXPECT(t,
			          l.m.sec_off[i] + s->sh_size <= l.m.ro_size);
		if (s->sh_flags & SHF_EXECINSTR)
			KT_EXPECT(t,
			          l.m.sec_off[i] + s->sh_size <= l.m.text_size);
	}
	unload(&l);
	blob_free(&b);
}

static void
image_size_limit(struct kt *t)
{
	struct blob b = mod_read(t, "align");
	unsigned int bss = blob_sec(t, b, ".bss.a");
	unsigned int big = blob_sym(t, b, "c_big");
	struct elf_mod m;
	char err[128];
	void *scratch;

	/* Each fits; together they do not. */
	blob_shdr(b, bss)->sh_size = 48u << 20;
	blob_symp(b, big)->st_size = 32u << 20;
	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	scratch = malloc(elf_mod_scratch_size(&m));
	KT_EXPECT_EQ(t, elf_mod_layout(&m, scratch, elf_mod_scratch_size(&m)),
	             -EFBIG);
	KT_EXPECT_STREQ(t, err, "module image larger than 0x4000000 bytes");
	free(scratch);
	blob_free(&b);
}

static void
scratch_too_small(struct kt *t)
{
	struct blob b = mod_read(t, "align");
	struct elf_mod m;
	uint32_t scratch[4];
	char err[128], want[128];

	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	KT_EXPECT_EQ(t, elf_mod_scratch_size(&m),
	             (m.nsec + m.nsym) * sizeof(uint32_t));
	KT_EXPECT_EQ(t, elf_mod_layout(&m, scratch, sizeof(scratch)), -ENOMEM);
	snprintf(want, sizeof(want),
	         "layout: scratch memory missing, misaligned or smaller than "
	         "%u bytes",
	         (unsigned int)elf_mod_scratch_size(&m));
	KT_EXPECT_STREQ(t, err, want);
	blob_free(&b);
}

static const struct kt_case layout_cases[] = {
    KT_CASE(align_offsets),     KT_CASE(non_alloc_sections_skipped),
    KT_CASE(common_symbols),    KT_CASE(image_contents),
    KT_CASE(ro_rw_split),       KT_CASE(image_size_limit),
    KT_CASE(scratch_too_small), KT_END,
};

const struct kt_suite layout_suite = {"modloader-layout", layout_cases};
