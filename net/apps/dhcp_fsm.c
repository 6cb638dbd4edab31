/*
 * DHCP client state machine; the transition table is in dhcp_fsm.h.
 * Every path that sends goes through send_msg(), every timer through
 * arm_*(), so the retransmission policy lives in one place each.
 */
#include "net/apps/dhcp_fsm.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

const struct dhcp_params dhcp_default_params = {
    .first_rto_ms = 4000,
    .max_rto_ms = 64000,
    .jitter_ms = 1000,
    .request_tries = 4,
    .min_renew_ms = 60000,
};

const char *
dhcp_state_name(enum dhcp_state s)
{
	switch (s) {
	case DHCP_INIT:
		return "INIT";
	case DHCP_SELECTING:
		return "SELECTING";
	case DHCP_REQUESTING:
		return "REQUESTING";
	case DHCP_BOUND:
		return "BOUND";
	case DHCP_RENEWING:
		return "RENEWING";
	case DHCP_REBINDING:
		return "REBINDING";
	}
	return "?";
}

static uint32_t
rng(struct dhcp_client *c)
{
	uint32_t x = c->rand;

	/* xorshift32 (Marsaglia 2003): enough to spread xids and jitter. */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	c->rand = x;
	return x;
}

void
dhcp_client_init(struct dhcp_client *c, const uint8_t mac[ETH_ALEN],
                 uint32_t seed)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->mac, mac, ETH_ALEN);
	c->rand = seed ^ get_be32(mac + 2) ^ 0x9e3779b9u;
	if (c->rand == 0)
		c->rand = 1;
	c->state = DHCP_INIT;
}

static bool
holds_lease(const struct dhcp_client *c)
{
	return c->state == DHCP_BOUND || c->state == DHCP_RENEWING ||
	       c->state == DHCP_REBINDING;
}

static void
start_out(struct dhcp_out *out)
{
	memset(out, 0, sizeof(*out));
}

/* Seconds since the exchange began, saturated to the 16-bit field. */
static uint16_t
elapsed_secs(const struct dhcp_client *c, uint64_t now)
{
	uint64_t ms = now - c->start;

	if (ms >= 65535u * 1000u)
		return 65535;
	return (uint16_t)((uint32_t)ms / 1000u);
}

/* Builds the message of the current state into buf and addresses it. */
static void
send_msg(struct dhcp_client *c, uint64_t now, uint8_t *buf, size_t cap,
         struct dhcp_out *out)
{
	struct dhcp_request r;
	int len;

	memset(&r, 0, sizeof(r));
	r.xid = c->xid;
	r.secs = elapsed_secs(c, now);
	memcpy(r.mac, c->mac, ETH_ALEN);
	out->src = 0;
	out->dst = IPV4_BROADCAST;
	switch (c->state) {
	case DHCP_SELECTING:
		r.type = DHCPDISCOVER;
		r.broadcast = true;
		c->secs = r.secs;
		break;
	case DHCP_REQUESTING:
		/* RFC 2131 4.4.1: the secs of the DISCOVER it answers. */
		r.type = DHCPREQUEST;
		r.secs = c->secs;
		r.broadcast = true;
		r.requested_ip = c->offer.addr;
		r.server_id = c->offer.server;
		break;
	case DHCP_RENEWING:
		out->dst = c->lease.server;
		/* fall through */
	case DHCP_REBINDING:
		r.type = DHCPREQUEST;
		r.ciaddr = c->lease.addr;
		out->src = c->lease.addr;
		break;
	default:
		return;
	}
	len = dhcp_build_request(buf, cap, &r);
	if (len < 0) {
		out->err = len;
		return;
	}
	out->len = (size_t)len;
	c->tries++;
}

/* Exponential backoff with jitter for SELECTING and REQUESTING. */
static void
arm_backoff(struct dhcp_client *c, const struct dhcp_params *p, uint64_t now)
{
	uint32_t wait = c->rto;

	if (p->jitter_ms > 0 && wait > p->jitter_ms)
		wait = wait - p->jitter_ms + rng(c) % (2 * p->jitter_ms + 1);
	c->timer = now + (wait > 0 ? wait : 1);
	c->rto = c->rto >= p->max_rto_ms / 2 ? p->max_rto_ms : 2 * c->rto;
}

