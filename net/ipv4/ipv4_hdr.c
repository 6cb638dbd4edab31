/*
 * IPv4 netmasks.  The header's validation and building (RFC 791 section
 * 3.1) are in line in ipv4_hdr.h, which documents the order of the
 * checks; the unit tests pin it (each crafted bad packet must produce
 * exactly its reason).
 */
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/proto_lib.h"

uint32_t
ipv4_netmask(unsigned int len)
{
	if (len == 0)
		return 0;
	if (len >= 32)
		return 0xffffffffu;
	return ~((1u << (32 - len)) - 1);
}

int
ipv4_mask_len(uint32_t mask)
{
	int len = 0;

	while (len < 32 && (mask & (0x80000000u >> len)) != 0)
		len++;
	return ipv4_netmask((unsigned int)len) == mask ? len : -1;
}
