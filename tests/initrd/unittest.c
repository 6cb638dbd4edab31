/*
 * initrd-unittest: the cpio newc reader (kernel/lib/newc.c) on the host,
 * against archives from our writer (scripts/newc_write.c), hand-made
 * damaged ones, every truncation of a good one, and (arguments) archives
 * made by other tools, e.g. GNU cpio -H newc.  KTAP v1 on stdout.
 *
 *   initrd-unittest [ARCHIVE...]   each ARCHIVE must read cleanly
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/lib/newc.h"
#include "scripts/newc_write.h"
#include "tests/lib/ktap.h"

#define BUF_MAX (1 << 20)

static unsigned char buf[BUF_MAX];
static size_t buflen;
static char **extra_archives;
static int nextra;

/* Append one header (fields in order after the magic) and a name. */
static void
put_entry(const char *magic, const unsigned f[13], const char *name,
          const void *data, size_t size)
{
	int n = snprintf((char *)buf + buflen, BUF_MAX - buflen, "%s", magic);

	for (int i = 0; i < 13; i++)
		n += snprintf((char *)buf + buflen + n, BUF_MAX - buflen - n,
		              "%08X", f[i]);
	buflen += (size_t)n;
	/* Names of the damaged headers may claim more than they have:
	 * copy at most the literal (and its NUL). */
	size_t nb = f[11] < strlen(name) + 1 ? f[11] : strlen(name) + 1;
	if (f[11] == 5 && name[0] == 'a')
		nb = 5; /* "a.koX", "a\0ko": exactly as written */
	memcpy(buf + buflen, name, nb);
	buflen += nb;
	while (buflen % 4)
		buf[buflen++] = 0;
	memcpy(buf + buflen, data, size);
	buflen += size;
	while (buflen % 4)
		buf[buflen++] = 0;
}

static void
put_file(const char *name, const char *text)
{
	unsigned f[13] = {1,
	                  0100644,
	                  0,
	                  0,
	                  1,
	                  0,
	                  (unsigned)strlen(text),
	                  0,
	                  0,
	                  0,
	                  0,
	                  (unsigned)strlen(name) + 1,
	                  0};
	put_entry("070701", f, name, text, strlen(text));
}

static void
put_trailer(void)
{
	unsigned f[13] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0};
	put_entry("070701", f, "TRAILER!!!", "", 0);
}

/* Read the whole of buf; the error text (or "") in err. */
static int
read_all(char *err, size_t errlen, unsigned *nfiles)
{
	err[0] = '\0';
	return newc_check(buf, buflen, nfiles, err, errlen);
}

static void
expect_bad(struct kt *t, const char *why)
{
	char err[160];
	unsigned n;

	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), -EINVAL);
	if (strstr(err, why) == NULL)
		kt_fail(t, __FILE__, __LINE__, "error '%s' lacks '%s'", err,
		        why);
}

static void
good_two_files(struct kt *t)
{
	struct newc_reader r;
	struct newc_entry e;
	char err[160];

	buflen = 0;
	put_file("a.ko", "hello");
	put_file("dir/b.ko", "world!!");
	put_trailer();
	newc_init(&r, buf, buflen);
	KT_ASSERT(t, newc_next(&r, &e, err, sizeof(err)) == 1);
	KT_EXPECT_STREQ(t, e.name, "a.ko");
	KT_EXPECT_EQ(t, e.size, 5);
	KT_EXPECT(t, memcmp(e.data, "hello", 5) == 0);
	KT_EXPECT_EQ(t, ((const unsigned char *)e.data - buf) % 4, 0);
	KT_ASSERT(t, newc_next(&r, &e, err, sizeof(err)) == 1);
	KT_EXPECT_STREQ(t, newc_basename(e.name), "b.ko");
	KT_EXPECT_EQ(t, e.mode, 0100644);
	KT_EXPECT_EQ(t, ((const unsigned char *)e.data - buf) % 4, 0);
	KT_EXPECT_EQ(t, newc_next(&r, &e, err, sizeof(err)), 0);
	KT_EXPECT_EQ(t, newc_next(&r, &e, err, sizeof(err)), 0);
}

static void
empty_archive(struct kt *t)
{
	char err[160];
	unsigned n = 99;

	buflen = 0;
	put_trailer();
	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), 0);
	KT_EXPECT_EQ(t, n, 0);
}

static void
no_trailer(struct kt *t)
{
	buflen = 0;
	put_file("a.ko", "x");
	expect_bad(t, "ends without a TRAILER!!! entry");
	buflen = 0;
	expect_bad(t, "ends without a TRAILER!!! entry");
}

static void
bad_magic(struct kt *t)
{
	buflen = 0;
	put_file("a.ko", "x");
	put_trailer();
	memcpy(buf, "070707", 6); /* the old binary-compatible "odc" */
	expect_bad(t, "at offset 0: bad magic");
}

