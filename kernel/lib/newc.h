/*
 * Reader of cpio "newc" archives (the format of Linux's initramfs, see
 * Documentation/driver-api/early-userspace/buffer-format.rst): how boot
 * modules arrive, as one archive instead of one multiboot module each.
 *
 * The archive comes from outside the kernel, so it is hostile: newc_next()
 * checks every field of every header before anything in it is used, and a
 * bad archive gives one line naming the offset and the problem.  Callers
 * should walk the whole archive once with newc_check() before acting on
 * any entry, so a bad archive leaves nothing half-registered.
 *
 * Pure code (no allocation, no globals): it builds for the host too, for
 * the unit tests and the fuzzer in tests/initrd/.
 */
#ifndef KERNEL_NEWC_H
#define KERNEL_NEWC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NEWC_HDR_SIZE 110 /* magic (6) + 13 fields of 8 hex digits */
#define NEWC_TRAILER  "TRAILER!!!"

/* File types of c_mode (the S_IFMT bits). */
#define NEWC_S_IFMT  0170000
#define NEWC_S_IFREG 0100000
#define NEWC_S_IFDIR 0040000
#define NEWC_S_IFLNK 0120000

struct newc_entry {
	const char *name; /* NUL-terminated, inside the archive */
	const void
	    *data; /* inside the archive, 4-byte aligned from its start */
	uint32_t size;
	uint32_t mode;
	uint32_t offset; /* of the header, for messages */
};

struct newc_reader {
	const unsigned char *base;
	size_t len;
	size_t off;
	bool done; /* the trailer was read */
};

/* Does buf start like a newc archive (magic 070701 or 070702)? */
bool newc_is_archive(const void *buf, size_t len);

void newc_init(struct newc_reader *r, const void *buf, size_t len);

/*
 * The next entry.  Returns 1 with *e filled, 0 at the end (after the
 * trailer, when only NUL padding follows), or -EINVAL with one line in
 * err.  Checks, for each header: the magic; every field is exactly 8 hex
 * digits; c_check is 0 for 070701, and for 070702 the byte sum of a
 * regular file's data (GNU cpio leaves it 0 for links and the like); c_namesize
 * counts a name of 1..NEWC_NAME_MAX bytes plus its NUL and the name has no NUL
 * before its end; header, name, their padding to 4 bytes, the data and its
 * padding all lie inside the archive; a directory carries no data; the name is
 * not empty.  After the trailer: nothing but NUL bytes.  An archive that ends
 * without a trailer is bad.
 */
#define NEWC_NAME_MAX 1024
int newc_next(struct newc_reader *r, struct newc_entry *e, char *err,
              size_t errlen);

/* Walk the whole archive; 0 with *nfiles regular files, or -EINVAL. */
int newc_check(const void *buf, size_t len, unsigned *nfiles, char *err,
               size_t errlen);

/* The last path component of an entry's name ("a/b/c.ko" -> "c.ko"). */
const char *newc_basename(const char *name);

#endif
