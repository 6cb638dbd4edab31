/*
 * Reference check: GNU ld linked refmod.o at REF_BASE with a script that
 * restates the loader's layout rules (ref/refmod.ld) and --defsym for the
 * kernel symbols (ref/refmod_syms.h); the loader loading refmod.o at the
 * same address with the same symbols must produce the same bytes, every
 * relocation, padding and bss byte included.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/testutil.h"

static const struct ksym ref_ksyms[] = {
#define REF_SYM(name, addr) {#name, addr},
#include "tests/modloader/ref/refmod_syms.h"
#undef REF_SYM
    {NULL, 0},
};

static void
same_bytes_as_ld(struct kt *t)
{
	struct blob obj = mod_read(t, "refmod");
	struct blob ref = blob_read(t, ML_BUILD_DIR "/ref/refmod.bin");
	struct loaded l;
	size_t i, diffs = 0;

	KT_ASSERT(t, load_at(&l, obj, REF_BASE, ref_ksyms) == 0);
	KT_EXPECT_EQ(t, l.m.image_size, ref.size);
	for (i = 0; i < ref.size && i < l.m.image_size; i++) {
		if (l.image[i] == ref.data[i])
			continue;
		if (diffs++ < 8)
			kt_diag("offset 0x%zx: loader 0x%02x, ld 0x%02x", i,
			        l.image[i], ref.data[i]);
	}
	KT_EXPECT_EQ(t, diffs, 0);
	unload(&l);
	blob_free(&ref);
	blob_free(&obj);
}

/* The comparison means something only if refmod exercises what it
 * claims to: data relocations, external calls, a COMMON symbol. */
static void
reference_module_coverage(struct kt *t)
{
	struct blob obj = mod_read(t, "refmod");
	struct elf_mod_sym s;
	struct loaded l;
	unsigned int i, data_rels = 0, pc_rels = 0;

	KT_ASSERT(t, load_at(&l, obj, REF_BASE, ref_ksyms) == 0);
	for (i = 1; i < l.m.nsec; i++) {
		const Elf32_Shdr *r = &l.m.sec[i];
		const Elf32_Rel *rel;
		unsigned int j;

		if (r->sh_type != SHT_REL ||
		    l.m.sec_off[r->sh_info] == ELF_MOD_NOT_LOADED)
			continue;
		rel = (const Elf32_Rel *)(obj.data + r->sh_offset);
		for (j = 0; j < r->sh_size / sizeof(*rel); j++) {
			if ((l.m.sec[r->sh_info].sh_flags & SHF_WRITE) != 0)
				data_rels++;
			pc_rels += ELF32_R_TYPE(rel[j].r_info) == R_386_PC32;
		}
	}
	KT_EXPECT(t, data_rels >= 4);
	KT_EXPECT(t, pc_rels >= 4);
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "ref_common", &s) == 0);
	KT_EXPECT_EQ(t, l.m.sym[s.index].st_shndx, SHN_COMMON);
	unload(&l);
	blob_free(&obj);
}

static const struct kt_case ref_cases[] = {
    KT_CASE(same_bytes_as_ld),
    KT_CASE(reference_module_coverage),
    KT_END,
};

const struct kt_suite ref_suite = {"modloader-reference", ref_cases};
