/* See pipeline.h.  Every check names the invariant it pins. */
#include <string.h>

#include "net/ipv4/arp_proto.h"
#include "net/apps/dhcp_fsm.h"
#include "net/apps/dhcp_proto.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/neigh_fsm.h"
#include "net/ipv4/proto_lib.h"
#include "net/ipv4/route_table.h"
#include "net/ipv4/udp_proto.h"
#include "tests/net/pipeline.h"

#define CHECK(cond, msg)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return msg;                                            \
	} while (0)
#define TRY(call)                                                              \
	do {                                                                   \
		const char *why_ = (call);                                     \
		if (why_ != NULL)                                              \
			return why_;                                           \
	} while (0)

static struct net_drop_stats *stats;

static enum net_drop
count(enum net_drop r)
{
	if (stats != NULL)
		net_drop_count(stats, r);
	return r;
}

/* A view lies inside the buffer it was parsed from. */
static int
inside(const uint8_t *v, size_t vlen, const uint8_t *p, size_t len)
{
	return v >= p && v <= p + len && vlen <= (size_t)(p + len - v);
}

static const char *
arp_layer(const uint8_t *p, size_t len)
{
	struct arp_pkt a, b;
	uint8_t buf[ARP_LEN];

	if (count(arp_parse(p, len, &a)) != NET_DROP_NONE)
		return NULL;
	CHECK(arp_build(buf, sizeof(buf), &a) == ARP_LEN, "arp: rebuild");
	CHECK(arp_parse(buf, sizeof(buf), &b) == NET_DROP_NONE,
	      "arp: rebuilt packet refused");
	CHECK(memcmp(buf, p, ARP_LEN) == 0, "arp: rebuild differs");
	return NULL;
}

static const char *
dhcp_client_layer(const struct dhcp_msg *m, const uint8_t *p, size_t len)
{
	static const enum dhcp_state states[] = {
	    DHCP_SELECTING, DHCP_REQUESTING, DHCP_RENEWING, DHCP_REBINDING};
	struct dhcp_params prm = dhcp_default_params;
	uint8_t buf[DHCP_BUILD_LEN];
	struct dhcp_client c;
	struct dhcp_out out;
	size_t i;

	prm.jitter_ms = 0;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		dhcp_client_init(&c, m->chaddr, 1);
		dhcp_client_start(&c, &prm, 1000, buf, sizeof(buf), &out);
		c.state = states[i];
		c.xid = m->xid;
		c.offer.server = m->server_id;
		c.lease.server = i == 2 ? m->server_id : 0x0a000202;
		c.lease.addr = 0x0a00020f;
		c.t2_at = 1000000;
		c.expire_at = 2000000;
		count(dhcp_client_input(&c, &prm, 2000, p, len, buf,
		                        sizeof(buf), &out));
		CHECK(out.len == 0 || out.len == DHCP_BUILD_LEN,
		      "dhcp: odd message length");
		CHECK(out.err == 0, "dhcp: build failed");
		if (c.state == DHCP_BOUND) {
			CHECK(out.events & (DHCP_EV_BOUND | DHCP_EV_RENEWED),
			      "dhcp: bound without an event");
			CHECK(c.lease.addr == m->yiaddr, "dhcp: wrong address");
			CHECK(c.lease.lease_s == DHCP_LEASE_INFINITE ||
			          (c.lease.t1_s < c.lease.t2_s &&
			           c.lease.t2_s < c.lease.lease_s) ||
			          c.lease.lease_s < 2,
			      "dhcp: T1 < T2 < lease broken");
			/* Run the lease out: it must end SELECTING again. */
			dhcp_client_timer(&c, &prm, UINT64_MAX / 2, buf,
			                  sizeof(buf), &out);
			CHECK(c.lease.lease_s == DHCP_LEASE_INFINITE ||
			          c.state == DHCP_SELECTING,
			      "dhcp: lease outlived its expiry");
		}
	}
	return NULL;
}

static const char *
dhcp_layer(const uint8_t *p, size_t len)
{
	struct dhcp_msg m;

	if (count(dhcp_parse_reply(p, len, &m)) != NET_DROP_NONE)
		return NULL;
	CHECK(m.type == DHCPOFFER || m.type == DHCPACK || m.type == DHCPNAK,
	      "dhcp: accepted a type a client never receives");
	CHECK(m.have & DHCP_HAVE_SERVER_ID, "dhcp: accepted without server");
	CHECK(m.ndns <= DHCP_MAX_DNS, "dhcp: too many DNS servers");
	CHECK(!(m.have & DHCP_HAVE_SUBNET) || ipv4_mask_len(m.mask) >= 0,
	      "dhcp: accepted a non-contiguous mask");
	return dhcp_client_layer(&m, p, len);
}

