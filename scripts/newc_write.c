/*
 * cpio newc writer (see newc_write.h).
 */
#include "scripts/newc_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Header, name and padding to 4 bytes (every entry starts aligned). */
static int
write_header(int fd, uint32_t ino, uint32_t mode, uint32_t size,
             const char *name)
{
	static const char zeros[4];
	char hdr[111];
	size_t namesz = strlen(name) + 1;

	snprintf(hdr, sizeof(hdr),
	         "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
	         ino, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, 0u, 0u,
	         (unsigned)namesz, 0u);
	if (write_all(fd, hdr, 110) < 0 || write_all(fd, name, namesz) < 0)
		return -1;
	return write_all(fd, zeros, (4 - (110 + namesz) % 4) % 4);
}

static int
check_names(char *const *paths, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const char *b = base_of(paths[i]);
		size_t len = strlen(b);

		if (len == 0 || len > NEWC_WRITE_NAME_MAX) {
			snprintf(err, errlen,
			         "%s: file name must be 1..%d bytes", paths[i],
			         NEWC_WRITE_NAME_MAX);
			return -1;
		}
		for (int j = 0; j < i; j++) {
			if (strcmp(base_of(paths[j]), b) == 0) {
				snprintf(err, errlen,
				         "%s and %s: two boot modules named %s",
				         paths[j], paths[i], b);
				return -1;
			}
		}
	}
	return 0;
}

/* The file at path, stored as name with mode (S_IFREG | permissions). */
static int
add_file(int outfd, const char *path, const char *name, uint32_t mode,
         uint32_t ino, char *err, size_t errlen)
{
	static const char zeros[4];
	struct stat st;
	char *buf = NULL;
	int fd, rc = -1;
	size_t got = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size >= UINT32_MAX) {
		snprintf(err, errlen, "%s: 4 GiB or more", path);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s: %s", path,
			         r < 0 ? strerror(errno) : "shrank while read");
			goto out;
		}
		got += (size_t)r;
	}
	if (write_header(outfd, ino, mode, (uint32_t)got, name) < 0 ||
	    write_all(outfd, buf, got) < 0 ||
	    write_all(outfd, zeros, (4 - got % 4) % 4) < 0) {
		snprintf(err, errlen, "writing the archive: %s",
		         strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int
write_trailer(int outfd, char *err, size_t errlen)
{
	if (write_header(outfd, 0, 0, 0, "TRAILER!!!") < 0) {
		snprintf(err, errlen, "writing the archive: %s",
		         strerror(errno));
		return -1;
	}
	return 0;
}

int
newc_write_archive(int outfd, char *const *paths, int n, char *err,
                   size_t errlen)
{
	if (check_names(paths, n, err, errlen) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (add_file(outfd, paths[i], base_of(paths[i]), 0100644,
		             (uint32_t)i + 1, err, errlen) < 0)
			return -1;
	return write_trailer(outfd, err, errlen);
}

int
newc_write_tree(int outfd, const struct newc_tree_entry *e, int n, char *err,
                size_t errlen)
{
	for (int i = 0; i < n; i++) {
		uint32_t ino = (uint32_t)i + 1;

		if (e[i].name[0] == '\0' || e[i].name[0] == '/' ||
		    (e[i].src == NULL) != S_ISDIR(e[i].mode) ||
		    (e[i].src != NULL && !S_ISREG(e[i].mode))) {
			snprintf(err, errlen, "'%s': bad entry", e[i].name);
			return -1;
		}
		if (e[i].src != NULL) {
			if (add_file(outfd, e[i].src, e[i].name, e[i].mode, ino,
			             err, errlen) < 0)
				return -1;
		} else if (write_header(outfd, ino, e[i].mode, 0, e[i].name) <
		           0) {
			snprintf(err, errlen, "writing the archive: %s",
			         strerror(errno));
			return -1;
		}
	}
	return write_trailer(outfd, err, errlen);
}

int
newc_write_file(const char *path, char *const *paths, int n, char *err,
                size_t errlen)
{
	size_t len = strlen(path) + 5;
	char *tmp = malloc(len);
	int fd, rc;

	if (tmp == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(tmp, len, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	rc = newc_write_archive(fd, paths, n, err, errlen);
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, path) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
