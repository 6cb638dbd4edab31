/*
 * The DHCP client state machine against a scripted slirp server: a whole
 * lease (DISCOVER, OFFER, REQUEST, ACK, renew at T1, rebind at T2,
 * expiry), retransmission and backoff, NAK, and every reason a reply is
 * ignored.  Jitter is off (0) except in the one test about jitter.
 */
#include "net/apps/dhcp_fsm.h"
#include "net/ipv4/ipv4_hdr.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"

#define SERVER    IP4(10, 0, 2, 2)
#define GUEST     IP4(10, 0, 2, 15)
#define BOOTP_LEN 548

/* Offsets in the slirp reply (options from 240: 53 at 240, 54 at 243,
 * 1 at 249, 3 at 255, 6 at 261, 51 at 267, end at 273). */
enum { O_XID = 4, O_YIADDR = 16, O_TYPE = 242, O_SID = 245, O_LEASE = 269 };

static struct dhcp_params P;
static struct dhcp_client C;
static struct dhcp_out out;
static uint8_t buf[DHCP_BUILD_LEN];
static uint8_t reply[BOOTP_LEN];

/* A slirp reply of this type for the client's current xid. */
static const uint8_t *
server(uint8_t type)
{
	memcpy(reply, slirp_dhcp_ack + 42, BOOTP_LEN);
	put_be32(reply + O_XID, C.xid);
	reply[O_TYPE] = type;
	return reply;
}

static enum net_drop
deliver(uint64_t now)
{
	return dhcp_client_input(&C, &P, now, reply, BOOTP_LEN, buf,
	                         sizeof(buf), &out);
}

static void
tick(uint64_t now)
{
	dhcp_client_timer(&C, &P, now, buf, sizeof(buf), &out);
}

/* The message type of what the client just sent. */
static uint8_t
sent_type(void)
{
	return out.len >= 243 ? buf[242] : 0;
}

static void
fresh(void)
{
	P = dhcp_default_params;
	P.jitter_ms = 0;
	dhcp_client_init(&C, guest_mac, 42);
	dhcp_client_start(&C, &P, 0, buf, sizeof(buf), &out);
}

/* INIT -> SELECTING -> REQUESTING -> BOUND against slirp. */
static void
acquire(struct kt *t)
{
	uint32_t xid;

	fresh();
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	KT_EXPECT_EQ(t, out.len, DHCP_BUILD_LEN);
	KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
	KT_EXPECT_EQ(t, out.src, 0);
	KT_EXPECT_EQ(t, out.dst, IPV4_BROADCAST);
	KT_EXPECT_EQ(t, get_be32(buf + 4), C.xid);
	KT_EXPECT_EQ(t, C.timer, 4000);
	xid = C.xid;
	server(DHCPOFFER);
	KT_EXPECT_DROP(t, deliver(100), NET_DROP_NONE);
	KT_EXPECT_EQ(t, C.state, DHCP_REQUESTING);
	KT_EXPECT_EQ(t, sent_type(), DHCPREQUEST);
	KT_EXPECT_EQ(t, C.xid, xid); /* RFC 2131 4.4.1: the offer's xid */
	KT_EXPECT_EQ(t, get_be32(buf + 4), xid);
	KT_EXPECT_EQ(t, out.dst, IPV4_BROADCAST);
	KT_EXPECT_EQ(t, C.offer.addr, GUEST);
	KT_EXPECT_EQ(t, C.timer, 4100);
	server(DHCPACK);
	KT_EXPECT_DROP(t, deliver(200), NET_DROP_NONE);
	KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_BOUND);
	KT_EXPECT_EQ(t, out.len, 0);
	KT_EXPECT_EQ(t, C.lease.addr, GUEST);
	KT_EXPECT_EQ(t, C.lease.mask, IP4(255, 255, 255, 0));
	KT_EXPECT_EQ(t, C.lease.router, SERVER);
	KT_EXPECT_EQ(t, C.lease.server, SERVER);
	KT_EXPECT_EQ(t, C.lease.ndns, 1);
	KT_EXPECT_EQ(t, C.lease.dns[0], IP4(10, 0, 2, 3));
	KT_EXPECT_EQ(t, C.lease.lease_s, 86400);
	KT_EXPECT_EQ(t, C.lease.t1_s, 43200); /* 0.5 */
	KT_EXPECT_EQ(t, C.lease.t2_s, 75600); /* 0.875 */
	KT_EXPECT_EQ(t, C.timer, 43200000);
}

