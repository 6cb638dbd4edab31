/*
 * Ethernet II header parse and build.  Pure functions over byte views;
 * see ether_hdr.h for what a frame must satisfy.
 */
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/proto_lib.h"

const uint8_t ether_broadcast[ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

enum net_drop
ether_parse(const uint8_t *frame, size_t len, struct ether_frame *out)
{
	if (len < ETH_HLEN)
		return NET_DROP_ETH_TRUNCATED;
	memcpy(out->dst, frame, ETH_ALEN);
	memcpy(out->src, frame + ETH_ALEN, ETH_ALEN);
	out->type = get_be16(frame + 2 * ETH_ALEN);
	out->payload = frame + ETH_HLEN;
	out->payload_len = len - ETH_HLEN;
	if (out->type < ETH_TYPE_MIN)
		return NET_DROP_ETH_8023;
	/* IEEE 802 section 8.2: a source address is always individual. */
	if (ether_is_multicast(out->src))
		return NET_DROP_ETH_BAD_SRC;
	return NET_DROP_NONE;
}
