/*
 * ELF relocatable-object loader core: the part of module loading that
 * needs no hardware, built both into the kernel and into host tests.
 *
 * Loading is a pipeline of checked phases, each returning 0 or -errno and,
 * on failure, one human-readable line in the caller's error buffer:
 *
 *   elf_mod_check()     validate the untrusted file (nothing is trusted
 *                       before this succeeds; afterwards every offset,
 *                       index and size in the file is known to be sane)
 *   elf_mod_layout()    place SHF_ALLOC sections and COMMON symbols in an
 *                       image: text and read-only data, a page boundary,
 *                       then writable data and bss
 *   elf_mod_copy()      fill the image (section bytes, zeroes elsewhere)
 *   elf_mod_resolve()   give every symbol its final address; undefined
 *                       ones come from the caller's callback
 *   elf_mod_relocate()  patch the image for its final address
 *
 * elf_mod_load() runs the whole pipeline with caller-supplied allocators.
 *
 * Rules for callers:
 *  - The core allocates nothing.  Scratch memory (elf_mod_scratch_size()
 *    bytes, 4-byte aligned) and the image come from the caller, so a
 *    failure at any phase leaves nothing behind but what the caller holds.
 *  - The file buffer must stay untouched and alive while the elf_mod is
 *    used: names returned by lookups point into it.  Copy what you keep.
 *  - The image is written through one pointer while relocations use the
 *    final address given to elf_mod_resolve(); they may differ (the kernel
 *    fills the image through a temporary mapping).
 *  - Phases run in order; calling one out of order fails with -EINVAL.
 *    After a failed phase, start again from elf_mod_check().
 */
#ifndef MODLOADER_ELF_MOD_H
#define MODLOADER_ELF_MOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modloader/elf.h"
#include "modloader/elf_errno.h"

#define ELF_MOD_PAGE_SIZE 4096u
/* Largest section or COMMON alignment: the image itself is page-aligned. */
#define ELF_MOD_MAX_ALIGN ELF_MOD_PAGE_SIZE
/* Largest image (SHT_NOBITS sizes are not backed by the file). */
#define ELF_MOD_MAX_IMAGE (64u << 20)
/* sec_off[] value of a section that is not part of the image. */
#define ELF_MOD_NOT_LOADED 0xffffffffu

enum elf_mod_stage {
	ELF_MOD_EMPTY,
	ELF_MOD_CHECKED,
	ELF_MOD_LAID_OUT,
	ELF_MOD_COPIED,
	ELF_MOD_RESOLVED,
	ELF_MOD_RELOCATED,
};

struct elf_mod {
	/* The file, as validated by elf_mod_check(). */
	const unsigned char *data;
	size_t size;
	const Elf32_Ehdr *ehdr;
	const Elf32_Shdr *sec; /* nsec section headers */
	unsigned int nsec;
	const char *secstrings; /* section names (e_shstrndx) */
	uint32_t secstrings_size;
	unsigned int symtab_idx;
	const Elf32_Sym *sym; /* nsym symbols, sym[0] the null symbol */
	unsigned int nsym;
	unsigned int first_global; /* symtab sh_info */
	const char *strtab;        /* symbol names */
	uint32_t strtab_size;

	/* Caller's scratch memory, split by elf_mod_layout(). */
	void *scratch;
	uint32_t *sec_off;  /* [nsec] image offset or ELF_MOD_NOT_LOADED */
	uint32_t *sym_addr; /* [nsym] final address once resolved */

	/* Layout: offsets in the image. */
	uint32_t text_size;   /* executable sections lie in [0, text_size) */
	uint32_t ro_size;     /* [0, ro_size) is text + rodata, page-aligned */
	uint32_t image_size;  /* [ro_size, image_size) is data, bss, COMMON */
	uint32_t common_off;  /* end of bss: COMMON symbols lie in */
	uint32_t common_size; /* [common_off, common_off + common_size) */

	uint32_t base; /* final address of image offset 0 */
	enum elf_mod_stage stage;
	unsigned int nrelocs; /* relocations applied */

	char *err; /* one-line error message, always NUL-terminated */
	size_t errlen;
};

/* Validate data[0..size) as an i386 ELF32 ET_REL object (see elf_check.c
 * for the list of checks).  err may be NULL. */
int elf_mod_check(struct elf_mod *m, const void *data, size_t size, char *err,
                  size_t errlen);

/* Bytes of scratch memory elf_mod_layout() needs. */
size_t elf_mod_scratch_size(const struct elf_mod *m);

int elf_mod_layout(struct elf_mod *m, void *scratch, size_t scratch_size);

/* Write the image: image_size bytes, section contents and zeroes. */
int elf_mod_copy(struct elf_mod *m, void *image);

/*
 * Looks up an undefined symbol.  Returns 0 and sets *addr, -ENOENT if the
 * name is unknown, or another -errno to abort loading.
 */
typedef int (*elf_mod_resolve_fn)(void *ctx, const char *name, uint32_t *addr);

