# The kernel's objects from net/tcp/resident/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/tcp/resident/tcp_persist.c
