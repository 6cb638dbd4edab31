/*
 * Interrupt and exception entry.  One 16-byte stub per vector pushes a
 * dummy error code (where the CPU pushes none) and the vector number, so
 * every entry reaches trap() with the same struct trapframe layout
 * (kernel/arch/irq.h).  The kernel runs only in ring 0, so no stack switch and
 * no segment reloads happen here.
 */
	.text
	.altmacro

.macro vector_stub n
	.align 16
	.if (\n == 8) || (\n == 10) || (\n == 11) || (\n == 12) || (\n == 13) || (\n == 14) || (\n == 17)
	.else
	pushl $0
	.endif
	pushl $\n
	jmp trap_common
.endm

	.align 16
	.globl vector_stubs
vector_stubs:
	.set i, 0
	.rept 256
	vector_stub %i
	.set i, i + 1
	.endr

trap_common:
	pushal
	cld
	pushl %esp
	call trap
	/* trap's return address: where a stack walk leaves the handler
	 * for whatever it interrupted (kernel/debug/stackdepot.c stops here) */
	.globl trap_returned
trap_returned:
	addl $4, %esp
	popal
	addl $8, %esp		/* vector and error code */
	iret
