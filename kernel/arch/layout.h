/*
 * The virtual memory map (docs/memory.md explains each area).  Shared by C
 * and assembly, so only plain constants live here.
 */
#ifndef KERNEL_LAYOUT_H
#define KERNEL_LAYOUT_H

#define PAGE_SIZE  4096
#define PAGE_SHIFT 12

/* Direct map: physical 0..DIRECT_MAP_SIZE at KERNEL_BASE.  Holds the kernel
 * image, page tables, thread stacks and every kmalloc slab. */
#define KERNEL_BASE      0xC0000000
#define DIRECT_MAP_SIZE  0x20000000 /* 512 MiB of RAM at most */
#define DIRECT_MAP_PDES  (DIRECT_MAP_SIZE >> 22)
#define KERNEL_PDE_FIRST (KERNEL_BASE >> 22)

/* vmap area: MMIO (local APIC, I/O APIC, PCI BARs), mapped uncached. */
#define VMAP_BASE 0xE0000000
#define VMAP_END  0xEC000000

/* kfence area: guarded objects (kernel/mm/kfence.h), one slot of a guard
 * page and up to two object pages each, mapped while the object lives. */
#define KFENCE_BASE 0xEC000000
#define KFENCE_END  0xF0000000

/* Module area: module images, mapped page by page, addresses handed out
 * in increasing order so an unloaded module's range stays unmapped
 * (quarantined) for as long as possible. */
#define MODULE_BASE 0xF0000000
#define MODULE_END  0xFFC00000

#define KSTACK_PAGES 4
#define KSTACK_SIZE  (KSTACK_PAGES * PAGE_SIZE)

#endif
