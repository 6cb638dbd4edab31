/*
 * Multiboot v1 entry.  The bootloader (GRUB or QEMU -kernel) jumps to
 * _start in protected mode with paging off.  We map the first 512 MiB of
 * physical memory at KERNEL_BASE with 4 MiB pages (plus an identity map of
 * the first 4 MiB so the next instruction still exists), turn paging on and
 * continue in the higher half.  kernel/mm/paging.c later trims the direct map
 * to real RAM and drops the identity map.
 */
#include <kernel/arch/layout.h>

#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003 /* page-align modules, give us the memory map */

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.section .boot.data, "aw"
	.align 4096
	.globl boot_pd
boot_pd:
	.fill 1024, 4, 0

	.section .boot.text, "ax"
	.globl _start
_start:
	cli
	movl %eax, %esi			/* multiboot magic */
	movl %ebx, %edi			/* multiboot info (physical) */

	movl $boot_pd, %edx
	movl $0x83, (%edx)		/* identity 0-4 MiB: present, rw, 4 MiB */
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $22, %eax
	orl $0x83, %eax
	movl %eax, (KERNEL_PDE_FIRST * 4)(%edx, %ecx, 4)
	incl %ecx
	cmpl $DIRECT_MAP_PDES, %ecx
	jb 1b

	movl %cr4, %eax
	orl $0x10, %eax			/* CR4.PSE: 4 MiB pages */
	movl %eax, %cr4
	movl %edx, %cr3
	movl %cr0, %eax
	orl $0x80010000, %eax		/* CR0.PG | CR0.WP */
	movl %eax, %cr0
	movl $higher_half, %eax
	jmp *%eax

	.text
higher_half:
	movl $boot_stack_top, %esp
	xorl %ebp, %ebp			/* ends every backtrace */
	pushl %edi
	pushl %esi
	call kmain
2:	cli
	hlt
	jmp 2b

	.bss
	.align 4096
	.globl boot_stack, boot_stack_top
boot_stack:
	.space KSTACK_SIZE
boot_stack_top:
