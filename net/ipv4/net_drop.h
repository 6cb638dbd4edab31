/*
 * Why a frame or packet was dropped, and per-reason counters.
 *
 * Every parser of the protocol layer returns one of these (NET_DROP_NONE
 * when it accepts the input), and the stack bumps one counter per drop,
 * so `netstat -s` can explain every packet that went nowhere.  The
 * reasons marked "(stack)" are decided by the kernel layer above the
 * parsers (addressing, dispatch, queues), not by a parser.
 *
 * struct net_drop_stats is plain data: the kernel decides how it is
 * shared (per-CPU copies summed when printed, or a lock).
 */
#ifndef NET_NET_DROP_H
#define NET_NET_DROP_H

#include <stdint.h>

/* X(name, layer, description) */
#define NET_DROP_REASONS(X)                                                    \
	X(NONE, "-", "not dropped")                                            \
	X(ETH_TRUNCATED, "ether", "frame shorter than the 14-byte header")     \
	X(ETH_8023, "ether", "802.3 length field, not an Ethernet II type")    \
	X(ETH_BAD_SRC, "ether", "source MAC is multicast or broadcast")        \
	X(ETH_NOT_FOR_US, "ether", "destination MAC is not ours (stack)")      \
	X(ETH_UNKNOWN_TYPE, "ether", "EtherType not handled (stack)")          \
	X(ARP_TRUNCATED, "arp", "shorter than an Ethernet/IPv4 ARP packet")    \
	X(ARP_BAD_HTYPE, "arp", "hardware type is not Ethernet (1)")           \
	X(ARP_BAD_PTYPE, "arp", "protocol type is not IPv4 (0x0800)")          \
	X(ARP_BAD_HLEN, "arp", "hardware address length is not 6")             \
	X(ARP_BAD_PLEN, "arp", "protocol address length is not 4")             \
	X(ARP_BAD_OP, "arp", "opcode is neither request nor reply")            \
	X(ARP_BAD_SENDER, "arp", "sender MAC or IP is multicast/broadcast")    \
	X(ARP_NOT_FOR_US, "arp", "target IP is not ours (stack)")              \
	X(ARP_QUEUE_FULL, "arp", "unresolved neighbour's queue full: oldest")  \
	X(ARP_UNRESOLVED, "arp", "neighbour resolution failed")                \
	X(IP_TRUNCATED, "ip", "shorter than its header")                       \
	X(IP_BAD_VERSION, "ip", "version is not 4")                            \
	X(IP_BAD_IHL, "ip", "header length below 20 bytes")                    \
	X(IP_BAD_TOTAL_LEN, "ip", "total length outside header..frame")        \
	X(IP_BAD_CHECKSUM, "ip", "header checksum mismatch")                   \
	X(IP_BAD_FLAGS, "ip", "reserved flag bit set")                         \
	X(IP_FRAGMENT, "ip", "fragments are not reassembled")                  \
	X(IP_OPTIONS, "ip", "options are not supported")                       \
	X(IP_TTL_ZERO, "ip", "time to live is 0")                              \
	X(IP_BAD_SRC, "ip", "source is multicast, broadcast or loopback")      \
	X(IP_NOT_FOR_US, "ip", "destination is not ours (stack)")              \
	X(IP_UNKNOWN_PROTO, "ip", "protocol not handled (stack)")              \
	X(IP_NO_ROUTE, "ip", "no route to the destination (stack)")            \
	X(ICMP_TRUNCATED, "icmp", "shorter than the 8-byte header")            \
	X(ICMP_BAD_CHECKSUM, "icmp", "checksum mismatch")                      \
	X(ICMP_BAD_CODE, "icmp", "code not defined for the type")              \
	X(ICMP_BAD_QUOTE, "icmp", "error quotes no valid IPv4 header")         \
	X(ICMP_UNSUPPORTED, "icmp", "type not handled (stack)")                \
	X(UDP_TRUNCATED, "udp", "shorter than the 8-byte header")              \
	X(UDP_BAD_LEN, "udp", "length field below 8 or beyond the packet")     \
	X(UDP_BAD_CHECKSUM, "udp", "checksum mismatch")                        \
	X(UDP_BAD_PORT, "udp", "source or destination port 0")                 \
	X(UDP_NO_SOCKET, "udp", "no socket on the port (stack)")               \
	X(UDP_RCVBUF_FULL, "udp", "socket receive queue full (stack)")         \
	X(DHCP_TRUNCATED, "dhcp", "shorter than header and magic cookie")      \
	X(DHCP_BAD_OP, "dhcp", "op is not BOOTREPLY")                          \
	X(DHCP_BAD_HTYPE, "dhcp", "hardware type/length not Ethernet")         \
	X(DHCP_BAD_MAGIC, "dhcp", "magic cookie is not 99.130.83.99")          \
	X(DHCP_OPT_OVERRUN, "dhcp", "an option runs past its field")           \
	X(DHCP_OPT_NO_END, "dhcp", "options field has no end option")          \
	X(DHCP_OPT_BAD_LEN, "dhcp", "option length wrong for its code")        \
	X(DHCP_OPT_DUPLICATE, "dhcp", "an option we interpret appears twice")  \
	X(DHCP_OPT_BAD_VALUE, "dhcp", "option value invalid")                  \
	X(DHCP_NO_MSG_TYPE, "dhcp", "no DHCP message type option")             \
	X(DHCP_BAD_MSG_TYPE, "dhcp", "message type a client never receives")   \
	X(DHCP_NO_SERVER_ID, "dhcp", "OFFER/ACK/NAK without server id")        \
	X(DHCP_NO_LEASE, "dhcp", "OFFER/ACK without lease time")               \
	X(DHCP_BAD_ADDR, "dhcp", "offered address unusable")                   \
	X(DHCP_BAD_XID, "dhcp", "transaction id is not ours")                  \
	X(DHCP_NOT_FOR_US, "dhcp", "client hardware address is not ours")      \
	X(DHCP_UNEXPECTED, "dhcp", "message not expected in this state")       \
	X(DHCP_WRONG_SERVER, "dhcp", "reply from a server we did not pick")

enum net_drop {
#define NET_DROP_ENUM(name, layer, desc) NET_DROP_##name,
	NET_DROP_REASONS(NET_DROP_ENUM)
#undef NET_DROP_ENUM
	    NET_DROP_COUNT
};

struct net_drop_stats {
	uint64_t count[NET_DROP_COUNT];
};

/* "IP_BAD_CHECKSUM"-style name, the layer ("ip") and a description;
 * out-of-range reasons get "?" rather than a crash. */
const char *net_drop_name(enum net_drop reason);
const char *net_drop_layer(enum net_drop reason);
const char *net_drop_desc(enum net_drop reason);

/* Counts one drop; NET_DROP_NONE and out-of-range values count nothing.
 * Returns reason, so a receive path can write
 * `return net_drop_count(st, ipv4_parse(...))`. */
enum net_drop net_drop_count(struct net_drop_stats *st, enum net_drop reason);

/* Sum of every counter of one layer ("ip"), or of all if layer is NULL. */
uint64_t net_drop_total(const struct net_drop_stats *st, const char *layer);

#endif /* NET_NET_DROP_H */