/* Every one of the 13 fields, one non-hex character each. */
static void
bad_hex_each_field(struct kt *t)
{
	static const char *const names[] = {
	    "c_ino",      "c_mode",      "c_uid",       "c_gid",
	    "c_nlink",    "c_mtime",     "c_filesize",  "c_devmajor",
	    "c_devminor", "c_rdevmajor", "c_rdevminor", "c_namesize",
	    "c_check"};
	char why[64];

	for (int i = 0; i < 13; i++) {
		buflen = 0;
		put_file("a.ko", "x");
		put_trailer();
		buf[6 + 8 * i + 3] = 'g';
		snprintf(why, sizeof(why), "%s is not 8 hex digits", names[i]);
		expect_bad(t, why);
		buf[6 + 8 * i + 3] = ' '; /* no blanks or signs either */
		expect_bad(t, why);
	}
}

static void
check_field(struct kt *t)
{
	unsigned f[13] = {1, 0100644, 0, 0, 1, 0, 3, 0, 0, 0, 0, 5, 7};
	char err[160];
	unsigned n;

	buflen = 0;
	put_entry("070701", f, "a.ko", "abc", 3);
	put_trailer();
	expect_bad(t, "c_check is not 0 (070701)");
	f[12] = 'a' + 'b' + 'c';
	buflen = 0;
	put_entry("070702", f, "a.ko", "abc", 3);
	put_trailer();
	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), 0);
	KT_EXPECT_EQ(t, n, 1);
	f[12]++;
	buflen = 0;
	put_entry("070702", f, "a.ko", "abc", 3);
	put_trailer();
	expect_bad(t, "c_check does not match the data");
	/* GNU cpio -H crc sums regular files only: a link's check is 0. */
	f[1] = NEWC_S_IFLNK | 0777;
	f[12] = 0;
	buflen = 0;
	put_entry("070702", f, "a.ko", "abc", 3);
	put_trailer();
	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), 0);
	KT_EXPECT_EQ(t, n, 0);
}

static void
bad_names(struct kt *t)
{
	unsigned f[13] = {1, 0100644, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0};

	buflen = 0; /* namesize 1: an empty name */
	put_entry("070701", f, "", "", 0);
	put_trailer();
	expect_bad(t, "c_namesize out of range");
	f[11] = 0;
	buflen = 0;
	put_entry("070701", f, "", "", 0);
	put_trailer();
	expect_bad(t, "c_namesize out of range");
	f[11] = 5; /* "a.ko" without its NUL: 5 bytes "a.koX" */
	buflen = 0;
	put_entry("070701", f, "a.koX", "", 0);
	put_trailer();
	expect_bad(t, "name not NUL-terminated");
	buflen = 0; /* a NUL inside */
	put_entry("070701", f, "a\0ko", "", 0);
	put_trailer();
	expect_bad(t, "name not NUL-terminated");
	f[11] = NEWC_NAME_MAX + 2;
	buflen = 0;
	put_entry("070701", f, "", "", 0);
	expect_bad(t, "c_namesize out of range");
	f[11] = 0xffffffffu;
	buflen = 0;
	put_entry("070701", f, "", "", 0);
	expect_bad(t, "c_namesize out of range");
}

static void
huge_sizes(struct kt *t)
{
	unsigned f[13] = {1, 0100644, 0, 0, 1, 0, 0xffffffffu,
	                  0, 0,       0, 0, 5, 0};

	buflen = 0;
	put_entry("070701", f, "a.ko", "", 0);
	put_trailer();
	expect_bad(t, "file data runs past the end");
	f[6] = 0xfffffffcu;
	buflen = 0;
	put_entry("070701", f, "a.ko", "", 0);
	put_trailer();
	expect_bad(t, "file data runs past the end");
}

static void
directory_with_data(struct kt *t)
{
	unsigned f[13] = {1, 0040755, 0, 0, 2, 0, 2, 0, 0, 0, 0, 2, 0};

	buflen = 0;
	put_entry("070701", f, "d", "xy", 2);
	put_trailer();
	expect_bad(t, "a directory with data");
}

static void
after_trailer(struct kt *t)
{
	char err[160];
	unsigned n;

	buflen = 0;
	put_file("a.ko", "x");
	put_trailer();
	memset(buf + buflen, 0, 512); /* GNU cpio pads to 512-byte blocks */
	buflen += 512;
	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), 0);
	buf[buflen - 1] = 1;
	expect_bad(t, "data after the TRAILER!!! entry");
}

/* Cut a good archive at every length: each prefix is refused, none
 * reads out of bounds (ASan watches; the copy is exactly that long). */
