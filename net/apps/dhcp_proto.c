/*
 * DHCP message build and hostile-input parse (RFC 2131, RFC 2132).  The
 * checks and their order are listed in dhcp_proto.h.
 */
#include "net/apps/dhcp_proto.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

/* RFC 2131 section 2, figure 1: offsets of the fixed fields. */
enum {
	OFF_OP = 0,
	OFF_HTYPE = 1,
	OFF_HLEN = 2,
	OFF_HOPS = 3,
	OFF_XID = 4,
	OFF_SECS = 8,
	OFF_FLAGS = 10,
	OFF_CIADDR = 12,
	OFF_YIADDR = 16,
	OFF_SIADDR = 20,
	OFF_GIADDR = 24,
	OFF_CHADDR = 28,
	OFF_MAGIC = DHCP_FIXED_LEN,
	OFF_OPTIONS = DHCP_FIXED_LEN + 4,
};

#define HTYPE_ETHER 1 /* RFC 1700 "Hardware Type" */

/* Where an options field lies, for the overload rule. */
enum field { FIELD_OPTIONS, FIELD_FILE, FIELD_SNAME };

/* Marks an option seen; a second sighting is a duplicate. */
static enum net_drop
once(struct dhcp_msg *m, unsigned int bit)
{
	if (m->have & bit)
		return NET_DROP_DHCP_OPT_DUPLICATE;
	m->have |= bit;
	return NET_DROP_NONE;
}

/* An option that is one 32-bit value. */
static enum net_drop
opt_u32(struct dhcp_msg *m, unsigned int bit, const uint8_t *v, size_t n,
        uint32_t *dst)
{
	if (n != 4)
		return NET_DROP_DHCP_OPT_BAD_LEN;
	*dst = get_be32(v);
	return once(m, bit);
}

/* A list of addresses: router (first kept) and DNS (first three kept). */
static enum net_drop
opt_addrs(struct dhcp_msg *m, unsigned int bit, const uint8_t *v, size_t n,
          uint32_t *dst, unsigned int max, unsigned int *count)
{
	unsigned int i;

	if (n == 0 || n % 4 != 0)
		return NET_DROP_DHCP_OPT_BAD_LEN;
	for (i = 0; i < n / 4 && i < max; i++)
		dst[i] = get_be32(v + 4 * i);
	if (count != NULL)
		*count = i;
	return once(m, bit);
}

/* Interprets one option; unknown codes are accepted and ignored. */
static enum net_drop
opt_one(struct dhcp_msg *m, enum field where, uint8_t code, const uint8_t *v,
        size_t n)
{
	enum net_drop r;

	switch (code) {
	case DHCP_OPT_MSG_TYPE:
		if (n != 1)
			return NET_DROP_DHCP_OPT_BAD_LEN;
		m->type = v[0];
		return once(m, DHCP_HAVE_MSG_TYPE);
	case DHCP_OPT_SUBNET:
		r = opt_u32(m, DHCP_HAVE_SUBNET, v, n, &m->mask);
		if (r == NET_DROP_NONE && ipv4_mask_len(m->mask) < 0)
			return NET_DROP_DHCP_OPT_BAD_VALUE;
		return r;
	case DHCP_OPT_ROUTER:
		return opt_addrs(m, DHCP_HAVE_ROUTER, v, n, &m->router, 1,
		                 NULL);
	case DHCP_OPT_DNS:
		return opt_addrs(m, DHCP_HAVE_DNS, v, n, m->dns, DHCP_MAX_DNS,
		                 &m->ndns);
	case DHCP_OPT_LEASE:
		r = opt_u32(m, DHCP_HAVE_LEASE, v, n, &m->lease_s);
		if (r == NET_DROP_NONE && m->lease_s == 0)
			return NET_DROP_DHCP_OPT_BAD_VALUE;
		return r;
	case DHCP_OPT_SERVER_ID:
		return opt_u32(m, DHCP_HAVE_SERVER_ID, v, n, &m->server_id);
	case DHCP_OPT_T1:
		return opt_u32(m, DHCP_HAVE_T1, v, n, &m->t1_s);
	case DHCP_OPT_T2:
		return opt_u32(m, DHCP_HAVE_T2, v, n, &m->t2_s);
	case DHCP_OPT_OVERLOAD:
		if (n != 1)
			return NET_DROP_DHCP_OPT_BAD_LEN;
		/* RFC 2132 9.3: only in the options field, values 1..3. */
		if (where != FIELD_OPTIONS || v[0] < 1 || v[0] > 3)
			return NET_DROP_DHCP_OPT_BAD_VALUE;
		m->overload = v[0];
		return once(m, DHCP_HAVE_OVERLOAD);
	default:
		return NET_DROP_NONE;
	}
}

