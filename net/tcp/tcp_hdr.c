/*
 * The TCP header on the wire (RFC 9293 3.1): parse with validation,
 * build with the checksum over the IPv4 pseudo-header.  Nothing here
 * knows about connections.
 */
#include "net/tcp/tcp.h"
#include "net/ipv4/inet_csum.h"

#define IP_PROTO_TCP 6

/* Option kinds (RFC 9293 3.2, RFC 7323, RFC 2018). */
#define OPT_EOL    0
#define OPT_NOP    1
#define OPT_MSS    2
#define OPT_WSCALE 3
#define OPT_SACKOK 4
#define OPT_TS     8

/* Length an option of a kind we know must have, 0 if any length goes. */
static unsigned
opt_fixed_len(uint8_t kind)
{
	switch (kind) {
	case OPT_MSS:
		return 4;
	case OPT_WSCALE:
		return 3;
	case OPT_SACKOK:
		return 2;
	case OPT_TS:
		return 10;
	default:
		return 0;
	}
}

/*
 * Walks the options between the fixed header and the data offset:
 *  - EOL ends the list, NOP is one byte;
 *  - every other option has a length byte, at least 2, not running past
 *    the header (RFC 9293 3.2 "must be prepared to handle an illegal
 *    option length");
 *  - the options we know must have their defined length.
 * Only MSS is used; window scale, SACK and timestamps are ignored (we
 * never offer them, so a peer must not use them: RFC 7323 1.3, 2018 3).
 */
static enum tcp_drop
parse_options(const uint8_t *opt, size_t len, struct tcp_seg *seg)
{
	size_t i = 0;

	while (i < len) {
		uint8_t kind = opt[i], olen;
		unsigned want;

		if (kind == OPT_EOL)
			break;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return TCP_DROP_BAD_OPTION;
		olen = opt[i + 1];
		if (olen < 2 || olen > len - i)
			return TCP_DROP_BAD_OPTION;
		want = opt_fixed_len(kind);
		if (want != 0 && olen != want)
			return kind == OPT_MSS ? TCP_DROP_BAD_MSS_OPTION
			                       : TCP_DROP_BAD_OPTION;
		if (kind == OPT_MSS && (seg->flags & TCP_SYN))
			seg->mss = get_be16(opt + i + 2);
		i += olen;
	}
	return TCP_DROP_NONE;
}

/*
 * Checks, in order: the fixed header is there; the data offset covers at
 * least it and no more than the segment; the checksum over pseudo-header,
 * header and data; the options; ports and addresses are not 0; SYN is
 * not combined with FIN or RST (no legitimate stack sends those, and
 * scanners do).
 */
enum tcp_drop
tcp_parse(uint32_t src, uint32_t dst, const uint8_t *pkt, size_t len,
          struct tcp_seg *seg)
{
	size_t off;
	uint32_t sum;
	enum tcp_drop why;

	memset(seg, 0, sizeof(*seg));
	if (len < TCP_HDR_LEN)
		return TCP_DROP_TRUNCATED;
	off = (size_t)(pkt[12] >> 4) * 4;
	if (off < TCP_HDR_LEN || off > len)
		return TCP_DROP_BAD_OFFSET;
	if (len > 0xffff)
		return TCP_DROP_TRUNCATED; /* cannot come from IPv4 */
	sum = inet_csum_pseudo(src, dst, IP_PROTO_TCP, (uint16_t)len);
	sum = inet_csum_add(sum, pkt, len);
	if (inet_csum_fold(sum) != 0)
		return TCP_DROP_BAD_CHECKSUM;

	seg->src = src;
	seg->dst = dst;
	seg->sport = get_be16(pkt);
	seg->dport = get_be16(pkt + 2);
	seg->seq = get_be32(pkt + 4);
	seg->ack = get_be32(pkt + 8);
	seg->flags = pkt[13] & 0x3f;
	seg->wnd = get_be16(pkt + 14);
	seg->data = pkt + off;
	seg->len = len - off;
	why = parse_options(pkt + TCP_HDR_LEN, off - TCP_HDR_LEN, seg);
	if (why != TCP_DROP_NONE)
		return why;
	if (seg->sport == 0 || seg->dport == 0)
		return TCP_DROP_BAD_PORT;
	if (src == 0 || dst == 0)
		return TCP_DROP_BAD_ADDR;
	if ((seg->flags & TCP_SYN) && (seg->flags & (TCP_FIN | TCP_RST)))
		return TCP_DROP_BAD_FLAGS;
	return TCP_DROP_NONE;
}

long
tcp_build(const struct tcp_seg *seg, uint8_t *buf, size_t cap)
{
	size_t hlen = TCP_HDR_LEN + (seg->mss != 0 ? 4 : 0);
	size_t total = hlen + seg->len;
	uint32_t sum;

	if (total > cap || total > 0xffff)
		return -ENOSPC;
	put_be16(buf, seg->sport);
	put_be16(buf + 2, seg->dport);
	put_be32(buf + 4, seg->seq);
	put_be32(buf + 8, seg->ack);
	buf[12] = (uint8_t)((hlen / 4) << 4);
	buf[13] = seg->flags;
	put_be16(buf + 14, seg->wnd);
	put_be16(buf + 16, 0);
	put_be16(buf + 18, 0); /* urgent pointer: URG is never sent */
	if (seg->mss != 0) {
		buf[20] = OPT_MSS;
		buf[21] = 4;
		put_be16(buf + 22, seg->mss);
	}
	if (seg->len != 0)
		memcpy(buf + hlen, seg->data, seg->len);
	sum =
	    inet_csum_pseudo(seg->src, seg->dst, IP_PROTO_TCP, (uint16_t)total);
	sum = inet_csum_add(sum, buf, total);
	put_be16(buf + 16, inet_csum_fold(sum));
	return (long)total;
}
