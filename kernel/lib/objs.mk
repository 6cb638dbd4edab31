# The kernel's objects from kernel/lib/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/lib/errno.c \
	kernel/lib/newc.c \
	kernel/lib/string.c
