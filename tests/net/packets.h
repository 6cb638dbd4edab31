/*
 * Frames as QEMU's user-mode network (slirp) sends them to a guest with
 * MAC 52:54:00:12:34:56, written byte by byte from the RFC field layouts
 * with QEMU's defaults: gateway and DHCP server 10.0.2.2 (MAC
 * 52:55:0a:00:02:02), guest 10.0.2.15, DNS 10.0.2.3, netmask
 * 255.255.255.0, lease 86400 s.  Checksums were computed independently
 * of net/ipv4/inet_csum.c.  The unit tests parse them and the fuzzer starts
 * from them (tests/net/corpus).
 */
#ifndef TESTS_NET_PACKETS_H
#define TESTS_NET_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/proto_lib.h"

#define SLIRP_XID 0x3903f326u

extern const uint8_t guest_mac[6], slirp_mac[6];

/* DHCPOFFER and DHCPACK for xid SLIRP_XID, broadcast to 68 from 67:
 * 14 Ethernet + 20 IPv4 + 8 UDP + 548 BOOTP (236 fixed + 312 vendor). */
extern const uint8_t slirp_dhcp_offer[590], slirp_dhcp_ack[590];
/* 10.0.2.2 is-at 52:55:0a:00:02:02, to the guest, padded to 60. */
extern const uint8_t slirp_arp_reply[60];
/* Echo reply id 0x1234 seq 1 with 56 data bytes 0..55. */
extern const uint8_t slirp_icmp_echo_reply[98];
/* "hello modref\n" from 10.0.2.2:40000 to 10.0.2.15:7 (hostfwd). */
extern const uint8_t slirp_udp_hello[55];

struct packet {
	const char *name;
	const uint8_t *data;
	size_t len;
};

extern const struct packet slirp_packets[];
extern const size_t slirp_npackets;

#endif
