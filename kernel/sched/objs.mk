# The kernel's objects from kernel/sched/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/sched/clock.c \
	kernel/sched/cmd_sched.c \
	kernel/sched/sched.c \
	kernel/sched/schedctl.c \
	kernel/sched/thread_run.c \
	kernel/sched/thread_show.c \
	kernel/sched/timer.c \
	kernel/sched/waitq.c \
	kernel/sched/work.c
