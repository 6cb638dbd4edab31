/* See pipeline.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modloader/elf_mod.h"
#include "tests/modloader/pipeline.h"

struct pipe_ctx {
	int scratch_live, image_live;
};

static void *
alloc_scratch(void *ctx, size_t size)
{
	((struct pipe_ctx *)ctx)->scratch_live++;
	return malloc(size == 0 ? 1 : size);
}

static void
free_scratch(void *ctx, void *p)
{
	((struct pipe_ctx *)ctx)->scratch_live--;
	free(p);
}

static void *
alloc_image(void *ctx, uint32_t size, uint32_t ro_size, uint32_t *base)
{
	(void)ro_size;
	if (size > PIPELINE_MAX_IMAGE)
		return NULL;
	((struct pipe_ctx *)ctx)->image_live++;
	*base = PIPELINE_BASE;
	/* Exact size, so ASan catches a write past the image. */
	return malloc(size == 0 ? 1 : size);
}

static void
free_image(void *ctx, void *p)
{
	((struct pipe_ctx *)ctx)->image_live--;
	free(p);
}

/* Knows every name starting with 'k' or 'p' (kmalloc, printk, ...) and
 * nothing else, so both outcomes get exercised. */
static int
resolve(void *ctx, const char *name, uint32_t *addr)
{
	uint32_t h = 0xc0100000u;

	(void)ctx;
	if (name[0] != 'k' && name[0] != 'p')
		return -ENOENT;
	while (*name != '\0')
		h = h * 31 + (unsigned char)*name++;
	*addr = h;
	return 0;
}

static void
check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "pipeline invariant broken: %s\n", what);
		abort();
	}
}

static int
check_sym(void *ctx, const struct elf_mod_sym *s)
{
	const struct elf_mod *m = ctx;

	check(s->name != NULL && strlen(s->name) < m->size, "symbol name");
	if (s->type == STT_FUNC && m->sym[s->index].st_shndx != SHN_ABS)
		check(s->addr >= m->base &&
		          s->addr - m->base <= m->image_size &&
		          s->size <= m->image_size - (s->addr - m->base),
		      "function inside the image");
	return 0;
}

static void check_modinfo(const struct elf_mod *m);

static void
check_loaded(const struct elf_mod *m)
{
	const Elf32_Shdr *s;
	struct elf_mod_sym sym;
	unsigned int i;
	uint32_t addr, size;

	check(m->ro_size % ELF_MOD_PAGE_SIZE == 0, "ro_size page-aligned");
	check(m->text_size <= m->ro_size, "text before ro_size");
	check(m->ro_size <= m->image_size, "ro_size inside the image");
	check(m->common_off + m->common_size == m->image_size,
	      "COMMON area ends the image");
	for (i = 1; i < m->nsec; i++) {
		s = &m->sec[i];
		if ((s->sh_flags & SHF_ALLOC) == 0) {
			check(m->sec_off[i] == ELF_MOD_NOT_LOADED,
			      "non-alloc section not placed");
			continue;
		}
		check(m->sec_off[i] <= m->image_size &&
		          s->sh_size <= m->image_size - m->sec_off[i],
		      "section inside the image");
		check(s->sh_addralign == 0 ||
		          m->sec_off[i] % s->sh_addralign == 0,
		      "section aligned");
		if (s->sh_flags & SHF_WRITE)
			check(m->sec_off[i] >= m->ro_size,
			      "writable sections after ro_size");
		else
			check(m->sec_off[i] + s->sh_size <= m->ro_size,
			      "read-only sections before ro_size");
	}
	elf_mod_for_each_global(m, check_sym, (void *)m);
	elf_mod_for_each_func(m, check_sym, (void *)m);
	if (elf_mod_section_addr(m, ".text", &addr, &size) == 0)
		check(addr >= m->base, ".text address");
	elf_mod_find_symbol(m, "init_module", &sym);
	check_modinfo(m);
}

/* What the .modinfo reader accepts, it walks inside the section. */
static void
check_modinfo(const struct elf_mod *m)
{
	struct elf_modinfo mi;
	struct elf_modinfo_entry e;
	uint32_t pos = 0;
	char err[96];

	if (elf_mod_modinfo(m, &mi, err, sizeof(err)) != 0) {
		check(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0',
		      "modinfo refusal explained");
		return;
	}
	while (elf_modinfo_next(&mi, &pos, &e) == 1)
		check(e.key >= mi.data &&
		          e.value + strlen(e.value) < mi.data + mi.size,
		      "modinfo entry inside the section");
	elf_modinfo_has(&mi, "alias", "pci:v00008086d0000100E");
}

int
pipeline_run(const uint8_t *data, size_t size, char *err, size_t errlen)
{
	static const struct elf_mod_load_ops ops_template = {
	    .alloc_scratch = alloc_scratch,
	    .free_scratch = free_scratch,
	    .alloc_image = alloc_image,
	    .free_image = free_image,
	    .resolve = resolve,
	};
	struct elf_mod_load_ops ops = ops_template;
	struct pipe_ctx ctx = {0};
	struct elf_mod m;
	void *image, *copy;
	int ret;

	/* The loader wants a 4-byte aligned file, like the kernel's. */
	copy = malloc(size == 0 ? 1 : size);
	check(copy != NULL, "malloc");
	memcpy(copy, data, size);
	ops.ctx = &ctx;
	ret = elf_mod_load(&m, copy, size, &ops, &image, err, errlen);
	check(err == NULL || errlen == 0 || memchr(err, '\0', errlen) != NULL,
	      "error message terminated");
	if (ret == 0) {
		check(image != NULL && m.stage == ELF_MOD_RELOCATED,
		      "loaded module relocated");
		check_loaded(&m);
		free_image(&ctx, image);
		free_scratch(&ctx, m.scratch);
	} else {
		check(ret < 0 && image == NULL, "failure returns -errno");
		check(err == NULL || errlen == 0 || err[0] != '\0',
		      "failure explained");
	}
	check(ctx.scratch_live == 0 && ctx.image_live == 0,
	      "everything allocated was freed");
	free(copy);
	return ret;
}
