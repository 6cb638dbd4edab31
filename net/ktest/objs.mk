# The kernel's objects from net/ktest/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/ktest/test_inet.c \
	net/ktest/test_netdev.c \
	net/ktest/test_netdev_race.c \
	net/ktest/test_unload_race.c