/* DISCOVER after 4, 8, 16, 32, 64, 64 s, same xid, secs counting. */
static void
discover_backoff(struct kt *t)
{
	static const uint64_t at[] = {4000,   12000,  28000, 60000,
	                              124000, 188000, 252000};
	uint32_t xid;
	size_t i;

	fresh();
	xid = C.xid;
	for (i = 0; i + 1 < ARRAY_LEN(at); i++) {
		KT_EXPECT_EQ(t, C.timer, at[i]);
		tick(at[i] - 1);
		KT_EXPECT_EQ(t, out.len, 0);
		tick(at[i]);
		KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
		KT_EXPECT_EQ(t, get_be32(buf + 4), xid);
		KT_EXPECT_EQ(t, get_be16(buf + 8), at[i] / 1000);
	}
	KT_EXPECT_EQ(t, C.timer, at[ARRAY_LEN(at) - 1]);
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
}

/* +-1 s of jitter around each timeout (RFC 2131 4.1). */
static void
discover_jitter(struct kt *t)
{
	int i;

	P = dhcp_default_params;
	for (i = 0; i < 50; i++) {
		dhcp_client_init(&C, guest_mac, (uint32_t)i);
		dhcp_client_start(&C, &P, 0, buf, sizeof(buf), &out);
		KT_EXPECT(t, C.timer >= 3000 && C.timer <= 5000);
		tick(C.timer);
		KT_EXPECT(t, C.timer >= 4000 + 7000 - 1000 &&
		                 C.timer <= 5000 + 9000);
	}
}

/* Four unanswered REQUESTs: back to SELECTING with a new xid. */
static void
request_timeout_restarts(struct kt *t)
{
	uint32_t xid;
	int sends = 1;

	fresh();
	server(DHCPOFFER);
	deliver(100);
	xid = C.xid;
	while (C.state == DHCP_REQUESTING) {
		tick(C.timer);
		if (sent_type() == DHCPREQUEST)
			sends++;
	}
	KT_EXPECT_EQ(t, sends, 4);
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
	KT_EXPECT(t, C.xid != xid);
	KT_EXPECT_EQ(t, out.events, 0);
}

static void
nak_while_requesting(struct kt *t)
{
	uint32_t xid;

	fresh();
	server(DHCPOFFER);
	deliver(100);
	xid = C.xid;
	server(DHCPNAK);
	KT_EXPECT_DROP(t, deliver(200), NET_DROP_NONE);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_NAK);
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
	KT_EXPECT(t, C.xid != xid);
}

/* Renew at T1 by unicast, resend at half the time to T2 (>= 60 s),
 * rebind at T2 by broadcast, lose the lease at expiry. */
static void
renew_rebind_expire(struct kt *t)
{
	uint64_t prev = 0;
	int renews = 0, rebinds = 0;

	acquire(t);
	tick(43200000);
	KT_EXPECT_EQ(t, C.state, DHCP_RENEWING);
	KT_EXPECT_EQ(t, sent_type(), DHCPREQUEST);
	KT_EXPECT_EQ(t, out.src, GUEST);
	KT_EXPECT_EQ(t, out.dst, SERVER);
	KT_EXPECT_EQ(t, get_be32(buf + 12), GUEST); /* ciaddr */
	KT_EXPECT_EQ(t, get_be16(buf + 10), 0);     /* no broadcast flag */
	KT_EXPECT_EQ(t, C.timer, 43200000 + 16200000);
	while (C.state == DHCP_RENEWING) {
		prev = C.timer;
		tick(C.timer);
		renews++;
		KT_EXPECT(t, C.timer - prev >= 60000 || C.timer == C.t2_at ||
		                 C.state != DHCP_RENEWING);
	}
	KT_EXPECT_EQ(t, C.state, DHCP_REBINDING);
	KT_EXPECT_EQ(t, prev, 75600000);
	KT_EXPECT_EQ(t, out.dst, IPV4_BROADCAST);
	KT_EXPECT_EQ(t, out.src, GUEST);
	KT_EXPECT(t, renews > 3 && renews < 20);
	while (C.state == DHCP_REBINDING) {
		tick(C.timer);
		rebinds++;
	}
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_LOST);
	KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
	KT_EXPECT(t, rebinds > 1 && rebinds < 20);
	KT_EXPECT_EQ(t, C.lease.addr, 0);
}