/* RENEWING and REBINDING: half the time left to limit, at least
 * min_renew_ms, never past limit (RFC 2131 4.4.5). */
static void
arm_renew(struct dhcp_client *c, const struct dhcp_params *p, uint64_t now,
          uint64_t limit)
{
	uint64_t wait = (limit - now) / 2;

	if (wait < p->min_renew_ms)
		wait = p->min_renew_ms;
	c->timer = now + wait < limit ? now + wait : limit;
}

/* A new exchange: fresh xid, backoff and secs origin. */
static void
new_exchange(struct dhcp_client *c, const struct dhcp_params *p, uint64_t now,
             enum dhcp_state s)
{
	c->state = s;
	c->xid = rng(c);
	c->start = now;
	c->tries = 0;
	c->rto = p->first_rto_ms;
}

static void
restart(struct dhcp_client *c, const struct dhcp_params *p, uint64_t now,
        uint8_t *buf, size_t cap, struct dhcp_out *out)
{
	if (holds_lease(c)) {
		out->events |= DHCP_EV_LOST;
		memset(&c->lease, 0, sizeof(c->lease));
	}
	new_exchange(c, p, now, DHCP_SELECTING);
	send_msg(c, now, buf, cap, out);
	arm_backoff(c, p, now);
}

void
dhcp_client_start(struct dhcp_client *c, const struct dhcp_params *p,
                  uint64_t now, uint8_t *buf, size_t cap, struct dhcp_out *out)
{
	start_out(out);
	restart(c, p, now, buf, cap, out);
}

void
dhcp_client_stop(struct dhcp_client *c, struct dhcp_out *out)
{
	start_out(out);
	if (holds_lease(c))
		out->events |= DHCP_EV_LOST;
	memset(&c->lease, 0, sizeof(c->lease));
	c->state = DHCP_INIT;
	c->timer = 0;
}

/* RFC 2131 4.4.5's T1 and T2 defaults, half and seven eighths of the
 * lease, kept in T1 < T2 < lease also for a lease of a few seconds, where
 * the fractions round onto the lease or each other (6 s gave T2 = 6). */
static void
default_t1_t2(struct dhcp_lease *l)
{
	l->t1_s = l->lease_s / 2;
	l->t2_s = l->lease_s - l->lease_s / 8;
	if (l->t2_s >= l->lease_s && l->lease_s > 0)
		l->t2_s = l->lease_s - 1;
	if (l->t1_s >= l->t2_s && l->t2_s > 0)
		l->t1_s = l->t2_s - 1;
}

/* The lease a reply describes, with T1/T2 defaulted and checked. */
static void
lease_from(struct dhcp_lease *l, const struct dhcp_msg *m)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->addr = m->yiaddr;
	l->server = m->server_id;
	if (m->have & DHCP_HAVE_SUBNET)
		l->mask = m->mask;
	if (m->have & DHCP_HAVE_ROUTER)
		l->router = m->router;
	for (i = 0; i < m->ndns; i++)
		l->dns[i] = m->dns[i];
	l->ndns = m->ndns;
	l->lease_s = m->lease_s;
	if (l->lease_s == DHCP_LEASE_INFINITE) {
		l->t1_s = l->t2_s = DHCP_LEASE_INFINITE;
		return;
	}
	default_t1_t2(l);
	if (m->have & DHCP_HAVE_T1)
		l->t1_s = m->t1_s;
	if (m->have & DHCP_HAVE_T2)
		l->t2_s = m->t2_s;
	/* The server's times only in order: else both defaults. */
	if (l->t1_s >= l->t2_s || l->t2_s >= l->lease_s)
		default_t1_t2(l);
}

/* BOUND from an ACK.  RFC 2131 4.4.1 counts the lease from the sending
 * of the request; counting from the start of the exchange (the first
 * DISCOVER or REQUEST) is the same or a little earlier, so never late. */
static void
bind_lease(struct dhcp_client *c, const struct dhcp_msg *m,
           struct dhcp_out *out)
{
	bool renewal = holds_lease(c);
	uint32_t old = c->lease.addr;

