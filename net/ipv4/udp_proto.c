/*
 * UDP building (RFC 768): udp_build; the parser and the builders a
 * reply takes (udp_build_partial, udp_build_presummed) are in line in
 * udp_proto.h.
 */
#include "net/ipv4/udp_proto.h"
#include "net/ipv4/inet_csum.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

int
udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
          uint16_t dport, const uint8_t *payload, size_t len)
{
	return udp_build_how(buf, cap, src, dst, sport, dport, payload, len,
	                     UDP_SUM_PAYLOAD, 0);
}
