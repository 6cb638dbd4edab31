/*
 * void context_switch(uint32_t *save_esp, uint32_t new_esp)
 * Saves the callee-saved registers on the current stack, stores the stack
 * pointer, and resumes the other thread where it called context_switch
 * (or at thread_start, for a new thread: see thread_create).
 */
	.text
	.globl context_switch
context_switch:
	movl 4(%esp), %eax
	movl 8(%esp), %edx
	pushl %ebp
	pushl %ebx
	pushl %esi
	pushl %edi
	movl %esp, (%eax)
	movl %edx, %esp
	popl %edi
	popl %esi
	popl %ebx
	popl %ebp
	ret
