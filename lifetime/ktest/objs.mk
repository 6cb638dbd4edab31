# The kernel's objects from lifetime/ktest/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	lifetime/ktest/settle.c
