# The kernel's objects from modloader/ktest/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	modloader/ktest/test_hooks.c \
	modloader/ktest/test_refcount.c
