/*
 * ICMP parse/build (RFC 792) and the RFC 1122 rules for when an error
 * may be sent.  See icmp_proto.h.
 */
#include "net/ipv4/icmp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/proto_lib.h"

/* Reads the datagram quoted by an error message: its IPv4 header must be
 * plausible and whole; the 64 bits after it are optional. */
static enum net_drop
parse_quote(const uint8_t *q, size_t len, struct icmp_quote *out)
{
	size_t hlen;

	if (len < IPV4_HLEN || (q[0] >> 4) != 4)
		return NET_DROP_ICMP_BAD_QUOTE;
	hlen = (size_t)(q[0] & 0x0f) * 4;
	if (hlen < IPV4_HLEN || hlen > len)
		return NET_DROP_ICMP_BAD_QUOTE;
	out->proto = q[9];
	out->src = get_be32(q + 12);
	out->dst = get_be32(q + 16);
	out->has_ports = len - hlen >= 8;
	if (out->has_ports) {
		out->sport = get_be16(q + hlen);
		out->dport = get_be16(q + hlen + 2);
	}
	return NET_DROP_NONE;
}

enum net_drop
icmp_parse(const uint8_t *p, size_t len, struct icmp_msg *out)
{
	memset(out, 0, sizeof(*out));
	if (len < ICMP_HLEN)
		return NET_DROP_ICMP_TRUNCATED;
	if (inet_csum(p, len) != 0)
		return NET_DROP_ICMP_BAD_CHECKSUM;
	out->type = p[0];
	out->code = p[1];
	out->data = p + ICMP_HLEN;
	out->data_len = len - ICMP_HLEN;
	switch (out->type) {
	case ICMP_ECHO_REQUEST:
	case ICMP_ECHO_REPLY:
		if (out->code != 0)
			return NET_DROP_ICMP_BAD_CODE;
		out->id = get_be16(p + 4);
		out->seq = get_be16(p + 6);
		return NET_DROP_NONE;
	case ICMP_DEST_UNREACH:
		if (out->code > ICMP_UNREACH_MAX)
			return NET_DROP_ICMP_BAD_CODE;
		if (out->code == ICMP_FRAG_NEEDED)
			out->mtu = get_be16(p + 6);
		return parse_quote(out->data, out->data_len, &out->quote);
	case ICMP_TIME_EXCEEDED:
		if (out->code > ICMP_EXC_MAX)
			return NET_DROP_ICMP_BAD_CODE;
		return parse_quote(out->data, out->data_len, &out->quote);
	default:
		return NET_DROP_NONE;
	}
}

int
icmp_build_echo(uint8_t *buf, size_t cap, uint8_t type, uint16_t id,
                uint16_t seq, const uint8_t *data, size_t len)
{
	if (type != ICMP_ECHO_REQUEST && type != ICMP_ECHO_REPLY)
		return -EINVAL;
	if (cap < ICMP_HLEN || len > cap - ICMP_HLEN)
		return -ENOSPC;
	buf[0] = type;
	buf[1] = 0;
	put_be16(buf + 2, 0);
	put_be16(buf + 4, id);
	put_be16(buf + 6, seq);
	if (len > 0)
		memmove(buf + ICMP_HLEN, data, len);
	put_be16(buf + 2, inet_csum(buf, ICMP_HLEN + len));
	return (int)(ICMP_HLEN + len);
}

int
icmp_build_unreach(uint8_t *buf, size_t cap, uint8_t code, uint16_t mtu,
                   const uint8_t *orig, size_t orig_len)
{
	size_t hlen, quote;

	if (code > ICMP_UNREACH_MAX || orig_len < IPV4_HLEN)
		return -EINVAL;
	hlen = (size_t)(orig[0] & 0x0f) * 4;
	if (hlen < IPV4_HLEN || hlen > orig_len)
		return -EINVAL;
	quote = orig_len - hlen >= 8 ? hlen + 8 : orig_len;
	if (cap < ICMP_HLEN || quote > cap - ICMP_HLEN)
		return -ENOSPC;
	buf[0] = ICMP_DEST_UNREACH;
	buf[1] = code;
	put_be16(buf + 2, 0);
	put_be16(buf + 4, 0);
	put_be16(buf + 6, code == ICMP_FRAG_NEEDED ? mtu : 0);
	memmove(buf + ICMP_HLEN, orig, quote);
	put_be16(buf + 2, inet_csum(buf, ICMP_HLEN + quote));
	return (int)(ICMP_HLEN + quote);
}

/* ICMP types that are not errors (RFC 792, RFC 1122 3.2.2: "query"). */
static bool
is_query(uint8_t type)
{
	switch (type) {
	case ICMP_ECHO_REPLY:
	case ICMP_ECHO_REQUEST:
	case 13: /* timestamp */
	case 14: /* timestamp reply */
	case 15: /* information request */
	case 16: /* information reply */
		return true;
	default:
		return false;
	}
}

bool
icmp_may_send_error(const struct ipv4_info *orig, bool link_broadcast)
{
	if (link_broadcast || orig->dst == IPV4_BROADCAST ||
	    ipv4_is_multicast(orig->dst))
		return false;
	if (orig->frag & IPV4_FRAG_OFFSET)
		return false;
	if (ipv4_is_zeronet(orig->src) || ipv4_is_loopback(orig->src) ||
	    ipv4_is_multicast(orig->src) || orig->src == IPV4_BROADCAST)
		return false;
	/* An ICMP datagram too short to tell its type is treated as an
	 * error message: never answer it. */
	if (orig->proto == IP_PROTO_ICMP &&
	    (orig->payload_len < 1 || !is_query(orig->payload[0])))
		return false;
	return true;
}
