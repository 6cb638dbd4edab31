# The kernel's objects from net/cmd/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/cmd/cmd_inet.c \
	net/cmd/cmd_ip.c \
	net/cmd/cmd_pkt.c \
	net/cmd/cmd_sock.c \
	net/cmd/cmd_sockprobe.c \
	net/cmd/cmd_tftp.c \
	net/cmd/cmd_udp.c
