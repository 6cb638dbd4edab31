/*
 * TCP state that must outlive tcp.ko (docs/tcp.md, "Purging TIME_WAIT"):
 * the ISN generator and the ephemeral-port cursor keep advancing across
 * an unload and reload, so a purged TIME_WAIT's old segments fall outside
 * any new incarnation's window.  Also the TCP sysctls, which are kernel
 * boot parameters and so survive a reload too.
 */
#ifndef NET_TCP_PERSIST_H
#define NET_TCP_PERSIST_H

#include <stdint.h>

#define TCP_UNLOAD_TW_WAIT  0 /* rmmod waits for TIME_WAIT to expire */
#define TCP_UNLOAD_TW_PURGE 1 /* rmmod purges TIME_WAIT at once */

extern int tcp_msl_ms;    /* sysctl tcp_msl_ms: TIME_WAIT is 2 * MSL */
extern int tcp_unload_tw; /* sysctl tcp_unload_tw=wait|purge */

/* RFC 6528: a 250-per-ms clock plus a keyed hash of the 4-tuple.  The
 * key and the clock are the kernel's, so they survive tcp.ko. */
uint32_t tcp_persist_isn(uint32_t laddr, uint16_t lport, uint32_t raddr,
                         uint16_t rport, uint64_t now_ms);
/* The next ephemeral port to try (49152..65535, then around). */
uint16_t tcp_persist_next_port(void);

#endif
