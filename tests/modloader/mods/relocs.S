/*
 * Every relocation type the loader applies, with known addends, against
 * each kind of symbol.  The unit tests compute the expected words by hand.
 */
	.text
	.globl	rel_func
	.type	rel_func, @function
rel_func:
	call	ext_func		/* R_386_PC32, A = -4 */
	call	ext_func@PLT		/* R_386_PLT32, A = -4 */
	call	local_func		/* PC32 to a local */
	ret
	.size	rel_func, .-rel_func
	.type	local_func, @function
local_func:
	ret
	.size	local_func, .-local_func

	.data
	.globl	rel_data
rel_data:
	.long	ext_var			/* 0: R_386_32, A = 0 */
	.long	ext_var + 0x10		/* 4: R_386_32, A = 0x10 */
	.long	rel_func + 2		/* 8: R_386_32 against a global */
	.long	local_func		/* 12: R_386_32 against a local */
	.long	ext_var - .		/* 16: R_386_PC32, A = 0 */
	.long	weak_missing		/* 20: weak undefined, resolves to 0 */
	.long	rel_common + 1		/* 24: COMMON symbol */
	.long	abs_sym			/* 28: SHN_ABS */
	.long	0x11223344		/* 32: R_386_NONE leaves it alone */
	.reloc	32, R_386_NONE, ext_var
	.long	rel_func - 0x100 - .	/* 36: PC32 with a negative addend */

	.weak	weak_missing
	.comm	rel_common, 8, 8
	.globl	abs_sym
	.set	abs_sym, 0x12345678
	.section .note.GNU-stack,"",@progbits
