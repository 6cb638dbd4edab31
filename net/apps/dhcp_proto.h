/*
 * DHCP messages (RFC 2131) and options (RFC 2132) on the client side:
 * build DHCPDISCOVER/DHCPREQUEST, parse and validate DHCPOFFER/DHCPACK/
 * DHCPNAK.  The options parser treats every reply as hostile: each
 * length is checked against its field before it is read, every field
 * must end with the end option, and an option the client interprets may
 * appear once, with the length its code requires.  The state machine
 * that uses these is dhcp_fsm.h.
 */
#ifndef NET_DHCP_PROTO_H
#define NET_DHCP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/net_drop.h"

#define DHCP_SERVER_PORT 67
#define DHCP_CLIENT_PORT 68

/* RFC 2131 section 2, figure 1: the fixed BOOTP part, then the magic
 * cookie that starts the options (RFC 2131 section 3). */
#define DHCP_FIXED_LEN 236
#define DHCP_MAGIC     0x63825363 /* 99.130.83.99 */
#define DHCP_MIN_LEN   (DHCP_FIXED_LEN + 4)
#define DHCP_BUILD_LEN                                                         \
	300 /* messages sent are padded to the BOOTP                           \
	       minimum (RFC 1542 section 3.4) */
#define DHCP_OFF_SNAME 44
#define DHCP_SNAME_LEN 64
#define DHCP_OFF_FILE  108
#define DHCP_FILE_LEN  128

#define BOOTP_REQUEST        1 /* op */
#define BOOTP_REPLY          2
#define BOOTP_FLAG_BROADCAST 0x8000 /* RFC 2131 section 2, figure 2 */

/* RFC 2132 section 9.6: DHCP message types. */
#define DHCPDISCOVER 1
#define DHCPOFFER    2
#define DHCPREQUEST  3
#define DHCPDECLINE  4
#define DHCPACK      5
#define DHCPNAK      6
#define DHCPRELEASE  7
#define DHCPINFORM   8

/* RFC 2132 option codes (section numbers in brackets). */
#define DHCP_OPT_PAD       0   /* [3.1] */
#define DHCP_OPT_SUBNET    1   /* [3.3] */
#define DHCP_OPT_ROUTER    3   /* [3.5] */
#define DHCP_OPT_DNS       6   /* [3.8] */
#define DHCP_OPT_HOSTNAME  12  /* [3.14] */
#define DHCP_OPT_REQ_IP    50  /* [9.1] */
#define DHCP_OPT_LEASE     51  /* [9.2] */
#define DHCP_OPT_OVERLOAD  52  /* [9.3] */
#define DHCP_OPT_MSG_TYPE  53  /* [9.6] */
#define DHCP_OPT_SERVER_ID 54  /* [9.7] */
#define DHCP_OPT_PARAM_REQ 55  /* [9.8] */
#define DHCP_OPT_MAX_SIZE  57  /* [9.10] */
#define DHCP_OPT_T1        58  /* [9.11] renewal time */
#define DHCP_OPT_T2        59  /* [9.12] rebinding time */
#define DHCP_OPT_CLIENT_ID 61  /* [9.14] */
#define DHCP_OPT_END       255 /* [3.2] */

#define DHCP_LEASE_INFINITE 0xffffffffu /* RFC 2131 section 3.3 */
#define DHCP_MAX_DNS        3

/* Which options a parsed message carried (bits of dhcp_msg.have). */
enum {
	DHCP_HAVE_MSG_TYPE = 1 << 0,
	DHCP_HAVE_SUBNET = 1 << 1,
	DHCP_HAVE_ROUTER = 1 << 2,
	DHCP_HAVE_DNS = 1 << 3,
	DHCP_HAVE_LEASE = 1 << 4,
	DHCP_HAVE_OVERLOAD = 1 << 5,
	DHCP_HAVE_SERVER_ID = 1 << 6,
	DHCP_HAVE_T1 = 1 << 7,
	DHCP_HAVE_T2 = 1 << 8,
};

struct dhcp_msg {
	uint8_t op, type;
	uint32_t xid;
	uint16_t secs, flags;
	uint32_t ciaddr, yiaddr, siaddr, giaddr; /* host order */
	uint8_t chaddr[ETH_ALEN];
	unsigned int have; /* DHCP_HAVE_* */
	uint32_t mask;
	uint32_t router; /* the first one listed */
	uint32_t dns[DHCP_MAX_DNS];
	unsigned int ndns; /* further servers are ignored */
	uint32_t server_id;
	uint32_t lease_s, t1_s, t2_s;
	uint8_t overload; /* 1 file, 2 sname, 3 both */
};

/*
 * Parses a message a client receives (the UDP payload).  Checks:
 *   DHCP_TRUNCATED      shorter than 236 bytes + magic cookie
 *   DHCP_BAD_OP         op is not BOOTREPLY
 *   DHCP_BAD_HTYPE      htype is not Ethernet (1) or hlen is not 6
 *   DHCP_BAD_MAGIC      cookie is not 99.130.83.99
 * then walks the options field, and the file and sname fields when the
 * overload option says so (RFC 2131 section 4.1 order):
 *   DHCP_OPT_OVERRUN    an option's length byte or value runs past the
 *                       end of its field
 *   DHCP_OPT_NO_END     a field ends without the end option
 *   DHCP_OPT_BAD_LEN    an interpreted option has the wrong length
 *                       (1/3/6/50/51/54/58/59 fixed, router and DNS a
 *                       non-zero multiple of 4, overload 1)
 *   DHCP_OPT_DUPLICATE  an interpreted option appears twice (RFC 3396
 *                       would concatenate the parts: never for these)
 *   DHCP_OPT_BAD_VALUE  non-contiguous netmask, overload not 1..3 or
 *                       outside the options field, lease time 0
 * and finally what RFC 2131 table 3 requires of a reply:
 *   DHCP_NO_MSG_TYPE    no message type option
 *   DHCP_BAD_MSG_TYPE   not OFFER, ACK or NAK
 *   DHCP_NO_SERVER_ID   no server identifier
 *   DHCP_NO_LEASE       OFFER or ACK without lease time
 *   DHCP_BAD_ADDR       OFFER or ACK whose yiaddr is 0.0.0.0/8,
 *                       loopback, multicast or broadcast
 * Pad options are skipped anywhere; bytes after the end option are
 * ignored; options the client does not interpret are skipped by length.
 */
enum net_drop dhcp_parse_reply(const uint8_t *p, size_t len,
                               struct dhcp_msg *out);

/* What a client sends. */
struct dhcp_request {
	uint8_t type; /* DHCPDISCOVER, DHCPREQUEST or DHCPRELEASE */
	uint32_t xid;
	uint16_t secs;
	bool broadcast; /* ask the server to broadcast its reply */
	uint8_t mac[ETH_ALEN];
	uint32_t ciaddr;       /* our address when RENEWING/REBINDING */
	uint32_t requested_ip; /* option 50 when non-zero (SELECTING) */
	uint32_t server_id;    /* option 54 when non-zero (SELECTING) */
};

/*
 * Builds a BOOTREQUEST with message type, client identifier (type 1 +
 * MAC, RFC 2132 9.14), maximum message size 1500, requested IP and
 * server identifier when set, and a parameter request list (subnet,
 * router, DNS, lease, server id, T1, T2), padded to DHCP_BUILD_LEN.
 * Returns the length, -ENOSPC (cap < DHCP_BUILD_LEN) or -EINVAL (type).
 */
int dhcp_build_request(uint8_t *buf, size_t cap, const struct dhcp_request *r);

#endif /* NET_DHCP_PROTO_H */