/* Compute every symbol's final address for an image loaded at base (page
 * aligned).  Unknown symbols are all listed in the error; an undefined
 * weak symbol that the callback does not know resolves to 0. */
int elf_mod_resolve(struct elf_mod *m, uint32_t base, elf_mod_resolve_fn fn,
                    void *ctx);

/* Apply every relocation to an image written by elf_mod_copy(). */
int elf_mod_relocate(struct elf_mod *m, void *image);

/* Everything elf_mod_load() needs from its caller. */
struct elf_mod_load_ops {
	void *(*alloc_scratch)(void *ctx, size_t size);
	void (*free_scratch)(void *ctx, void *scratch);
	/* Return the write pointer and set *base to the final address. */
	void *(*alloc_image)(void *ctx, uint32_t size, uint32_t ro_size,
	                     uint32_t *base);
	void (*free_image)(void *ctx, void *image);
	elf_mod_resolve_fn resolve;
	void *ctx;
};

/*
 * The whole pipeline.  On success *image holds the relocated image and
 * m->scratch stays allocated for the lookups below (free it with
 * ops->free_scratch); on failure everything allocated is freed again.
 */
int elf_mod_load(struct elf_mod *m, const void *data, size_t size,
                 const struct elf_mod_load_ops *ops, void **image, char *err,
                 size_t errlen);

/* ---- lookups, valid once the stage named is reached ---------------------- */

/* A symbol as lookups and iterators report it. */
struct elf_mod_sym {
	const char *name; /* points into the file */
	uint32_t addr;    /* final address */
	uint32_t size;
	unsigned char bind; /* STB_* */
	unsigned char type; /* STT_* */
	unsigned int index; /* in the symbol table */
};

/* Index of the first section called name, or -ENOENT.  (CHECKED) */
int elf_mod_find_section(const struct elf_mod *m, const char *name);

/* File contents of section idx (NULL for SHT_NOBITS); lets the caller read
 * .modinfo before deciding to lay anything out.  (CHECKED) */
const void *elf_mod_section_data(const struct elf_mod *m, unsigned int idx,
                                 uint32_t *size);

/* Final address and size of a loaded section: -ENOENT if there is none
 * by that name or it is not SHF_ALLOC.  (RESOLVED) */
int elf_mod_section_addr(const struct elf_mod *m, const char *name,
                         uint32_t *addr, uint32_t *size);

/* A defined global or weak symbol by name.  (RESOLVED) */
int elf_mod_find_symbol(const struct elf_mod *m, const char *name,
                        struct elf_mod_sym *out);

/* Calls fn for each symbol selected; a nonzero return from fn stops the
 * walk and is returned.  (RESOLVED) */
typedef int (*elf_mod_sym_fn)(void *ctx, const struct elf_mod_sym *sym);

/* Defined global and weak symbols in the image or absolute: what the
 * module could export. */
int elf_mod_for_each_global(const struct elf_mod *m, elf_mod_sym_fn fn,
                            void *ctx);

/* Every function (STT_FUNC, local ones too) with its size: the module's
 * own symbol table for backtraces and use-after-unload reports. */
int elf_mod_for_each_func(const struct elf_mod *m, elf_mod_sym_fn fn,
                          void *ctx);

/* Name of relocation type t ("R_386_PC32"), or NULL if unknown. */
const char *elf_mod_reloc_name(unsigned int t);

/* ---- .modinfo (elf_modinfo.c): the one reader of the "key=value" strings,
 * for insmod, modinfo, and driver autoload by alias. ---------------------- */

#define ELF_MODINFO_ENTRY_MAX 512 /* bytes of one entry, NUL excluded */

struct elf_modinfo {
	const char *data; /* the section (or the kernel's copy of it) */
	uint32_t size;
};

struct elf_modinfo_entry {
	const char *key; /* not NUL-terminated at the '=' */
	uint32_t keylen;
	const char *value; /* NUL-terminated */
};

/* Checks data[0..size) as .modinfo contents: not empty; the last byte is
 * NUL, so no string runs past the end; every entry is "key=value" with a
 * non-empty key and at most ELF_MODINFO_ENTRY_MAX bytes; NUL bytes between
 * entries (alignment padding) are allowed.  0 with *mi set, or -ENOEXEC
 * and one line in err. */
int elf_modinfo_check(struct elf_modinfo *mi, const void *data, uint32_t size,
                      char *err, size_t errlen);

/* The .modinfo section of m, checked as above; -ENOEXEC if it has none.
 * (CHECKED) */
int elf_mod_modinfo(const struct elf_mod *m, struct elf_modinfo *mi, char *err,
                    size_t errlen);

/* The entry at or after *pos (start with 0): 1 with *e set and *pos
 * moved past it, 0 at the end.  Only on what elf_modinfo_check accepted. */
int elf_modinfo_next(const struct elf_modinfo *mi, uint32_t *pos,
                     struct elf_modinfo_entry *e);

/* Does mi have an entry key=value (exactly)? */
bool elf_modinfo_has(const struct elf_modinfo *mi, const char *key,
                     const char *value);

#endif /* MODLOADER_ELF_MOD_H */
