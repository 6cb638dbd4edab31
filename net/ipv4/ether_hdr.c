/*
 * Ethernet II: the broadcast address.  The parse and build helpers are
 * inline in ether_hdr.h (every frame in or out runs them).
 */
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/proto_lib.h"

const uint8_t ether_broadcast[ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
