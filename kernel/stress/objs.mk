# The kernel's objects from kernel/stress/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error): the core's
# stress suites, KTAP suites that run crews of threads on every CPU for
# many rounds (docs/testing.md), out of the ktest folder of the unit
# suites.  In link order.
KSRCS += \
	kernel/stress/stress_mem.c \
	kernel/stress/stress_sched.c \
	kernel/stress/stress_smp.c \
	kernel/stress/stress_timer.c \
	kernel/stress/stress_util.c