static const char *
udp_layer(const uint8_t *p, size_t len, uint32_t src, uint32_t dst)
{
	static uint8_t buf[65536];
	struct udp_dgram u, v;
	int n;

	if (count(udp_parse(p, len, src, dst, &u)) != NET_DROP_NONE)
		return NULL;
	CHECK(inside(u.payload, u.payload_len, p, len), "udp: view outside");
	n = udp_build(buf, sizeof(buf), src, dst, u.sport, u.dport, u.payload,
	              u.payload_len);
	CHECK(n == (int)(UDP_HLEN + u.payload_len), "udp: rebuild length");
	CHECK(udp_parse(buf, (size_t)n, src, dst, &v) == NET_DROP_NONE,
	      "udp: rebuilt datagram refused");
	CHECK(v.csum_present, "udp: built without checksum");
	if (u.csum_present)
		CHECK(memcmp(buf, p, (size_t)n) == 0 ||
		          (get_be16(p + 6) == 0xffff ||
		           get_be16(buf + 6) == 0xffff),
		      "udp: rebuild differs");
	if (u.dport == DHCP_CLIENT_PORT)
		TRY(dhcp_layer(u.payload, u.payload_len));
	return NULL;
}

static const char *
icmp_layer(const uint8_t *p, size_t len)
{
	static uint8_t buf[65536];
	struct icmp_msg m, r;
	int n;

	if (count(icmp_parse(p, len, &m)) != NET_DROP_NONE)
		return NULL;
	CHECK(inside(m.data, m.data_len, p, len), "icmp: view outside");
	if (m.type != ICMP_ECHO_REQUEST)
		return NULL;
	n = icmp_build_echo(buf, sizeof(buf), ICMP_ECHO_REPLY, m.id, m.seq,
	                    m.data, m.data_len);
	CHECK(n == (int)len, "icmp: reply length");
	CHECK(icmp_parse(buf, (size_t)n, &r) == NET_DROP_NONE,
	      "icmp: own reply refused");
	CHECK(r.id == m.id && r.seq == m.seq && r.data_len == m.data_len &&
	          memcmp(r.data, m.data, m.data_len) == 0,
	      "icmp: reply does not echo");
	return NULL;
}

static const char *
ip_layer(const uint8_t *p, size_t len)
{
	static uint8_t buf[576];
	struct ipv4_info h, h2;
	struct icmp_msg m;
	int n;

	if (count(ipv4_parse(p, len, &h)) != NET_DROP_NONE)
		return NULL;
	CHECK(h.hdr_len == IPV4_HLEN, "ip: accepted options");
	CHECK(inside(h.payload, h.payload_len, p, len), "ip: view outside");
	CHECK(h.ttl != 0 && !(h.frag & (IPV4_FLAG_MF | IPV4_FRAG_OFFSET)),
	      "ip: accepted TTL 0 or a fragment");
	CHECK(ipv4_build(buf, sizeof(buf), &h, h.payload_len) == IPV4_HLEN,
	      "ip: rebuild");
	CHECK(memcmp(buf, p, 10) == 0 && memcmp(buf + 12, p + 12, 8) == 0,
	      "ip: rebuilt header differs");
	CHECK(ipv4_parse(buf,
	                 IPV4_HLEN + h.payload_len > sizeof(buf)
	                     ? IPV4_HLEN
	                     : IPV4_HLEN + h.payload_len,
	                 &h2) != NET_DROP_IP_BAD_CHECKSUM,
	      "ip: built a bad checksum");
	/* TTL decrement by incremental update must stay valid. */
	if (h.ttl > 1) {
		uint16_t old = get_be16(buf + 8);

		buf[8]--;
		put_be16(buf + 10, inet_csum_update16(get_be16(buf + 10), old,
		                                      get_be16(buf + 8)));
		CHECK(inet_csum(buf, IPV4_HLEN) == 0,
		      "csum: incremental TTL update wrong");
	}
	if (icmp_may_send_error(&h, false)) {
		n = icmp_build_unreach(buf, sizeof(buf), ICMP_PORT_UNREACH, 0,
		                       p, h.total_len);
		CHECK(n > 0, "icmp: cannot quote an accepted datagram");
		CHECK(icmp_parse(buf, (size_t)n, &m) == NET_DROP_NONE,
		      "icmp: own unreachable refused");
		CHECK(m.quote.src == h.src && m.quote.dst == h.dst &&
		          m.quote.proto == h.proto,
		      "icmp: quote differs");
	}
	switch (h.proto) {
	case IP_PROTO_ICMP:
		return icmp_layer(h.payload, h.payload_len);
	case IP_PROTO_UDP:
		return udp_layer(h.payload, h.payload_len, h.src, h.dst);
	default:
		return NULL;
	}
}

