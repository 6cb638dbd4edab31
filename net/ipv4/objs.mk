# The kernel's objects from net/ipv4/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/ipv4/arp.c \
	net/ipv4/arp_proto.c \
	net/ipv4/ether_hdr.c \
	net/ipv4/icmp.c \
	net/ipv4/icmp_proto.c \
	net/ipv4/inet_addr.c \
	net/ipv4/inet_csum.c \
	net/ipv4/inet_exports.c \
	net/ipv4/ip_input.c \
	net/ipv4/ip_output.c \
	net/ipv4/ipv4_hdr.c \
	net/ipv4/neigh_fsm.c \
	net/ipv4/net_drop.c \
	net/ipv4/route.c \
	net/ipv4/route_table.c \
	net/ipv4/socket.c \
	net/ipv4/tbucket.c \
	net/ipv4/udp.c \
	net/ipv4/udp_proto.c
