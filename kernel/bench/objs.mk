# The kernel's objects from kernel/bench/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/bench/bench_jumps.c