static void
renewal_ack_and_nak(struct kt *t)
{
	acquire(t);
	tick(43200000);
	server(DHCPACK);
	KT_EXPECT_DROP(t, deliver(43200500), NET_DROP_NONE);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_RENEWED);
	KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
	KT_EXPECT_EQ(t, C.timer, 86400000); /* T1 from the renewal */
	tick(86400000);
	server(DHCPNAK);
	KT_EXPECT_DROP(t, deliver(86400100), NET_DROP_NONE);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_NAK | DHCP_EV_LOST);
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	KT_EXPECT_EQ(t, sent_type(), DHCPDISCOVER);
}

/* REBINDING takes an ACK from any server; a new address is a new lease. */
static void
rebind_other_server_new_address(struct kt *t)
{
	acquire(t);
	tick(43200000);
	while (C.state == DHCP_RENEWING)
		tick(C.timer);
	server(DHCPACK);
	put_be32(reply + O_SID, IP4(10, 0, 2, 4));
	put_be32(reply + O_YIADDR, IP4(10, 0, 2, 16));
	KT_EXPECT_DROP(t, deliver(C.timer - 1), NET_DROP_NONE);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_LOST | DHCP_EV_BOUND);
	KT_EXPECT_EQ(t, C.lease.addr, IP4(10, 0, 2, 16));
	KT_EXPECT_EQ(t, C.lease.server, IP4(10, 0, 2, 4));
}

/* Every reason a well-formed reply is ignored. */
static void
ignored_replies(struct kt *t)
{
	fresh();
	/* INIT: nothing asked. */
	dhcp_client_init(&C, guest_mac, 1);
	server(DHCPOFFER);
	KT_EXPECT_DROP(t, deliver(0), NET_DROP_DHCP_UNEXPECTED);
	fresh();
	server(DHCPOFFER);
	reply[28 + 5] ^= 1; /* chaddr of another client */
	KT_EXPECT_DROP(t, deliver(10), NET_DROP_DHCP_NOT_FOR_US);
	server(DHCPOFFER);
	put_be32(reply + O_XID, C.xid + 1);
	KT_EXPECT_DROP(t, deliver(10), NET_DROP_DHCP_BAD_XID);
	server(DHCPACK);
	KT_EXPECT_DROP(t, deliver(10), NET_DROP_DHCP_UNEXPECTED);
	server(DHCPNAK);
	KT_EXPECT_DROP(t, deliver(10), NET_DROP_DHCP_UNEXPECTED);
	KT_EXPECT_EQ(t, C.state, DHCP_SELECTING);
	server(DHCPOFFER);
	deliver(20);
	/* A second server's offer while requesting the first's. */
	server(DHCPOFFER);
	KT_EXPECT_DROP(t, deliver(30), NET_DROP_DHCP_UNEXPECTED);
	server(DHCPACK);
	put_be32(reply + O_SID, IP4(10, 0, 2, 4));
	KT_EXPECT_DROP(t, deliver(30), NET_DROP_DHCP_WRONG_SERVER);
	server(DHCPNAK);
	put_be32(reply + O_SID, IP4(10, 0, 2, 4));
	KT_EXPECT_DROP(t, deliver(30), NET_DROP_DHCP_WRONG_SERVER);
	KT_EXPECT_EQ(t, C.state, DHCP_REQUESTING);
	/* A malformed reply reports the parser's reason. */
	server(DHCPACK);
	reply[236] = 0;
	KT_EXPECT_DROP(t, deliver(30), NET_DROP_DHCP_BAD_MAGIC);
	server(DHCPACK);
	deliver(40);
	KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
	/* BOUND: a duplicate ACK is not news. */
	server(DHCPACK);
	KT_EXPECT_DROP(t, deliver(50), NET_DROP_DHCP_UNEXPECTED);
	/* RENEWING: only the leasing server. */
	tick(C.timer);
	server(DHCPACK);
	put_be32(reply + O_SID, IP4(10, 0, 2, 4));
	KT_EXPECT_DROP(t, deliver(C.timer - 1), NET_DROP_DHCP_WRONG_SERVER);
}

