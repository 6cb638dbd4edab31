/*
 * Sections of every layout group with awkward sizes and alignments, to
 * pin down the layout rules: text first, read-only data next, a page
 * boundary, writable data, bss, then COMMON symbols in symbol table order.
 */
	.section .text.a,"ax",@progbits
	.balign	4
	.byte	0x90, 0x90, 0x90	/* 3 bytes */
	.section .rodata.a,"a",@progbits
	.balign	64
	.byte	1			/* 1 byte, align 64 */
	.section .text.b,"ax",@progbits
	.balign	16
	.byte	0xc3			/* 1 byte, align 16 */
	.section .data.a,"aw",@progbits
	.balign	8
	.long	1, 2, 3			/* 12 bytes, align 8 */
	.section .bss.a,"aw",@nobits
	.balign	32
	.zero	5			/* 5 bytes, align 32 */
	.section .data.b,"aw",@progbits
	.balign	4096
	.long	7			/* align one page */
	.section .rodata.b,"a",@progbits
	.balign	2
	.short	0x5a5a
	.section .comment.a,"",@progbits
	.ascii	"not loaded"
	.comm	c_small, 3, 1
	.comm	c_big, 100, 32
	.comm	c_mid, 4, 4
	.section .note.GNU-stack,"",@progbits
