/*
 * What the IPv4 stack offers to modules (a loadable TCP, test modules):
 * addresses, routing, sending, protocol and socket registration, and the
 * socket API itself.  Kept in one list so the module-facing surface of
 * the stack can be read at a glance (kernel/exports.c does the same for
 * the core).
 */
#include <kernel/module.h>
#include "net/ipv4/inet.h"

/* counters */
EXPORT_SYMBOL(inet_drop);
EXPORT_SYMBOL(inet_drop_skb);
EXPORT_SYMBOL(inet_mib_slots);
EXPORT_SYMBOL(inet_mib_read);

/* addresses and routes */
EXPORT_SYMBOL(inet_ntoa_r);
EXPORT_SYMBOL(inet_aton);
EXPORT_SYMBOL(inet_addr_get);
EXPORT_SYMBOL(inet_addr_local);
EXPORT_SYMBOL(inet_addr_is_bcast);
EXPORT_SYMBOL(ip_route_output);
EXPORT_SYMBOL(dst_release);

/* IPv4 and ICMP */
EXPORT_SYMBOL(inet_add_protocol);
EXPORT_SYMBOL(inet_del_protocol);
EXPORT_SYMBOL(inet_alloc_skb);
EXPORT_SYMBOL(ip_send);
EXPORT_SYMBOL(ip_send_dst);
EXPORT_SYMBOL(icmp_send_unreach);

/* sockets */
EXPORT_SYMBOL(sock_register);
EXPORT_SYMBOL(sock_unregister);
EXPORT_SYMBOL(sock_create);
EXPORT_SYMBOL(sock_bind);
EXPORT_SYMBOL(sock_bind_device);
EXPORT_SYMBOL(sock_connect);
EXPORT_SYMBOL(sock_sendto);
EXPORT_SYMBOL(sock_send_skb);
EXPORT_SYMBOL(sock_recvfrom);
EXPORT_SYMBOL(sock_close);
EXPORT_SYMBOL(sock_wake);