static void
infinite_lease(struct kt *t)
{
	fresh();
	server(DHCPOFFER);
	deliver(0);
	server(DHCPACK);
	put_be32(reply + O_LEASE, DHCP_LEASE_INFINITE);
	KT_EXPECT_DROP(t, deliver(0), NET_DROP_NONE);
	KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
	KT_EXPECT_EQ(t, C.timer, 0);
	tick(UINT64_MAX / 2);
	KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
	KT_EXPECT_EQ(t, out.len, 0);
}

/* T1/T2 from the server when T1 < T2 < lease, else the defaults. */
static void
server_t1_t2(struct kt *t)
{
	static const uint8_t tail[] = {58, 4, 0, 0, 0,   100, 59,
	                               4,  0, 0, 0, 200, 255};

	fresh();
	server(DHCPOFFER);
	deliver(0);
	server(DHCPACK);
	memcpy(reply + 273, tail, sizeof(tail));
	deliver(0);
	KT_EXPECT_EQ(t, C.lease.t1_s, 100);
	KT_EXPECT_EQ(t, C.lease.t2_s, 200);
	KT_EXPECT_EQ(t, C.timer, 100000);
	fresh();
	server(DHCPOFFER);
	deliver(0);
	server(DHCPACK);
	memcpy(reply + 273, tail, sizeof(tail));
	reply[273 + 5] = 250; /* T1 250 > T2 200 */
	deliver(0);
	KT_EXPECT_EQ(t, C.lease.t1_s, 43200);
	KT_EXPECT_EQ(t, C.lease.t2_s, 75600);
}

/* The default T1 and T2 (half and seven eighths) stay in T1 < T2 < lease
 * for a lease of a few seconds, where the fractions round onto the lease
 * or each other (the fuzzer's find: a 6 s lease gave T2 = 6). */
static void
short_lease_times_in_order(struct kt *t)
{
	static const uint32_t leases[] = {2, 3, 6, 7, 8, 9};
	static const uint32_t t1[] = {0, 1, 3, 3, 4, 4};
	static const uint32_t t2[] = {1, 2, 5, 6, 7, 8};

	for (size_t i = 0; i < sizeof(leases) / sizeof(leases[0]); i++) {
		fresh();
		server(DHCPOFFER);
		deliver(0);
		server(DHCPACK);
		put_be32(reply + 267 + 2, leases[i]); /* option 51's value */
		deliver(0);
		KT_EXPECT_EQ(t, C.state, DHCP_BOUND);
		KT_EXPECT_EQ(t, C.lease.lease_s, leases[i]);
		KT_EXPECT_EQ(t, C.lease.t1_s, t1[i]);
		KT_EXPECT_EQ(t, C.lease.t2_s, t2[i]);
	}
}

static void
small_buffer_and_stop(struct kt *t)
{
	fresh();
	dhcp_client_start(&C, &P, 0, buf, 100, &out);
	KT_EXPECT_EQ(t, out.err, -ENOSPC);
	KT_EXPECT_EQ(t, out.len, 0);
	acquire(t);
	dhcp_client_stop(&C, &out);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_LOST);
	KT_EXPECT_EQ(t, C.state, DHCP_INIT);
	KT_EXPECT_EQ(t, C.timer, 0);
	dhcp_client_stop(&C, &out);
	KT_EXPECT_EQ(t, out.events, 0);
	/* Restarting while bound reports the loss too. */
	acquire(t);
	dhcp_client_start(&C, &P, 1000, buf, sizeof(buf), &out);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_LOST);
	KT_EXPECT_STREQ(t, dhcp_state_name(C.state), "SELECTING");
}

static const struct kt_case cases[] = {
    KT_CASE(acquire),
    KT_CASE(discover_backoff),
    KT_CASE(discover_jitter),
    KT_CASE(request_timeout_restarts),
    KT_CASE(nak_while_requesting),
    KT_CASE(renew_rebind_expire),
    KT_CASE(renewal_ack_and_nak),
    KT_CASE(rebind_other_server_new_address),
    KT_CASE(ignored_replies),
    KT_CASE(infinite_lease),
    KT_CASE(server_t1_t2),
    KT_CASE(short_lease_times_in_order),
    KT_CASE(small_buffer_and_stop),
    KT_END,
};
const struct kt_suite dhcp_fsm_suite = {"dhcp_fsm", cases};
