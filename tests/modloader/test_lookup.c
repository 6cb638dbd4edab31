/*
 * What the module layer reads back after loading (sections, symbols,
 * the per-module function table), the one-call pipeline's cleanup on
 * every failure, phase-order checks, and replay of saved fuzz inputs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/pipeline.h"
#include "tests/modloader/testutil.h"

#define BASE 0xd0800000u

static const struct ksym basic_ksyms[] = {{"printk", 0xc0100000},
                                          {"kmalloc", 0xc0100100},
                                          {"jiffies", 0xc0200000},
                                          {NULL, 0}};

static void
special_sections(struct kt *t)
{
	static const char modinfo[] = "name=basic\0license=GPL";
	struct blob b = mod_read(t, "basic");
	struct elf_mod_sym init;
	struct loaded l;
	uint32_t addr, size;
	const void *data;
	int idx;

	KT_ASSERT(t, load_at(&l, b, BASE, basic_ksyms) == 0);
	/* .modinfo is readable from the file before anything is loaded. */
	idx = elf_mod_find_section(&l.m, ".modinfo");
	KT_ASSERT(t, idx > 0);
	data = elf_mod_section_data(&l.m, (unsigned int)idx, &size);
	KT_ASSERT(t, data != NULL && size == sizeof(modinfo));
	KT_EXPECT(t, memcmp(data, modinfo, sizeof(modinfo)) == 0);
	KT_EXPECT_EQ(t, elf_mod_find_section(&l.m, ".nope"), -ENOENT);

	/* __ksymtab's first word was relocated to basic_init. */
	KT_ASSERT(t,
	          elf_mod_section_addr(&l.m, "__ksymtab", &addr, &size) == 0);
	KT_EXPECT_EQ(t, size, 8);
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "basic_init", &init) == 0);
	KT_EXPECT_EQ(t, image_word(&l, addr - BASE), init.addr);
	/* A section that is not loaded has no address. */
	KT_EXPECT_EQ(t, elf_mod_section_addr(&l.m, ".comment", &addr, &size),
	             -ENOENT);
	unload(&l);
	blob_free(&b);
}

static void
find_symbol(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	struct elf_mod_sym s;
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, basic_ksyms) == 0);
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "basic_init", &s) == 0);
	KT_EXPECT_EQ(t, s.type, STT_FUNC);
	KT_EXPECT_EQ(t, s.bind, STB_GLOBAL);
	KT_EXPECT(t, s.addr >= BASE && s.addr - BASE < l.m.text_size);
	KT_EXPECT(t, s.size > 0);
	KT_ASSERT(t, elf_mod_find_symbol(&l.m, "basic_common", &s) == 0);
	KT_EXPECT(t, s.addr >= BASE + l.m.common_off && s.addr % 16 == 0);
	/* Locals are not looked up by name; undefined ones are not ours. */
	KT_EXPECT_EQ(t, elf_mod_find_symbol(&l.m, "counter", &s), -ENOENT);
	KT_EXPECT_EQ(t, elf_mod_find_symbol(&l.m, "printk", &s), -ENOENT);
	KT_EXPECT_EQ(t, elf_mod_find_symbol(&l.m, "optional_hook", &s),
	             -ENOENT);
	unload(&l);
	blob_free(&b);
}

struct names {
	char buf[512];
	int n;
};

static int
collect(void *ctx, const struct elf_mod_sym *s)
{
	struct names *n = ctx;
	size_t len = strlen(n->buf);

	snprintf(n->buf + len, sizeof(n->buf) - len, "%s%s", n->n++ ? " " : "",
	         s->name);
	return 0;
}

static void
global_symbols(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	struct names n = {{0}, 0};
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, basic_ksyms) == 0);
	KT_EXPECT_EQ(t, elf_mod_for_each_global(&l.m, collect, &n), 0);
	KT_EXPECT_STREQ(t, n.buf,
	                "basic_init basic_table basic_common basic_exit "
	                "basic_greeting basic_ptr");
	unload(&l);
	blob_free(&b);
}

