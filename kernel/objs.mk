# The kernel's objects from kernel/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/bootmod.c \
	kernel/bootparam.c \
	kernel/exports.c \
	kernel/initcall.c \
	kernel/main.c
