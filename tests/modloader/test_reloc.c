/*
 * elf_mod_resolve() and elf_mod_relocate().  mods/relocs.S holds one
 * field per case with a known addend; each expected word is the psABI
 * formula worked out by hand (S symbol, A addend in place, P the field's
 * final address).  The image is written through a host pointer while P
 * uses the final address, as in the kernel.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/testutil.h"

#define BASE     0xd0800000u
#define EXT_FUNC 0xc0101000u
#define EXT_VAR  0xc0200000u

static const struct ksym relocs_ksyms[] = {
    {"ext_func", EXT_FUNC}, {"ext_var", EXT_VAR}, {NULL, 0}};

/* relocs.o: .text at 0 (17 bytes), so .data starts the writable page. */
#define TEXT 0u
#define DATA 4096u

static void
layout_of_relocs(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	KT_EXPECT_EQ(t, sec_off(t, &l, ".text"), TEXT);
	KT_EXPECT_EQ(t, sec_off(t, &l, ".data"), DATA);
	unload(&l);
	blob_free(&b);
}

static void
r_386_32(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	/* S + A */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 0), EXT_VAR);
	KT_EXPECT_EQ(t, image_word(&l, DATA + 4), EXT_VAR + 0x10);
	KT_EXPECT_EQ(t, image_word(&l, DATA + 8), BASE + TEXT + 2);
	/* local_func, through the .text section symbol + 0x10 */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 12), BASE + TEXT + 0x10);
	/* COMMON rel_common + 1: after .data (40 bytes), aligned to 8 */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 24), BASE + DATA + 40 + 1);
	/* SHN_ABS: not moved by the load address */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 28), 0x12345678);
	unload(&l);
	blob_free(&b);
}

static void
r_386_pc32(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	/* call ext_func: e8 at 0, field at 1, A = -4 */
	KT_EXPECT_EQ(t, l.image[TEXT + 0], 0xe8);
	KT_EXPECT_EQ(t, image_word(&l, TEXT + 1),
	             (uint32_t)(EXT_FUNC - 4 - (BASE + TEXT + 1)));
	/* .long ext_var - . */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 16),
	             (uint32_t)(EXT_VAR - (BASE + DATA + 16)));
	/* .long rel_func - 0x100 - . : negative addend */
	KT_EXPECT_EQ(t, image_word(&l, DATA + 36),
	             (uint32_t)(BASE + TEXT - 0x100 - (BASE + DATA + 36)));
	/* call local_func was resolved by the assembler: untouched */
	KT_EXPECT_EQ(t, image_word(&l, TEXT + 11), 0x10 - 15);
	unload(&l);
	blob_free(&b);
}

static void
r_386_plt32_is_pc32(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	/* call ext_func@PLT at 5, field at 6: no PLT, straight to S */
	KT_EXPECT_EQ(t, l.image[TEXT + 5], 0xe8);
	KT_EXPECT_EQ(t, image_word(&l, TEXT + 6),
	             (uint32_t)(EXT_FUNC - 4 - (BASE + TEXT + 6)));
	unload(&l);
	blob_free(&b);
}

static void
r_386_none(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	KT_EXPECT_EQ(t, image_word(&l, DATA + 32), 0x11223344);
	/* 2 in .text + 9 in .data; R_386_NONE is not counted */
	KT_EXPECT_EQ(t, l.m.nrelocs, 11);
	unload(&l);
	blob_free(&b);
}

static void
weak_undefined(struct kt *t)
{
	static const struct ksym with_weak[] = {{"ext_func", EXT_FUNC},
	                                        {"ext_var", EXT_VAR},
	                                        {"weak_missing", 0xc0300000},
	                                        {NULL, 0}};
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	/* Unknown: 0, and loading succeeds. */
	KT_ASSERT(t, load_at(&l, b, BASE, relocs_ksyms) == 0);
	KT_EXPECT_EQ(t, image_word(&l, DATA + 20), 0);
	unload(&l);
	/* Known: used like any other symbol. */
	KT_ASSERT(t, load_at(&l, b, BASE, with_weak) == 0);
	KT_EXPECT_EQ(t, image_word(&l, DATA + 20), 0xc0300000);
	unload(&l);
	blob_free(&b);
}

/* Two load addresses: module-internal absolute words move with the
 * base, PC-relative calls into the kernel move against it. */
static void
load_address_moves_only_what_it_should(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l1, l2;
	const uint32_t delta = 0x10000;

	KT_ASSERT(t, load_at(&l1, b, BASE, relocs_ksyms) == 0);
	KT_ASSERT(t, load_at(&l2, b, BASE + delta, relocs_ksyms) == 0);
	KT_EXPECT_EQ(t, image_word(&l2, DATA + 8) - image_word(&l1, DATA + 8),
	             delta);
	KT_EXPECT_EQ(t, image_word(&l1, TEXT + 1) - image_word(&l2, TEXT + 1),
	             delta);
	KT_EXPECT_EQ(t, image_word(&l2, DATA + 0), image_word(&l1, DATA + 0));
	KT_EXPECT_EQ(t, image_word(&l2, DATA + 36), image_word(&l1, DATA + 36));
	unload(&l1);
	unload(&l2);
	blob_free(&b);
}

