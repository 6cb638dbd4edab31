/* See testutil.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/modloader/testutil.h"

struct blob
blob_read(struct kt *t, const char *path)
{
	struct blob b = {0};
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL) {
		kt_fail(t, __FILE__, __LINE__,
		        "cannot open %s (run from the "
		        "repo root after make host)",
		        path);
		longjmp(t->abort, 1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b.size = n < 0 ? 0 : (size_t)n;
	b.data = malloc(b.size + 1);
	if (b.data == NULL || fread(b.data, 1, b.size, f) != b.size) {
		fclose(f);
		kt_fail(t, __FILE__, __LINE__, "cannot read %s", path);
		longjmp(t->abort, 1);
	}
	fclose(f);
	return b;
}

struct blob
mod_read(struct kt *t, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/mods/%s.o", ML_BUILD_DIR, name);
	return blob_read(t, path);
}

struct blob
blob_dup(struct blob b)
{
	struct blob c = {malloc(b.size + 1), b.size};

	memcpy(c.data, b.data, b.size);
	return c;
}

void
blob_free(struct blob *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}

Elf32_Ehdr *
blob_ehdr(struct blob b)
{
	return (Elf32_Ehdr *)b.data;
}

Elf32_Shdr *
blob_shdr(struct blob b, unsigned int i)
{
	return (Elf32_Shdr *)(b.data + blob_ehdr(b)->e_shoff) + i;
}

unsigned int
blob_sec(struct kt *t, struct blob b, const char *name)
{
	const char *names = (const char *)b.data +
	                    blob_shdr(b, blob_ehdr(b)->e_shstrndx)->sh_offset;
	unsigned int i;

	for (i = 1; i < blob_ehdr(b)->e_shnum; i++)
		if (strcmp(names + blob_shdr(b, i)->sh_name, name) == 0)
			return i;
	kt_fail(t, __FILE__, __LINE__, "no section %s in the test module",
	        name);
	longjmp(t->abort, 1);
}

Elf32_Sym *
blob_symp(struct blob b, unsigned int i)
{
	unsigned int s;

	for (s = 1; s < blob_ehdr(b)->e_shnum; s++)
		if (blob_shdr(b, s)->sh_type == SHT_SYMTAB)
			break;
	return (Elf32_Sym *)(b.data + blob_shdr(b, s)->sh_offset) + i;
}

unsigned int
blob_sym(struct kt *t, struct blob b, const char *name)
{
	const Elf32_Shdr *symtab = NULL;
	const char *names;
	unsigned int i;

	for (i = 1; i < blob_ehdr(b)->e_shnum; i++)
		if (blob_shdr(b, i)->sh_type == SHT_SYMTAB)
			symtab = blob_shdr(b, i);
	KT_ASSERT(t, symtab != NULL);
	names = (const char *)b.data + blob_shdr(b, symtab->sh_link)->sh_offset;
	for (i = 1; i < symtab->sh_size / sizeof(Elf32_Sym); i++)
		if (strcmp(names + blob_symp(b, i)->st_name, name) == 0)
			return i;
	kt_fail(t, __FILE__, __LINE__, "no symbol %s in the test module", name);
	longjmp(t->abort, 1);
}

Elf32_Rel *
blob_rel(struct blob b, unsigned int sec, unsigned int j)
{
	return (Elf32_Rel *)(b.data + blob_shdr(b, sec)->sh_offset) + j;
}

void
expect_reject(struct kt *t, struct blob b, int code, const char *msg,
              const char *file, int line)
{
	char err[256];
	struct elf_mod m;
	int ret;

	ret = elf_mod_check(&m, b.data, b.size, err, sizeof(err));
	if (ret != code)
		kt_fail(t, file, line, "check returned %d, expected %d (%s)",
		        ret, code, ret == 0 ? "accepted" : err);
	else if (strcmp(err, msg) != 0)
		kt_fail(t, file, line, "message \"%s\", expected \"%s\"", err,
		        msg);
}

int
ksym_resolve(void *ctx, const char *name, uint32_t *addr)
{
	const struct ksym *k;

	for (k = ctx; k->name != NULL; k++) {
		if (strcmp(k->name, name) == 0) {
			*addr = k->addr;
			return 0;
		}
	}
	return -ENOENT;
}

int
load_at(struct loaded *l, struct blob b, uint32_t base,
        const struct ksym *ksyms)
{
	size_t n;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = elf_mod_check(&l->m, b.data, b.size, l->err, sizeof(l->err));
	if (ret != 0)
		return ret;
	n = elf_mod_scratch_size(&l->m);
	l->scratch = malloc(n == 0 ? 1 : n);
	ret = elf_mod_layout(&l->m, l->scratch, n);
	if (ret != 0)
		return ret;
	l->image = malloc(l->m.image_size == 0 ? 1 : l->m.image_size);
	memset(l->image, 0xa5, l->m.image_size); /* copy must clear it */
	ret = elf_mod_copy(&l->m, l->image);
	if (ret != 0)
		return ret;
	ret = elf_mod_resolve(&l->m, base, ksym_resolve, (void *)ksyms);
	if (ret != 0)
		return ret;
	return elf_mod_relocate(&l->m, l->image);
}

void
unload(struct loaded *l)
{
	free(l->image);
	free(l->scratch);
	l->image = NULL;
	l->scratch = NULL;
}

uint32_t
image_word(const struct loaded *l, uint32_t off)
{
	const unsigned char *p = l->image + off;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t
sec_off(struct kt *t, const struct loaded *l, const char *name)
{
	int idx = elf_mod_find_section(&l->m, name);

	if (idx < 0 || l->m.sec_off[idx] == ELF_MOD_NOT_LOADED) {
		kt_fail(t, __FILE__, __LINE__, "section %s not loaded", name);
		longjmp(t->abort, 1);
	}
	return l->m.sec_off[idx];
}
