# The kernel's objects from kernel/debug/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/debug/cmd_trace.c \
	kernel/debug/fault.c \
	kernel/debug/hangdump.c \
	kernel/debug/invariant.c \
	kernel/debug/ksyms.c \
	kernel/debug/ktest.c \
	kernel/debug/panic.c \
	kernel/debug/racepoint.c \
	kernel/debug/stackdepot.c \
	kernel/debug/trace.c