static void
bad_load_address(struct kt *t)
{
	struct blob b = mod_read(t, "relocs");
	struct loaded l;

	KT_EXPECT_EQ(t, load_at(&l, b, BASE + 0x10, relocs_ksyms), -EINVAL);
	KT_EXPECT_STREQ(t, l.err,
	                "load address 0xd0800010 is not "
	                "page-aligned");
	unload(&l);
	KT_EXPECT_EQ(t, load_at(&l, b, 0xfffff000, relocs_ksyms), -ERANGE);
	KT_EXPECT_STREQ(t, l.err,
	                "image of 0x1030 bytes at 0xfffff000 wraps around");
	unload(&l);
	blob_free(&b);
}

static void
unresolved_all_listed(struct kt *t)
{
	static const struct ksym only_printk[] = {{"printk", 0xc0100000},
	                                          {NULL, 0}};
	static const struct ksym none[] = {{NULL, 0}};
	struct blob b = mod_read(t, "unresolved");
	struct loaded l;

	/* Every missing name, in symbol table order; the weak one is not
	 * missing, just 0. */
	KT_EXPECT_EQ(t, load_at(&l, b, BASE, only_printk), -ENOENT);
	KT_EXPECT_STREQ(t, l.err,
	                "unresolved symbols: missing_one, missing_two, "
	                "missing_var");
	unload(&l);
	KT_EXPECT_EQ(t, load_at(&l, b, BASE, none), -ENOENT);
	KT_EXPECT_STREQ(t, l.err,
	                "unresolved symbols: missing_one, missing_two, "
	                "missing_var, printk");
	unload(&l);
	blob_free(&b);
}

static int
count_calls(void *ctx, const char *name, uint32_t *addr)
{
	(void)name;
	(void)addr;
	(*(int *)ctx)++;
	return -ENOENT;
}

static void
unresolved_list_truncated(struct kt *t)
{
	struct blob b = mod_read(t, "unresolved");
	struct elf_mod m;
	char err[64];
	void *scratch, *image;
	int calls = 0;

	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	scratch = malloc(elf_mod_scratch_size(&m));
	KT_ASSERT(t,
	          elf_mod_layout(&m, scratch, elf_mod_scratch_size(&m)) == 0);
	image = malloc(m.image_size);
	KT_ASSERT(t, elf_mod_copy(&m, image) == 0);
	KT_EXPECT_EQ(t, elf_mod_resolve(&m, BASE, count_calls, &calls),
	             -ENOENT);
	/* Only whole names, then how many there were in all. */
	KT_EXPECT_STREQ(t, err,
	                "unresolved symbols: missing_one ... (4 in "
	                "all)");
	/* The callback saw every undefined symbol, weak one included. */
	KT_EXPECT_EQ(t, calls, 5);
	free(image);
	free(scratch);
	blob_free(&b);
}

static int
failing_resolver(void *ctx, const char *name, uint32_t *addr)
{
	(void)ctx;
	(void)addr;
	return strcmp(name, "missing_two") == 0 ? -EINVAL : -ENOENT;
}

static void
resolver_error_aborts(struct kt *t)
{
	struct blob b = mod_read(t, "unresolved");
	struct elf_mod m;
	char err[128], want[128];
	void *scratch, *image;

	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	scratch = malloc(elf_mod_scratch_size(&m));
	KT_ASSERT(t,
	          elf_mod_layout(&m, scratch, elf_mod_scratch_size(&m)) == 0);
	image = malloc(m.image_size);
	KT_ASSERT(t, elf_mod_copy(&m, image) == 0);
	KT_EXPECT_EQ(t, elf_mod_resolve(&m, BASE, failing_resolver, NULL),
	             -EINVAL);
	snprintf(want, sizeof(want),
	         "symbol %u (missing_two): lookup failed (error -22)",
	         blob_sym(t, b, "missing_two"));
	KT_EXPECT_STREQ(t, err, want);
	/* A failed resolve cannot be half-reused. */
	KT_EXPECT_EQ(t, elf_mod_relocate(&m, image), -EINVAL);
	free(image);
	free(scratch);
	blob_free(&b);
}

static void
debug_relocations_skipped(struct kt *t)
{
	static const struct ksym ksyms[] = {{"printk", 0xc0100000}, {NULL, 0}};
	struct blob b = mod_read(t, "debug");
	struct loaded l;
	int idx;

	KT_ASSERT(t, load_at(&l, b, BASE, ksyms) == 0);
	idx = elf_mod_find_section(&l.m, ".rel.debug_info");
	KT_ASSERT(t, idx > 0);
	KT_EXPECT_EQ(t, l.m.sec_off[l.m.sec[idx].sh_info], ELF_MOD_NOT_LOADED);
	unload(&l);
	blob_free(&b);
}

static const struct kt_case reloc_cases[] = {
    KT_CASE(layout_of_relocs),
    KT_CASE(r_386_32),
    KT_CASE(r_386_pc32),
    KT_CASE(r_386_plt32_is_pc32),
    KT_CASE(r_386_none),
    KT_CASE(weak_undefined),
    KT_CASE(load_address_moves_only_what_it_should),
    KT_CASE(bad_load_address),
    KT_CASE(unresolved_all_listed),
    KT_CASE(unresolved_list_truncated),
    KT_CASE(resolver_error_aborts),
    KT_CASE(debug_relocations_skipped),
    KT_END,
};

const struct kt_suite reloc_suite = {"modloader-reloc", reloc_cases};
