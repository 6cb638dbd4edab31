/*
 * What the pure protocol layer (the *_proto.c, *_hdr.c, *_fsm.c files,
 * neigh_fsm.c, route_table.c, net_drop.c) needs from a C library, and
 * nothing more: memcpy/memset/memcmp, errno values and big-endian loads
 * and stores; and where the kernel image puts the packet path's
 * functions (PACKET_RX, PACKET_TX: nothing on the host).  The same files build freestanding for the kernel (where
 * kernel/lib/string.h supplies the mem* functions) and hosted for the unit
 * tests and the fuzzer (where libc does).
 *
 * Conventions of the whole layer:
 *  - IPv4 addresses are uint32_t in host byte order (10.0.2.15 is
 *    0x0a00020f); only the wire bytes are big-endian.
 *  - Packets are (const uint8_t *, size_t) views; no function keeps a
 *    pointer into a buffer after it returns, except the payload views it
 *    fills in, which point into the caller's buffer.
 *  - Parsers return enum net_drop (NET_DROP_NONE, zero, when the input is
 *    accepted); builders return the number of bytes written or -errno.
 *  - Time is a uint64_t count of milliseconds supplied by the caller.
 */
#ifndef NET_PROTO_LIB_H
#define NET_PROTO_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if __STDC_HOSTED__
#include <errno.h>
#include <string.h>
#else
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#endif

/*
 * Where the kernel puts the functions a packet passes through, receiving
 * (PACKET_RX) and sending (PACKET_TX): each group together, on a page of
 * its own (boot/kernel.ld, whose link fails if either outgrows it),
 * instead of spread over the image in link order.  QEMU's TCG chains a jump to the next translated block only
 * within a page and looks any other up at run time, each lookup
 * costing as much as 10 to 30 register adds (`bench jumps`); on
 * hardware the same grouping spares instruction-cache lines and TLB
 * entries.  Only functions that stay out of line need it
 * (docs/bench.md).
 */
#if __STDC_HOSTED__
#define PACKET_RX
#define PACKET_TX
#else
#define PACKET_RX __attribute__((section(".text.packet_rx")))
#define PACKET_TX __attribute__((section(".text.packet_tx")))
#endif

static inline uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* One swap and one store on a little-endian CPU, where byte by byte took
 * four stores and three shifts for every address in every header built
 * (GCC does not merge them on i686). */
static inline void
put_be16(uint8_t *p, uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap16(v);
	__builtin_memcpy(p, &v, 2);
#else
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
#endif
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
	__builtin_memcpy(p, &v, 4);
#else
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
#endif
}

/* IPv4 address literal in host order: IP4(10, 0, 2, 15). */
#define IP4(a, b, c, d)                                                        \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 |      \
	 (uint32_t)(d))

#endif /* NET_PROTO_LIB_H */
