/*
 * What the bootloader told us, copied out of the multiboot information
 * structure (Multiboot Specification 0.6.96, sec. 3.3) and validated.
 * The loader's modules (GRUB "module" lines, QEMU -initrd) are boot
 * images: each is a cpio newc archive of boot modules or one module file
 * (kernel/bootmod.h turns them into the boot module table).  They stay
 * where the loader put them; their pages are reserved for the life of
 * the system.
 */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include <stdint.h>
#include <stddef.h>

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002
#define MAX_BOOT_IMAGES            32
#define MAX_MEM_REGIONS            32

struct boot_image {
	char name[64];        /* basename of the module's command line */
	uintptr_t start, end; /* physical */
};

struct mem_region {
	uint64_t base, len;
};

struct boot_info {
	char cmdline[1024]; /* a staged image path can be long */
	char loader[32];
	struct mem_region ram[MAX_MEM_REGIONS];
	int nram;
	struct boot_image images[MAX_BOOT_IMAGES];
	int nimages;
	uintptr_t ram_top;    /* end of usable RAM within the direct map */
	uint64_t ram_ignored; /* RAM bytes above the direct map */
};

extern struct boot_info boot_info;

/* Parse the info block at physical mbi; returns 0 or a negative errno
 * with a reason printed. */
int multiboot_parse(uint32_t magic, uint32_t mbi_phys);

#endif
