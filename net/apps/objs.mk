# The kernel's objects from net/apps/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/apps/dhcp.c \
	net/apps/dhcp_fsm.c \
	net/apps/dhcp_proto.c \
	net/apps/tftp.c