static void
every_truncation(struct kt *t)
{
	char err[160];
	unsigned n;
	size_t full;

	buflen = 0;
	put_file("a.ko", "hello");
	put_file("b.ko", "0123456789");
	put_trailer();
	full = buflen;
	for (size_t len = 0; len < full; len++) {
		unsigned char *copy = malloc(len ? len : 1);
		memcpy(copy, buf, len);
		if (newc_check(copy, len, &n, err, sizeof(err)) != -EINVAL)
			kt_fail(t, __FILE__, __LINE__,
			        "prefix of %zu bytes accepted", len);
		free(copy);
	}
}

/* The writer and the reader agree, and the writer refuses what the
 * kernel would not take. */
static void
writer_roundtrip(struct kt *t)
{
	char dir[] = "/tmp/initrd-ut-XXXXXX", p1[64], p2[64], p3[128], out[64],
	     err[256];
	char *files[3] = {p1, p2, p3};
	unsigned n;
	FILE *f;
	int fd;
	ssize_t got;

	KT_ASSERT(t, mkdtemp(dir) != NULL);
	snprintf(p1, sizeof(p1), "%s/one.ko", dir);
	snprintf(p2, sizeof(p2), "%s/two.ko", dir);
	snprintf(out, sizeof(out), "%s/out.cpio", dir);
	f = fopen(p1, "w");
	fputs("1", f);
	fclose(f);
	f = fopen(p2, "w");
	fputs("22", f);
	fclose(f);
	KT_EXPECT_EQ(t, newc_write_file(out, files, 2, err, sizeof(err)), 0);
	fd = open(out, O_RDONLY);
	KT_ASSERT(t, fd >= 0);
	got = read(fd, buf, BUF_MAX);
	close(fd);
	KT_ASSERT(t, got > 0);
	buflen = (size_t)got;
	KT_EXPECT_EQ(t, read_all(err, sizeof(err), &n), 0);
	KT_EXPECT_EQ(t, n, 2);
	/* Same basename twice. */
	snprintf(p3, sizeof(p3), "%s/../%s/one.ko", dir, dir + 5);
	files[1] = p3;
	KT_EXPECT_EQ(t, newc_write_file(out, files, 2, err, sizeof(err)), -1);
	KT_EXPECT(t, strstr(err, "two boot modules named one.ko") != NULL);
	/* A name the kernel could not keep. */
	snprintf(p3, sizeof(p3), "%s/%070d.ko", dir, 0);
	KT_EXPECT_EQ(t, newc_write_file(out, files + 1, 1, err, sizeof(err)),
	             -1);
	KT_EXPECT(t, strstr(err, "file name must be 1..63 bytes") != NULL);
	/* Missing file, directory. */
	files[1] = dir;
	KT_EXPECT_EQ(t, newc_write_file(out, files + 1, 1, err, sizeof(err)),
	             -1);
	KT_EXPECT(t, strstr(err, "not a regular file") != NULL);
	unlink(p1);
	unlink(p2);
	unlink(out);
	rmdir(dir);
}

static void
basenames(struct kt *t)
{
	KT_EXPECT_STREQ(t, newc_basename("a.ko"), "a.ko");
	KT_EXPECT_STREQ(t, newc_basename("./lib/a.ko"), "a.ko");
	KT_EXPECT_STREQ(t, newc_basename("dir/"), "");
}

/* Archives made by other tools: each must read to its end. */
static void
other_tools(struct kt *t)
{
	char err[160];
	unsigned n;

	for (int i = 0; i < nextra; i++) {
		int fd = open(extra_archives[i], O_RDONLY);
		ssize_t got;

		KT_ASSERT(t, fd >= 0);
		got = read(fd, buf, BUF_MAX);
		close(fd);
		KT_ASSERT(t, got > 0 && got < BUF_MAX);
		buflen = (size_t)got;
		if (read_all(err, sizeof(err), &n) != 0)
			kt_fail(t, __FILE__, __LINE__, "%s: %s",
			        extra_archives[i], err);
		else
			kt_diag("%s: %u file(s)", extra_archives[i], n);
	}
}

static const struct kt_case reader_cases[] = {
    KT_CASE(good_two_files),      KT_CASE(empty_archive),
    KT_CASE(no_trailer),          KT_CASE(bad_magic),
    KT_CASE(bad_hex_each_field),  KT_CASE(check_field),
    KT_CASE(bad_names),           KT_CASE(huge_sizes),
    KT_CASE(directory_with_data), KT_CASE(after_trailer),
    KT_CASE(every_truncation),    KT_CASE(basenames),
    KT_CASE(other_tools),         KT_END};
static const struct kt_suite reader_suite = {"newc", reader_cases};

static const struct kt_case writer_cases[] = {KT_CASE(writer_roundtrip),
                                              KT_END};
static const struct kt_suite writer_suite = {"mkinitrd", writer_cases};

int
main(int argc, char **argv)
{
	static const struct kt_suite *const suites[] = {&reader_suite,
	                                                &writer_suite};

	extra_archives = argv + 1;
	nextra = argc - 1;
	return kt_run(suites, 2);
}
