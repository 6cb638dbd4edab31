/*
 * Shared by the protocol-layer unit tests: the KTAP runner of the
 * modloader tests, and KT_EXPECT_DROP(), which also records which drop
 * reasons some test produced so the last suite can insist that every
 * reason a parser or state machine can return was crafted at least once.
 */
#ifndef TESTS_NET_NETTEST_H
#define TESTS_NET_NETTEST_H

#include <stdint.h>
#include <string.h>

#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"
#include "tests/lib/ktap.h"

void drop_seen(enum net_drop r);
bool drop_was_seen(enum net_drop r);

#define KT_EXPECT_DROP(t, got, want)                                           \
	do {                                                                   \
		enum net_drop g_ = (got), w_ = (want);                         \
		drop_seen(w_);                                                 \
		if (g_ != w_)                                                  \
			kt_fail(t, __FILE__, __LINE__, "%s: %s, expected %s",  \
			        #got, net_drop_name(g_), net_drop_name(w_));   \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
