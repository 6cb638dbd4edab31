/*
 * ARP packets (RFC 826) for Ethernet and IPv4 only: parse, validate,
 * build.  The cache that remembers answers is neigh_fsm.h; the kernel's
 * arp.c joins the two with devices.
 */
#ifndef NET_ARP_PROTO_H
#define NET_ARP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/net_drop.h"

/* RFC 826 "Packet format"; values from the IANA ARP registry. */
#define ARP_HRD_ETHER  1      /* ar$hrd: Ethernet (10Mb) */
#define ARP_PRO_IP     0x0800 /* ar$pro: the EtherType of IPv4 */
#define ARP_OP_REQUEST 1      /* ar$op: ares_op$REQUEST */
#define ARP_OP_REPLY   2      /* ar$op: ares_op$REPLY */
#define ARP_LEN        28     /* 8 fixed bytes + 2 * (6 + 4) */

struct arp_pkt {
	uint16_t op;
	uint8_t sha[ETH_ALEN]; /* sender hardware address */
	uint32_t spa;          /* sender protocol address, host order */
	uint8_t tha[ETH_ALEN]; /* target hardware address */
	uint32_t tpa;          /* target protocol address, host order */
};

/*
 * Accepts ARP_LEN bytes or more (Ethernet pads the rest) with hardware
 * Ethernet/6, protocol IPv4/4, op request or reply, and a sender that can
 * be cached: a unicast, non-zero MAC and an IP that is not multicast or
 * limited broadcast (0.0.0.0 is allowed: an RFC 5227 probe).
 * Drops: ARP_TRUNCATED, ARP_BAD_HTYPE, ARP_BAD_PTYPE, ARP_BAD_HLEN,
 * ARP_BAD_PLEN, ARP_BAD_OP, ARP_BAD_SENDER.
 */
enum net_drop arp_parse(const uint8_t *p, size_t len, struct arp_pkt *out);

/* Writes the 28-byte packet; returns ARP_LEN, -ENOSPC or -EINVAL (op
 * neither request nor reply). */
int arp_build(uint8_t *buf, size_t cap, const struct arp_pkt *a);

/* A request for tpa from (sha, spa); tha is zero (RFC 826 leaves it
 * "don't care"). */
void arp_make_request(struct arp_pkt *a, const uint8_t sha[ETH_ALEN],
                      uint32_t spa, uint32_t tpa);

/* The reply from (our_mac, req->tpa) to the sender of req (RFC 826
 * "Packet Reception": swap, fill in our address, set the opcode). */
void arp_make_reply(struct arp_pkt *a, const struct arp_pkt *req,
                    const uint8_t our_mac[ETH_ALEN]);

#endif /* NET_ARP_PROTO_H */
