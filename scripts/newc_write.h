/*
 * Writer of cpio "newc" archives of boot modules (the reader is
 * kernel/lib/newc.c).  Each file is stored under its basename, mode 0100644,
 * owner 0, mtime 0, so the same files always make the same archive.
 * Used by scripts/mkinitrd.c (make run, the ISO) and the harness
 * (scenario `modules`).
 */
#ifndef SCRIPTS_NEWC_WRITE_H
#define SCRIPTS_NEWC_WRITE_H

#include <stddef.h>

/* The kernel's limit for a boot module name, NUL excluded
 * (kernel/bootmod.h). */
#define NEWC_WRITE_NAME_MAX 63

/*
 * Write an archive of paths[0..n) to out.  Refuses (-1, one line in err)
 * a file that cannot be read or is not a regular file, an empty name or
 * one longer than NEWC_WRITE_NAME_MAX, two files with the same basename,
 * and a file of 4 GiB or more.  On error out is incomplete: write to a
 * temporary file and rename it (newc_write_file does).
 */
int newc_write_archive(int outfd, char *const *paths, int n, char *err,
                       size_t errlen);

/*
 * A tree with the modes and paths the caller chooses (the Linux guest's
 * initramfs for make bench-linux, which needs directories and an
 * executable /init): e[i].name is the path in the archive (relative, no
 * leading '/'), e[i].mode the whole st_mode, S_IFDIR with src NULL or
 * S_IFREG with the file src to copy.  Parents must come before their
 * children.  -1 with one line in err, as newc_write_archive.
 */
struct newc_tree_entry {
	const char *name;
	unsigned mode;
	const char *src;
};
int newc_write_tree(int outfd, const struct newc_tree_entry *e, int n,
                    char *err, size_t errlen);

/* The same into path (through path.tmp and rename); 0 or -1. */
int newc_write_file(const char *path, char *const *paths, int n, char *err,
                    size_t errlen);

#endif
