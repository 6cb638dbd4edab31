/*
 * The boot module table: every module file the kernel can `insmod`, by
 * name.  Filled at boot from the loader's boot images (kernel/arch/multiboot.h):
 * each regular file of a cpio newc archive (kernel/lib/newc.h) is one boot
 * module named after the file's basename, and an image that is not an
 * archive is one module itself.  Files fetched at run time join it
 * (modloader/netload.c).
 *
 * Entries are never removed and never move, so readers look them up
 * without a lock; boot_module_add() serialises writers and publishes
 * the new count only after the entry is filled.  There is no fixed cap
 * but memory.
 */
#ifndef KERNEL_BOOTMOD_H
#define KERNEL_BOOTMOD_H

#include <stddef.h>
#include <stdint.h>

#define BOOT_MODULE_NAME_MAX 64

struct boot_module {
	char name[BOOT_MODULE_NAME_MAX]; /* file name, e.g. "e1000.ko" */
	uintptr_t start, end;            /* physical, direct-mapped */
};

/* Register the boot images' modules (after kmalloc_init).  A bad archive
 * is refused whole with one line naming it and the problem. */
void boot_modules_init(void);

/* 0, -EINVAL (empty name, '/' or too long), -EEXIST, -ENOMEM. */
int boot_module_add(const char *name, uintptr_t start, uintptr_t end);

int boot_module_count(void);
/* Entry i (0 <= i < boot_module_count()), or NULL. */
const struct boot_module *boot_module_at(int i);
const struct boot_module *boot_module_find(const char *name);

#endif
