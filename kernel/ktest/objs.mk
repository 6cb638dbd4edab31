# The kernel's objects from kernel/ktest/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/ktest/alloc.c \
	kernel/ktest/args.c \
	kernel/ktest/bootparam.c \
	kernel/ktest/clock.c \
	kernel/ktest/hangdump.c \
	kernel/ktest/kfence.c \
	kernel/ktest/kmalloc.c \
	kernel/ktest/ktest_util.c \
	kernel/ktest/lockorder.c \
	kernel/ktest/paging.c \
	kernel/ktest/pcpu_counter.c \
	kernel/ktest/rcu.c \
	kernel/ktest/refcount.c \
	kernel/ktest/schedctl.c \
	kernel/ktest/seqcount.c \
	kernel/ktest/smp.c \
	kernel/ktest/string.c \
	kernel/ktest/thread.c \
	kernel/ktest/timer.c \
	kernel/ktest/waitq.c