struct funcs {
	int n, sized;
	uint32_t lo, hi;
};

static int
count_func(void *ctx, const struct elf_mod_sym *s)
{
	struct funcs *f = ctx;

	f->n++;
	f->sized += s->size > 0;
	if (f->n == 1 || s->addr < f->lo)
		f->lo = s->addr;
	if (s->addr + s->size > f->hi)
		f->hi = s->addr + s->size;
	return 0;
}

static void
function_symbols(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	struct names n = {{0}, 0};
	struct funcs f = {0, 0, 0, 0};
	struct loaded l;

	KT_ASSERT(t, load_at(&l, b, BASE, basic_ksyms) == 0);
	/* Static functions too: backtraces need them. */
	KT_EXPECT_EQ(t, elf_mod_for_each_func(&l.m, collect, &n), 0);
	KT_EXPECT_STREQ(t, n.buf, "bump basic_init basic_exit");
	KT_EXPECT_EQ(t, elf_mod_for_each_func(&l.m, count_func, &f), 0);
	KT_EXPECT_EQ(t, f.sized, 3);
	KT_EXPECT(t, f.lo >= BASE && f.hi <= BASE + l.m.text_size);
	unload(&l);
	blob_free(&b);
}

static int
stop_at_second(void *ctx, const struct elf_mod_sym *s)
{
	(void)s;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void
iteration_stops(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	struct loaded l;
	int seen = 0;

	KT_ASSERT(t, load_at(&l, b, BASE, basic_ksyms) == 0);
	KT_EXPECT_EQ(t, elf_mod_for_each_global(&l.m, stop_at_second, &seen),
	             42);
	KT_EXPECT_EQ(t, seen, 2);
	unload(&l);
	blob_free(&b);
}

static void
phases_in_order(struct kt *t)
{
	struct blob b = mod_read(t, "basic");
	struct elf_mod m;
	struct elf_mod_sym s;
	char err[128];
	uint32_t scratch[256], addr;
	unsigned char image[8192];

	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	KT_EXPECT_EQ(t, elf_mod_copy(&m, image), -EINVAL);
	KT_EXPECT_STREQ(t, err, "copy: module not laid out");
	KT_EXPECT_EQ(t, elf_mod_relocate(&m, image), -EINVAL);
	KT_EXPECT_STREQ(t, err, "relocate: symbols not resolved");
	KT_EXPECT_EQ(t, elf_mod_find_symbol(&m, "basic_init", &s), -EINVAL);
	KT_EXPECT_EQ(t, elf_mod_section_addr(&m, ".text", &addr, NULL),
	             -EINVAL);
	KT_ASSERT(t, elf_mod_scratch_size(&m) <= sizeof(scratch));
	KT_ASSERT(t, elf_mod_layout(&m, scratch, sizeof(scratch)) == 0);
	KT_EXPECT_EQ(t, elf_mod_layout(&m, scratch, sizeof(scratch)), -EINVAL);
	KT_EXPECT_EQ(
	    t, elf_mod_resolve(&m, BASE, ksym_resolve, (void *)basic_ksyms),
	    -EINVAL);
	KT_EXPECT_STREQ(t, err, "resolve: image not copied");
	blob_free(&b);
}

/* elf_mod_load() with allocators that count, and can be told to fail. */
struct fake_mem {
	int scratch, image;
	int fail_image;
};

static void *
f_alloc_scratch(void *ctx, size_t size)
{
	((struct fake_mem *)ctx)->scratch++;
	return malloc(size);
}

static void
f_free_scratch(void *ctx, void *p)
{
	((struct fake_mem *)ctx)->scratch--;
	free(p);
}

static void *
f_alloc_image(void *ctx, uint32_t size, uint32_t ro_size, uint32_t *base)
{
	struct fake_mem *fm = ctx;

	(void)ro_size;
	if (fm->fail_image)
		return NULL;
	fm->image++;
	*base = BASE;
	return malloc(size);
}

static void
f_free_image(void *ctx, void *p)
{
	((struct fake_mem *)ctx)->image--;
	free(p);
}

static int
f_resolve(void *ctx, const char *name, uint32_t *addr)
{
	(void)ctx;
	return ksym_resolve((void *)basic_ksyms, name, addr);
}

static void
load_unwinds(struct kt *t)
{
	struct blob b = mod_read(t, "basic"), u = mod_read(t, "unresolved");
	struct fake_mem fm = {0, 0, 0};
	struct elf_mod_load_ops ops = {f_alloc_scratch, f_free_scratch,
	                               f_alloc_image,   f_free_image,
	                               f_resolve,       &fm};
	struct elf_mod m;
	char err[128];
	void *image;

	/* Success: the caller holds the image and the scratch. */
	KT_ASSERT(t, elf_mod_load(&m, b.data, b.size, &ops, &image, err,
	                          sizeof(err)) == 0);
	KT_EXPECT(t, image != NULL && m.stage == ELF_MOD_RELOCATED);
	KT_EXPECT(t, fm.scratch == 1 && fm.image == 1);
	f_free_image(&fm, image);
	f_free_scratch(&fm, m.scratch);

	/* No image memory: scratch given back. */
	fm.fail_image = 1;
	KT_EXPECT_EQ(
	    t, elf_mod_load(&m, b.data, b.size, &ops, &image, err, sizeof(err)),
	    -ENOMEM);
	KT_EXPECT(t, image == NULL && fm.scratch == 0);
	KT_EXPECT(t, strncmp(err, "no memory for a 0x", 18) == 0);
	fm.fail_image = 0;

	/* Resolution fails: image and scratch given back. */
	KT_EXPECT_EQ(
	    t, elf_mod_load(&m, u.data, u.size, &ops, &image, err, sizeof(err)),
	    -ENOENT);
	KT_EXPECT_STREQ(t, err,
	                "unresolved symbols: missing_one, missing_two, "
	                "missing_var");
	KT_EXPECT(t, image == NULL && fm.scratch == 0 && fm.image == 0);

	/* Validation fails: nothing was allocated at all. */
	b.data[0] = 0;
	KT_EXPECT_EQ(
	    t, elf_mod_load(&m, b.data, b.size, &ops, &image, err, sizeof(err)),
	    -ENOEXEC);
	KT_EXPECT(t, fm.scratch == 0 && fm.image == 0);
	blob_free(&u);
	blob_free(&b);
}

/* Replays every file in dir through the fuzz pipeline; a loader bug
 * shows up as a sanitizer report or abort() in pipeline.c. */
static void
replay_dir(struct kt *t, const char *dir, int *count)
{
	char path[512], err[160];
	struct dirent *de;
	struct blob b;
	DIR *d = opendir(dir);

	if (d == NULL) {
		kt_fail(t, __FILE__, __LINE__, "cannot open %s", dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		b = blob_read(t, path);
		pipeline_run(b.data, b.size, err, sizeof(err));
		blob_free(&b);
		(*count)++;
	}
	closedir(d);
}

static void
regressions(struct kt *t)
{
	int n = 0;

	replay_dir(t, ML_SRC_DIR "/regress", &n);
	kt_diag("replayed %d saved inputs", n);
}

static void
seed_corpus(struct kt *t)
{
	int n = 0;

	replay_dir(t, ML_SRC_DIR "/corpus", &n);
	KT_EXPECT(t, n > 0);
}

static const struct kt_case lookup_cases[] = {
    KT_CASE(special_sections), KT_CASE(find_symbol),
    KT_CASE(global_symbols),   KT_CASE(function_symbols),
    KT_CASE(iteration_stops),  KT_END,
};

static const struct kt_case pipeline_cases[] = {
    KT_CASE(phases_in_order),
    KT_CASE(load_unwinds),
    KT_CASE(regressions),
    KT_CASE(seed_corpus),
    KT_END,
};

const struct kt_suite lookup_suite = {"modloader-lookup", lookup_cases};
const struct kt_suite pipeline_suite = {"modloader-pipeline", pipeline_cases};
