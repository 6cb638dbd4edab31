/*
 * Modules that arrive at run time (fetched over TFTP, net/apps/tftp.c): the
 * file is copied into pages of its own and listed with the boot modules,
 * under its name, so the ordinary pipeline (load.c, which finds files by
 * boot-module name) loads it and `insmod -l` shows it.  Like a boot
 * module, the copy stays for the life of the system (a later insmod of
 * the same name loads it again); adding a second file of the same name
 * is refused.
 */
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/bootmod.h>
#include <kernel/locking/mutex.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/lib/string.h>
#include "modloader/module_internal.h"
#include "modloader/load.h"

#define NETLOAD_MAX (4u << 20) /* 4 MiB: far more than any module here */

static DEFINE_MUTEX(netload_mutex);

int
module_add_buffer(const char *name, const void *data, size_t size, char *err,
                  size_t errlen)
{
	unsigned npages;
	void *copy;
	int r;

	if (name[0] == '\0' || strlen(name) >= BOOT_MODULE_NAME_MAX ||
	    strchr(name, '/') != NULL) {
		snprintf(err, errlen, "bad module file name '%.40s'", name);
		return -EINVAL;
	}
	if (size == 0 || size > NETLOAD_MAX) {
		snprintf(err, errlen, "%s: %zu bytes (1 to %u)", name, size,
		         NETLOAD_MAX);
		return -EFBIG;
	}
	npages = (unsigned)((size + 4095) / 4096);
	mutex_lock(&netload_mutex);
	if (boot_module_find(name) != NULL) {
		snprintf(err, errlen, "a module file named %s exists already",
		         name);
		r = -EEXIST;
		goto out;
	}
	/* Contiguous, direct-mapped and page-aligned, as a loader would
	 * have placed it: load.c reads it through P2V(start). */
	copy = alloc_pages(npages, "netload");
	if (copy == NULL) {
		r = -ENOMEM;
		goto nomem;
	}
	memcpy(copy, data, size);
	r = boot_module_add(name, V2P(copy), V2P(copy) + size);
	if (r != 0) {
		free_pages(copy, npages);
		goto nomem;
	}
out:
	mutex_unlock(&netload_mutex);
	return r;
nomem:
	snprintf(err, errlen, "cannot keep %s (%zu bytes)", name, size);
	goto out;
}
