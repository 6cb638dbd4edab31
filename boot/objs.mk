# The kernel's objects from boot/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	boot/entry.S \
	boot/isr.S \
	boot/trampoline.S
