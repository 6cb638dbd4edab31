/*
 * Memory probes that survive a fault.  trap() recognises a page fault at
 * one of the *_insn labels and resumes at the matching *_fixup, which
 * returns -EFAULT.  Used by tests that check a mapping really is gone, and
 * by the backtrace walker, which must not fault on a corrupt frame.
 */
	.text
	.globl probe_read32, probe_read32_insn, probe_read32_fixup
probe_read32:
	movl 4(%esp), %ecx
probe_read32_insn:
	movl (%ecx), %eax
	movl 8(%esp), %ecx
	movl %eax, (%ecx)
	xorl %eax, %eax
	ret
probe_read32_fixup:
	movl $-14, %eax
	ret

	.globl probe_write32, probe_write32_insn, probe_write32_fixup
probe_write32:
	movl 4(%esp), %ecx
	movl 8(%esp), %eax
probe_write32_insn:
	movl %eax, (%ecx)
	xorl %eax, %eax
	ret
probe_write32_fixup:
	movl $-14, %eax
	ret
