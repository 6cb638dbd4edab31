/*
 * The .modinfo reader (modloader/elf_modinfo.c) against hostile input:
 * unterminated strings, entries that are not key=value, overlong entries,
 * a missing section, and a real module's section with its last NUL
 * overwritten.  What it accepts, it walks exactly (padding skipped,
 * alias lookups exact, not by prefix).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/modloader/testutil.h"

/* A string literal's bytes, its own terminating NUL included. */
#define RAW(s) s, sizeof(s)

static int
check(const char *data, uint32_t size, char *err, size_t errlen)
{
	struct elf_modinfo mi;

	err[0] = '\0';
	return elf_modinfo_check(&mi, data, size, err, errlen);
}

static void
walks_entries_and_padding(struct kt *t)
{
	static const char info[] =
	    "name=e1000\0\0\0alias=pci:v00008086d0000100E"
	    "\0license=GPL\0k==v";
	struct elf_modinfo mi;
	struct elf_modinfo_entry e;
	uint32_t pos = 0;
	char err[128];

	KT_ASSERT(t, elf_modinfo_check(&mi, RAW(info), err, sizeof(err)) == 0);
	KT_ASSERT(t, elf_modinfo_next(&mi, &pos, &e) == 1);
	KT_EXPECT_EQ(t, e.keylen, 4);
	KT_EXPECT(t, strncmp(e.key, "name", 4) == 0);
	KT_EXPECT_STREQ(t, e.value, "e1000");
	KT_ASSERT(t, elf_modinfo_next(&mi, &pos, &e) == 1);
	KT_EXPECT_STREQ(t, e.value, "pci:v00008086d0000100E");
	KT_ASSERT(t, elf_modinfo_next(&mi, &pos, &e) == 1);
	KT_EXPECT_STREQ(t, e.value, "GPL");
	/* The key ends at the first '='. */
	KT_ASSERT(t, elf_modinfo_next(&mi, &pos, &e) == 1);
	KT_EXPECT_EQ(t, e.keylen, 1);
	KT_EXPECT_STREQ(t, e.value, "=v");
	KT_EXPECT_EQ(t, elf_modinfo_next(&mi, &pos, &e), 0);
	KT_EXPECT_EQ(t, elf_modinfo_next(&mi, &pos, &e), 0);
	KT_EXPECT(t, elf_modinfo_has(&mi, "alias", "pci:v00008086d0000100E"));
	KT_EXPECT(t, !elf_modinfo_has(&mi, "alias", "pci:v00008086d0000100"));
	KT_EXPECT(t, !elf_modinfo_has(&mi, "alias", "pci:v00008086d0000100EE"));
	KT_EXPECT(t, !elf_modinfo_has(&mi, "alia", "pci:v00008086d0000100E"));
	KT_EXPECT(t,
	          !elf_modinfo_has(&mi, "aliases", "pci:v00008086d0000100E"));
	KT_EXPECT(t, elf_modinfo_has(&mi, "k", "=v"));
}

static void
refuses_unterminated(struct kt *t)
{
	static const char info[] = "name=a\0license=GPL";
	char err[128];

	/* Without the literal's own NUL: the last string runs off the end. */
	KT_EXPECT_EQ(t, check(info, sizeof(info) - 1, err, sizeof(err)),
	             -ENOEXEC);
	KT_EXPECT_STREQ(t, err, ".modinfo is empty or not terminated");
	KT_EXPECT_EQ(t, check(info, 0, err, sizeof(err)), -ENOEXEC);
	KT_EXPECT_EQ(t, check(NULL, 4, err, sizeof(err)), -ENOEXEC);
	/* Only padding: nothing to read, and nothing wrong. */
	KT_EXPECT_EQ(t, check("\0\0\0", 4, err, sizeof(err)), 0);
}

static void
refuses_entries_without_key(struct kt *t)
{
	char err[128];

	KT_EXPECT_EQ(t, check(RAW("name=a\0license"), err, sizeof(err)),
	             -ENOEXEC);
	KT_EXPECT_STREQ(t, err, ".modinfo entry 'license' is not key=value");
	KT_EXPECT_EQ(t, check(RAW("=a"), err, sizeof(err)), -ENOEXEC);
	KT_EXPECT_EQ(t, check(RAW("=a=b"), err, sizeof(err)), -ENOEXEC);
	/* Control bytes are not copied into the error line. */
	KT_EXPECT_EQ(t, check(RAW("\x1b[2J"), err, sizeof(err)), -ENOEXEC);
	KT_EXPECT_STREQ(t, err, ".modinfo entry '?[2J' is not key=value");
}

static void
refuses_overlong(struct kt *t)
{
	size_t max = ELF_MODINFO_ENTRY_MAX;
	char *buf = malloc(max + 2), err[128];

	KT_ASSERT(t, buf != NULL);
	memset(buf, 'x', max + 1);
	buf[0] = 'k';
	buf[1] = '=';
	buf[max] = '\0'; /* max bytes: accepted */
	KT_EXPECT_EQ(t, check(buf, (uint32_t)max + 1, err, sizeof(err)), 0);
	buf[max] = 'x';
	buf[max + 1] = '\0'; /* one more: refused */
	KT_EXPECT_EQ(t, check(buf, (uint32_t)max + 2, err, sizeof(err)),
	             -ENOEXEC);
	KT_EXPECT(t, strstr(err, "is longer than 512 bytes") != NULL);
	/* The quoted part of the entry is bounded. */
	KT_EXPECT(t, strlen(err) < 100);
	free(buf);
}

static void
module_sections(struct kt *t)
{
	struct blob b = mod_read(t, "basic"), r = mod_read(t, "relocs");
	struct blob bad = blob_dup(b);
	struct elf_modinfo mi;
	struct elf_mod m;
	Elf32_Shdr *s;
	char err[160];

	KT_ASSERT(t, elf_mod_check(&m, b.data, b.size, err, sizeof(err)) == 0);
	KT_ASSERT(t, elf_mod_modinfo(&m, &mi, err, sizeof(err)) == 0);
	KT_EXPECT(t, elf_modinfo_has(&mi, "name", "basic"));
	KT_EXPECT(t, elf_modinfo_has(&mi, "license", "GPL"));

	/* No .modinfo at all: not built as a module. */
	KT_ASSERT(t, elf_mod_check(&m, r.data, r.size, err, sizeof(err)) == 0);
	KT_EXPECT_EQ(t, elf_mod_modinfo(&m, &mi, err, sizeof(err)), -ENOEXEC);
	KT_EXPECT(t, strncmp(err, "no .modinfo section", 19) == 0);

	/* The file's section with its last NUL overwritten. */
	s = blob_shdr(bad, blob_sec(t, bad, ".modinfo"));
	bad.data[s->sh_offset + s->sh_size - 1] = 'X';
	KT_ASSERT(t,
	          elf_mod_check(&m, bad.data, bad.size, err, sizeof(err)) == 0);
	KT_EXPECT_EQ(t, elf_mod_modinfo(&m, &mi, err, sizeof(err)), -ENOEXEC);
	KT_EXPECT_STREQ(t, err, ".modinfo is empty or not terminated");
	blob_free(&bad);
	blob_free(&r);
	blob_free(&b);
}

static const struct kt_case modinfo_cases[] = {
    KT_CASE(walks_entries_and_padding),
    KT_CASE(refuses_unterminated),
    KT_CASE(refuses_entries_without_key),
    KT_CASE(refuses_overlong),
    KT_CASE(module_sections),
    KT_END,
};

const struct kt_suite modinfo_suite = {"modloader-modinfo", modinfo_cases};
