/* An empty symbol table for the first link pass (see the Makefile). */
	.section .ksyms, "a"
	.align 4
	.globl __ksyms_count, __ksyms_addrs, __ksyms_offsets, __ksyms_names
__ksyms_count:
	.long 0
__ksyms_addrs:
__ksyms_offsets:
__ksyms_names:
	.byte 0
