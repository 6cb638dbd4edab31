/*
 * Boot modules for QEMU: one cpio newc archive instead of one multiboot
 * module per file (QEMU and the kernel take at most 32 of those).
 * initrd_prepare() packs the given files into an archive
 * (scripts/newc_write.h) and returns what to pass to -initrd: that
 * archive, plus every file named *.cpio as it is (an archive made
 * beforehand, such as build/initrd.cpio, or a damaged one for a test),
 * in the order given.
 */
#ifndef HARNESS_INITRD_H
#define HARNESS_INITRD_H

#include <stddef.h>

/* Is path a prebuilt archive (*.cpio), passed through unpacked? */
int initrd_is_archive(const char *path);

/*
 * modules[0..n) -> the -initrd list in *out (*nout entries; free with
 * initrd_free).  archive is written only if some file is not *.cpio.
 * Returns 0, or -1 with one line in err.
 */
int initrd_prepare(char *const *modules, int n, const char *archive,
                   char ***out, int *nout, char *err, size_t errlen);
void initrd_free(char **list, int n);

#endif