static const char *
ether_layer(const uint8_t *p, size_t len)
{
	struct ether_frame f;
	uint8_t hdr[ETH_HLEN];

	if (count(ether_parse(p, len, &f)) != NET_DROP_NONE)
		return NULL;
	CHECK(ether_build(hdr, sizeof(hdr), f.dst, f.src, f.type) == ETH_HLEN &&
	          memcmp(hdr, p, ETH_HLEN) == 0,
	      "ether: rebuild differs");
	switch (f.type) {
	case ETH_P_ARP:
		return arp_layer(f.payload, f.payload_len);
	case ETH_P_IP:
		return ip_layer(f.payload, f.payload_len);
	default:
		return NULL;
	}
}

/* Routes from the bytes, against a brute-force longest-prefix match. */
static const char *
route_layer(const uint8_t *p, size_t len)
{
	struct route slots[8], got, r;
	struct route_table t;
	size_t i, j, best;
	int ret;

	route_table_init(&t, slots, 8);
	for (i = 0; i + 8 <= len && i < 8 * 64; i += 8) {
		r.len = p[i] % 34; /* 33: invalid on purpose */
		r.prefix = get_be32(p + i + 1) & ipv4_netmask(r.len % 33);
		r.gateway = p[i + 5] & 1 ? 0 : 0x0a000000u | p[i + 5];
		r.ifindex = p[i + 6] % 3;
		r.metric = p[i + 7] % 4;
		if (p[i + 7] & 0x80)
			ret = route_del(&t, r.prefix, r.len, r.ifindex);
		else
			ret = route_add(&t, &r);
		CHECK(ret == 0 || ret == -EINVAL || ret == -EEXIST ||
		          ret == -ENOSPC || ret == -ESRCH,
		      "route: unexpected error");
		CHECK(route_table_check(&t) == 0, "route: table inconsistent");
		ret = route_lookup(&t, r.prefix | p[i + 5], &got);
		best = t.n;
		for (j = 0; j < t.n; j++) {
			const struct route *e = &slots[j];
			uint32_t dst = r.prefix | p[i + 5];

			if ((dst & ipv4_netmask(e->len)) != e->prefix)
				continue;
			if (best == t.n || e->len > slots[best].len ||
			    (e->len == slots[best].len &&
			     e->metric < slots[best].metric))
				best = j;
		}
		CHECK((ret == 0) == (best < t.n), "route: lookup vs model");
		CHECK(ret != 0 || (got.len == slots[best].len &&
		                   got.metric == slots[best].metric),
		      "route: not the longest prefix");
	}
	return NULL;
}

/* Neighbour events from the bytes; invariants after each. */
static const char *
neigh_layer(const uint8_t *p, size_t len)
{
	static const uint8_t macs[2][ETH_ALEN] = {{2, 0, 0, 0, 0, 1},
	                                          {2, 0, 0, 0, 0, 2}};
	struct neigh_entry e;
	struct neigh_action a;
	uint64_t now = 0;
	size_t i;

	neigh_init(&e, 0x0a000202);
	for (i = 0; i < len && i < 256; i++) {
		now += (uint64_t)(p[i] >> 2) * 250;
		switch (p[i] & 3) {
		case 0:
			neigh_output(&e, &neigh_default_params, now, &a);
			break;
		case 1:
			neigh_input(&e, &neigh_default_params, now,
			            macs[p[i] >> 7], (p[i] >> 6) & 1, &a);
			break;
		case 2:
			neigh_timer(&e, &neigh_default_params, now, &a);
			break;
		default:
			if (p[i] == 0xff)
				neigh_ifdown(&e, &a);
			else
				neigh_timer(&e, &neigh_default_params, now, &a);
			break;
		}
		CHECK(e.queued == 0 || e.state == NEIGH_INCOMPLETE,
		      "neigh: queued outside INCOMPLETE");
		CHECK(e.queued <= neigh_default_params.queue_len,
		      "neigh: queue over its bound");
		CHECK(!(a.flags & NEIGH_ACT_REMOVE) || e.state == NEIGH_NONE,
		      "neigh: removed a live entry");
		CHECK(!(a.flags & NEIGH_ACT_XMIT) ||
		          e.state == NEIGH_REACHABLE || e.state == NEIGH_STALE,
		      "neigh: xmit without an address");
		CHECK((e.timer == 0) == (e.state == NEIGH_NONE),
		      "neigh: timer and state disagree");
		CHECK(e.timer == 0 || e.timer > now, "neigh: stale deadline");
	}
	return NULL;
}

const char *
net_pipeline(const uint8_t *data, size_t len, struct net_drop_stats *st)
{
	stats = st;
	TRY(ether_layer(data, len));
	TRY(ip_layer(data, len));
	TRY(arp_layer(data, len));
	TRY(dhcp_layer(data, len));
	TRY(udp_layer(data, len, 0x0a000202, 0x0a00020f));
	TRY(icmp_layer(data, len));
	TRY(route_layer(data, len));
	TRY(neigh_layer(data, len));
	return NULL;
}