/*
 * Walks one field of options: code, length, value; pad is one byte, end
 * stops the walk.  Each length is checked against the bytes left in the
 * field before the value is touched.
 */
static enum net_drop
opt_field(struct dhcp_msg *m, enum field where, const uint8_t *f, size_t len)
{
	size_t pos = 0, n;
	enum net_drop r;
	uint8_t code;

	while (pos < len) {
		code = f[pos];
		if (code == DHCP_OPT_PAD) {
			pos++;
			continue;
		}
		if (code == DHCP_OPT_END)
			return NET_DROP_NONE;
		if (len - pos < 2)
			return NET_DROP_DHCP_OPT_OVERRUN;
		n = f[pos + 1];
		if (n > len - pos - 2)
			return NET_DROP_DHCP_OPT_OVERRUN;
		r = opt_one(m, where, code, f + pos + 2, n);
		if (r != NET_DROP_NONE)
			return r;
		pos += 2 + n;
	}
	return NET_DROP_DHCP_OPT_NO_END;
}

static bool
usable_addr(uint32_t a)
{
	return !ipv4_is_zeronet(a) && !ipv4_is_loopback(a) &&
	       !ipv4_is_multicast(a) && a != IPV4_BROADCAST;
}

/* RFC 2131 table 3: what a reply to a client must carry. */
static enum net_drop
check_reply(const struct dhcp_msg *m)
{
	if (!(m->have & DHCP_HAVE_MSG_TYPE))
		return NET_DROP_DHCP_NO_MSG_TYPE;
	if (m->type != DHCPOFFER && m->type != DHCPACK && m->type != DHCPNAK)
		return NET_DROP_DHCP_BAD_MSG_TYPE;
	if (!(m->have & DHCP_HAVE_SERVER_ID))
		return NET_DROP_DHCP_NO_SERVER_ID;
	if (m->type == DHCPNAK)
		return NET_DROP_NONE;
	if (!(m->have & DHCP_HAVE_LEASE))
		return NET_DROP_DHCP_NO_LEASE;
	if (!usable_addr(m->yiaddr))
		return NET_DROP_DHCP_BAD_ADDR;
	return NET_DROP_NONE;
}

enum net_drop
dhcp_parse_reply(const uint8_t *p, size_t len, struct dhcp_msg *out)
{
	enum net_drop r;

	memset(out, 0, sizeof(*out));
	if (len < DHCP_MIN_LEN)
		return NET_DROP_DHCP_TRUNCATED;
	out->op = p[OFF_OP];
	out->xid = get_be32(p + OFF_XID);
	out->secs = get_be16(p + OFF_SECS);
	out->flags = get_be16(p + OFF_FLAGS);
	out->ciaddr = get_be32(p + OFF_CIADDR);
	out->yiaddr = get_be32(p + OFF_YIADDR);
	out->siaddr = get_be32(p + OFF_SIADDR);
	out->giaddr = get_be32(p + OFF_GIADDR);
	memcpy(out->chaddr, p + OFF_CHADDR, ETH_ALEN);
	if (out->op != BOOTP_REPLY)
		return NET_DROP_DHCP_BAD_OP;
	if (p[OFF_HTYPE] != HTYPE_ETHER || p[OFF_HLEN] != ETH_ALEN)
		return NET_DROP_DHCP_BAD_HTYPE;
	if (get_be32(p + OFF_MAGIC) != DHCP_MAGIC)
		return NET_DROP_DHCP_BAD_MAGIC;
	r = opt_field(out, FIELD_OPTIONS, p + OFF_OPTIONS, len - OFF_OPTIONS);
	if (r == NET_DROP_NONE && (out->overload & 1))
		r = opt_field(out, FIELD_FILE, p + DHCP_OFF_FILE,
		              DHCP_FILE_LEN);
	if (r == NET_DROP_NONE && (out->overload & 2))
		r = opt_field(out, FIELD_SNAME, p + DHCP_OFF_SNAME,
		              DHCP_SNAME_LEN);
	if (r != NET_DROP_NONE)
		return r;
	return check_reply(out);
}

