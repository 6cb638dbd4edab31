/*
 * Application processor trampoline.  An AP starts in real mode at the
 * page given in the STARTUP IPI; smp.c copies this code to TRAMPOLINE
 * (physical 0x8000) and fills in the four words at the end before each
 * start.  The AP loads a flat GDT, enters protected mode, turns on paging
 * with the kernel's page directory (the first 4 MiB are identity mapped
 * while APs boot, so the next instruction still exists), and jumps to
 * ap_main(cpu) on its own stack.
 */
#define TRAMPOLINE 0x8000
#define REL(x) ((x) - trampoline_start + TRAMPOLINE)

	.section .rodata
	.globl trampoline_start, trampoline_end
	.globl tramp_cr3, tramp_stack, tramp_entry, tramp_cpu
	.code16
trampoline_start:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl REL(tramp_gdtr)
	movl %cr0, %eax
	orl $1, %eax
	movl %eax, %cr0
	ljmpl $0x08, $REL(tramp_pm)

	.code32
tramp_pm:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $0x10, %eax			/* PSE, as on the boot CPU */
	movl %eax, %cr4
	movl REL(tramp_cr3), %eax
	movl %eax, %cr3
	movl %cr0, %eax
	orl $0x80010000, %eax		/* PG | WP */
	movl %eax, %cr0
	movl REL(tramp_stack), %esp
	xorl %ebp, %ebp
	pushl REL(tramp_cpu)
	pushl $0			/* no return address */
	movl REL(tramp_entry), %ecx
	jmp *%ecx

	.align 8
tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* flat 32-bit code */
	.quad 0x00cf92000000ffff	/* flat 32-bit data */
tramp_gdtr:
	.word 23
	.long REL(tramp_gdt)
	.align 4
tramp_cr3:
	.long 0
tramp_stack:
	.long 0
tramp_entry:
	.long 0
tramp_cpu:
	.long 0
trampoline_end:
