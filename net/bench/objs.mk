# The kernel's objects from net/bench/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/bench/bench_devref.c
