/*
 * cpio newc reader (see newc.h).  Every field is parsed and checked
 * before use; offsets are compared against what is left rather than
 * added, so no 32-bit sum can wrap.
 */
#include <kernel/lib/newc.h>
#if __STDC_HOSTED__
#include <errno.h>
#include <stdio.h>
#include <string.h>
#else
#include <kernel/lib/errno.h>
#include <kernel/lib/string.h>
#endif

/* Field order after the magic (buffer-format.rst). */
enum {
	F_INO,
	F_MODE,
	F_UID,
	F_GID,
	F_NLINK,
	F_MTIME,
	F_FILESIZE,
	F_DEVMAJOR,
	F_DEVMINOR,
	F_RDEVMAJOR,
	F_RDEVMINOR,
	F_NAMESIZE,
	F_CHECK,
	NFIELDS
};

static const char *const field_names[NFIELDS] = {
    "c_ino",       "c_mode",     "c_uid",      "c_gid",      "c_nlink",
    "c_mtime",     "c_filesize", "c_devmajor", "c_devminor", "c_rdevmajor",
    "c_rdevminor", "c_namesize", "c_check"};

static int
bad(struct newc_reader *r, char *err, size_t errlen, size_t at,
    const char *what)
{
	snprintf(err, errlen, "bad cpio archive at offset %lu: %s",
	         (unsigned long)at, what);
	r->off = r->len; /* a reader that failed stays failed */
	r->done = true;
	return -EINVAL;
}

static int
hexdigit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly 8 hex digits; 0 or -1. */
static int
parse_hex8(const unsigned char *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		int d = hexdigit(p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

static size_t
pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

bool
newc_is_archive(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	return len >= 6 && memcmp(p, "07070", 5) == 0 &&
	       (p[5] == '1' || p[5] == '2');
}

void
newc_init(struct newc_reader *r, const void *buf, size_t len)
{
	r->base = buf;
	r->len = len;
	r->off = 0;
	r->done = false;
}

/* After the trailer: only NUL padding may follow. */
static int
check_tail(struct newc_reader *r, char *err, size_t errlen)
{
	for (size_t i = r->off; i < r->len; i++)
		if (r->base[i] != 0)
			return bad(r, err, errlen, i,
			           "data after the TRAILER!!! entry");
	r->off = r->len;
	r->done = true;
	return 0;
}

int
newc_next(struct newc_reader *r, struct newc_entry *e, char *err, size_t errlen)
{
	const unsigned char *h = r->base + r->off;
	size_t at = r->off, left = r->len - r->off, namesz, datasz, skip;
	uint32_t f[NFIELDS], sum = 0;
	bool crc;
	char msg[80];

	if (r->done)
		return r->off == r->len ? 0 : -EINVAL;
	if (left == 0)
		return bad(r, err, errlen, at,
		           "ends without a TRAILER!!! entry");
	if (left < NEWC_HDR_SIZE)
		return bad(r, err, errlen, at, "truncated header");
	if (!newc_is_archive(h, left))
		return bad(r, err, errlen, at,
		           "bad magic (not 070701 or 070702)");
	crc = h[5] == '2';
	for (int i = 0; i < NFIELDS; i++) {
		if (parse_hex8(h + 6 + 8 * i, &f[i]) < 0) {
			snprintf(msg, sizeof(msg), "%s is not 8 hex digits",
			         field_names[i]);
			return bad(r, err, errlen, at, msg);
		}
	}
	namesz = f[F_NAMESIZE];
	datasz = f[F_FILESIZE];
	if (namesz < 2 || namesz > NEWC_NAME_MAX + 1)
		return bad(r, err, errlen, at,
		           "c_namesize out of range (2..1025)");
	left -= NEWC_HDR_SIZE;
	if (namesz > left)
		return bad(r, err, errlen, at, "name runs past the end");
	e->name = (const char *)h + NEWC_HDR_SIZE;
	if (e->name[namesz - 1] != '\0' ||
	    strnlen(e->name, namesz - 1) != namesz - 1)
		return bad(r, err, errlen, at,
		           "name not NUL-terminated at c_namesize");
	skip = namesz + pad4(NEWC_HDR_SIZE + namesz);
	if (skip > left)
		return bad(r, err, errlen, at,
		           "name padding runs past the end");
	left -= skip;
	if (datasz > left)
		return bad(r, err, errlen, at, "file data runs past the end");
	e->data = h + NEWC_HDR_SIZE + skip;
	e->size = (uint32_t)datasz;
	e->mode = f[F_MODE];
	e->offset = (uint32_t)at;
	if (pad4(datasz) > left - datasz)
		return bad(r, err, errlen, at,
		           "data padding runs past the end");
	/* GNU cpio sums regular files only (a link's check is 0). */
	if (crc && (e->mode & NEWC_S_IFMT) == NEWC_S_IFREG) {
		for (size_t i = 0; i < datasz; i++)
			sum += ((const unsigned char *)e->data)[i];
		if (sum != f[F_CHECK])
			return bad(r, err, errlen, at,
			           "c_check does not match the data (070702)");
	} else if (!crc && f[F_CHECK] != 0) {
		return bad(r, err, errlen, at, "c_check is not 0 (070701)");
	}
	if ((e->mode & NEWC_S_IFMT) == NEWC_S_IFDIR && datasz != 0)
		return bad(r, err, errlen, at, "a directory with data");
	r->off += NEWC_HDR_SIZE + skip + datasz + pad4(datasz);
	if (strcmp(e->name, NEWC_TRAILER) == 0)
		return check_tail(r, err, errlen);
	return 1;
}

int
newc_check(const void *buf, size_t len, unsigned *nfiles, char *err,
           size_t errlen)
{
	struct newc_reader r;
	struct newc_entry e;
	int rc;

	*nfiles = 0;
	newc_init(&r, buf, len);
	while ((rc = newc_next(&r, &e, err, errlen)) > 0)
		if ((e.mode & NEWC_S_IFMT) == NEWC_S_IFREG)
			(*nfiles)++;
	return rc;
}

const char *
newc_basename(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash != NULL ? slash + 1 : name;
}