/* Appends one option; the caller sized the buffer for all of them. */
static size_t
put_opt(uint8_t *buf, size_t pos, uint8_t code, const uint8_t *v, uint8_t n)
{
	buf[pos] = code;
	buf[pos + 1] = n;
	memcpy(buf + pos + 2, v, n);
	return pos + 2 + n;
}

static size_t
put_opt_u32(uint8_t *buf, size_t pos, uint8_t code, uint32_t val)
{
	uint8_t v[4];

	put_be32(v, val);
	return put_opt(buf, pos, code, v, 4);
}

int
dhcp_build_request(uint8_t *buf, size_t cap, const struct dhcp_request *r)
{
	static const uint8_t params[] = {
	    DHCP_OPT_SUBNET,    DHCP_OPT_ROUTER, DHCP_OPT_DNS, DHCP_OPT_LEASE,
	    DHCP_OPT_SERVER_ID, DHCP_OPT_T1,     DHCP_OPT_T2,
	};
	uint8_t v[1 + ETH_ALEN];
	size_t pos;

	if (r->type != DHCPDISCOVER && r->type != DHCPREQUEST &&
	    r->type != DHCPRELEASE)
		return -EINVAL;
	/* 240 fixed + 3 + 9 + 4 + 6 + 6 + 2 + 7 + 1 = 278 <= 300. */
	if (cap < DHCP_BUILD_LEN)
		return -ENOSPC;
	memset(buf, 0, DHCP_BUILD_LEN);
	buf[OFF_OP] = BOOTP_REQUEST;
	buf[OFF_HTYPE] = HTYPE_ETHER;
	buf[OFF_HLEN] = ETH_ALEN;
	put_be32(buf + OFF_XID, r->xid);
	put_be16(buf + OFF_SECS, r->secs);
	put_be16(buf + OFF_FLAGS, r->broadcast ? BOOTP_FLAG_BROADCAST : 0);
	put_be32(buf + OFF_CIADDR, r->ciaddr);
	memcpy(buf + OFF_CHADDR, r->mac, ETH_ALEN);
	put_be32(buf + OFF_MAGIC, DHCP_MAGIC);
	pos = OFF_OPTIONS;
	pos = put_opt(buf, pos, DHCP_OPT_MSG_TYPE, &r->type, 1);
	v[0] = HTYPE_ETHER;
	memcpy(v + 1, r->mac, ETH_ALEN);
	pos = put_opt(buf, pos, DHCP_OPT_CLIENT_ID, v, sizeof(v));
	if (r->type != DHCPRELEASE) {
		put_be16(v, 1500);
		pos = put_opt(buf, pos, DHCP_OPT_MAX_SIZE, v, 2);
	}
	if (r->requested_ip != 0)
		pos = put_opt_u32(buf, pos, DHCP_OPT_REQ_IP, r->requested_ip);
	if (r->server_id != 0)
		pos = put_opt_u32(buf, pos, DHCP_OPT_SERVER_ID, r->server_id);
	if (r->type != DHCPRELEASE)
		pos = put_opt(buf, pos, DHCP_OPT_PARAM_REQ, params,
		              sizeof(params));
	buf[pos] = DHCP_OPT_END;
	return DHCP_BUILD_LEN;
}
