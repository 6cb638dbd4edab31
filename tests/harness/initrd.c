/*
 * Packing boot modules into one archive for QEMU (see initrd.h).
 */
#include "tests/harness/initrd.h"

#include <stdlib.h>
#include <string.h>

#include "scripts/newc_write.h"
#include "tests/harness/util.h"

int
initrd_is_archive(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && strcmp(path + n - 5, ".cpio") == 0;
}

int
initrd_prepare(char *const *modules, int n, const char *archive, char ***out,
               int *nout, char *err, size_t errlen)
{
	char **files = xmalloc(sizeof(char *) * (size_t)(n + 1));
	char **list = xmalloc(sizeof(char *) * (size_t)(n + 1));
	int nfiles = 0, nlist = 0;

	for (int i = 0; i < n; i++) {
		if (initrd_is_archive(modules[i])) {
			list[nlist++] = xstrdup(modules[i]);
			continue;
		}
		/* The archive goes where its first file was. */
		if (nfiles == 0)
			list[nlist++] = xstrdup(archive);
		files[nfiles++] = modules[i];
	}
	if (nfiles > 0 &&
	    newc_write_file(archive, files, nfiles, err, errlen) < 0) {
		free(files);
		initrd_free(list, nlist);
		return -1;
	}
	free(files);
	*out = list;
	*nout = nlist;
	return 0;
}

void
initrd_free(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}
