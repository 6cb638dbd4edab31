# The kernel's objects from kernel/locking/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/locking/drain.c \
	kernel/locking/lockorder.c \
	kernel/locking/mutex.c \
	kernel/locking/pcpu_counter.c \
	kernel/locking/rcu.c \
	kernel/locking/ref_tracker.c \
	kernel/locking/refcount.c \
	kernel/locking/spinlock.c
