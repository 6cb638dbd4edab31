/*
 * One input through every parser of the protocol layer, the way the
 * kernel's receive path will chain them (Ethernet -> ARP | IPv4 -> ICMP
 * | UDP -> DHCP), and also straight into each layer so a fuzzer need not
 * build valid outer headers to reach the inner parsers.  Whatever a
 * parser accepts is rebuilt with the matching builder and parsed again;
 * the same bytes also drive the routing table (against a brute-force
 * model), the neighbour and the DHCP state machines, checking their
 * invariants.  Shared by the libFuzzer target and the unit test that
 * replays tests/net/corpus.
 */
#ifndef TESTS_NET_PIPELINE_H
#define TESTS_NET_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "net/ipv4/net_drop.h"

/* Returns NULL, or a description of the first broken invariant.  Drops
 * are counted in *st when st is not NULL. */
const char *net_pipeline(const uint8_t *data, size_t len,
                         struct net_drop_stats *st);

#endif
