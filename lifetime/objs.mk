# The kernel's objects from lifetime/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	lifetime/engine.c \
	lifetime/faultsweep.c \
	lifetime/ops.c \
	lifetime/ring.c \
	lifetime/script.c \
	lifetime/settle.c
