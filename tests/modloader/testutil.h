/*
 * Helpers for the loader unit tests: read the test modules built by
 * host.mk, reach into their headers to craft bad inputs, and run the
 * loader phases with a table of "kernel" symbols.
 */
#ifndef TESTS_MODLOADER_TESTUTIL_H
#define TESTS_MODLOADER_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "modloader/elf_mod.h"
#include "tests/lib/ktap.h"

#ifndef ML_BUILD_DIR
#define ML_BUILD_DIR "build/host/modloader"
#endif
#define ML_SRC_DIR "tests/modloader"

/* A file in memory, 4-byte aligned (malloc) like the kernel's copy. */
struct blob {
	unsigned char *data;
	size_t size;
};

/* Reads path; on failure reports it and ends the test case. */
struct blob blob_read(struct kt *t, const char *path);
/* Reads ML_BUILD_DIR/mods/NAME.o. */
struct blob mod_read(struct kt *t, const char *name);
struct blob blob_dup(struct blob b);
void blob_free(struct blob *b);

/* Raw access to a (possibly mutated) file; indices are not checked
 * beyond what the test asserts. */
Elf32_Ehdr *blob_ehdr(struct blob b);
Elf32_Shdr *blob_shdr(struct blob b, unsigned int i);
/* Index of the section named name in an unmodified file, or ends the
 * test case. */
unsigned int blob_sec(struct kt *t, struct blob b, const char *name);
/* Index of the symbol named name, or ends the test case. */
unsigned int blob_sym(struct kt *t, struct blob b, const char *name);
Elf32_Sym *blob_symp(struct blob b, unsigned int i);
Elf32_Rel *blob_rel(struct blob b, unsigned int sec, unsigned int j);

/* Runs elf_mod_check() on b, expecting failure with code and message. */
void expect_reject(struct kt *t, struct blob b, int code, const char *msg,
                   const char *file, int line);
#define EXPECT_REJECT(t, b, code, msg)                                         \
	expect_reject(t, b, code, msg, __FILE__, __LINE__)

/* A symbol the test "kernel" exports. */
struct ksym {
	const char *name;
	uint32_t addr;
};

/* A module loaded by the individual phases. */
struct loaded {
	struct elf_mod m;
	unsigned char *image;
	void *scratch;
	char err[256];
};

/* check + layout + copy + resolve(base, syms) + relocate; returns the
 * first error (l->err says what).  ksyms ends with a {NULL, 0} entry. */
int load_at(struct loaded *l, struct blob b, uint32_t base,
            const struct ksym *ksyms);
void unload(struct loaded *l);
/* Resolver over a {NULL, 0}-terminated struct ksym table (ctx). */
int ksym_resolve(void *ctx, const char *name, uint32_t *addr);

/* Little-endian word at image offset off. */
uint32_t image_word(const struct loaded *l, uint32_t off);
/* Image offset of a loaded section by name, or ends the test case. */
uint32_t sec_off(struct kt *t, const struct loaded *l, const char *name);

#endif