	lease_from(&c->lease, m);
	if (!renewal)
		out->events |= DHCP_EV_BOUND;
	else if (old == c->lease.addr)
		out->events |= DHCP_EV_RENEWED;
	else
		out->events |= DHCP_EV_LOST | DHCP_EV_BOUND;
	c->state = DHCP_BOUND;
	if (c->lease.lease_s == DHCP_LEASE_INFINITE) {
		c->t1_at = c->t2_at = c->expire_at = c->timer = 0;
		return;
	}
	c->t1_at = c->start + (uint64_t)c->lease.t1_s * 1000;
	c->t2_at = c->start + (uint64_t)c->lease.t2_s * 1000;
	c->expire_at = c->start + (uint64_t)c->lease.lease_s * 1000;
	c->timer = c->t1_at > 0 ? c->t1_at : 1;
}

/* Which server may answer now: the one we asked, or anyone (REBINDING). */
static bool
right_server(const struct dhcp_client *c, const struct dhcp_msg *m)
{
	switch (c->state) {
	case DHCP_REQUESTING:
		return m->server_id == c->offer.server;
	case DHCP_RENEWING:
		return m->server_id == c->lease.server;
	default:
		return true;
	}
}

enum net_drop
dhcp_client_input(struct dhcp_client *c, const struct dhcp_params *p,
                  uint64_t now, const uint8_t *msg, size_t len, uint8_t *buf,
                  size_t cap, struct dhcp_out *out)
{
	struct dhcp_msg m;
	enum net_drop r;

	start_out(out);
	r = dhcp_parse_reply(msg, len, &m);
	if (r != NET_DROP_NONE)
		return r;
	if (memcmp(m.chaddr, c->mac, ETH_ALEN) != 0)
		return NET_DROP_DHCP_NOT_FOR_US;
	if (c->state == DHCP_INIT || c->state == DHCP_BOUND)
		return NET_DROP_DHCP_UNEXPECTED;
	if (m.xid != c->xid)
		return NET_DROP_DHCP_BAD_XID;
	if (c->state == DHCP_SELECTING) {
		if (m.type != DHCPOFFER)
			return NET_DROP_DHCP_UNEXPECTED;
		lease_from(&c->offer, &m);
		/* Same xid (RFC 2131 4.4.1), a fresh backoff. */
		c->state = DHCP_REQUESTING;
		c->tries = 0;
		c->rto = p->first_rto_ms;
		send_msg(c, now, buf, cap, out);
		arm_backoff(c, p, now);
		return NET_DROP_NONE;
	}
	if (m.type == DHCPOFFER)
		return NET_DROP_DHCP_UNEXPECTED;
	if (!right_server(c, &m))
		return NET_DROP_DHCP_WRONG_SERVER;
	if (m.type == DHCPNAK) {
		out->events |= DHCP_EV_NAK;
		restart(c, p, now, buf, cap, out);
		return NET_DROP_NONE;
	}
	bind_lease(c, &m, out);
	return NET_DROP_NONE;
}

void
dhcp_client_timer(struct dhcp_client *c, const struct dhcp_params *p,
                  uint64_t now, uint8_t *buf, size_t cap, struct dhcp_out *out)
{
	start_out(out);
	if (c->timer == 0 || now < c->timer)
		return;
	switch (c->state) {
	case DHCP_INIT:
		c->timer = 0;
		break;
	case DHCP_REQUESTING:
		if (c->tries >= p->request_tries) {
			restart(c, p, now, buf, cap, out);
			break;
		}
		/* fall through */
	case DHCP_SELECTING:
		send_msg(c, now, buf, cap, out);
		arm_backoff(c, p, now);
		break;
	case DHCP_BOUND:
		new_exchange(c, p, now, DHCP_RENEWING);
		/* fall through */
	case DHCP_RENEWING:
		if (now >= c->t2_at) {
			new_exchange(c, p, now, DHCP_REBINDING);
		} else {
			send_msg(c, now, buf, cap, out);
			arm_renew(c, p, now, c->t2_at);
			break;
		}
		/* fall through */
	case DHCP_REBINDING:
		if (now >= c->expire_at) {
			restart(c, p, now, buf, cap, out);
			break;
		}
		send_msg(c, now, buf, cap, out);
		arm_renew(c, p, now, c->expire_at);
		break;
	}
}
