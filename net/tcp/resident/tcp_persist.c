/*
 * Kernel-resident TCP state for the loadable tcp.ko (net/tcp/resident/tcp_persist.h):
 * the ISN key and the ephemeral-port cursor, and the sysctls.  Nothing
 * here resets when the module goes, which is what makes purging
 * TIME_WAIT at unload safe after a reload (docs/tcp.md).
 */
#include "net/tcp/resident/tcp_persist.h"
#include "net/ipv4/inet_csum.h"
#include <kernel/bootparam.h>
#include <kernel/module.h>
#include <kernel/locking/spinlock.h>
#include <kernel/arch/x86.h>

#define PORT_LOW  49152
#define PORT_HIGH 65535

int tcp_msl_ms = 30000;
BOOTPARAM_INT(tcp_msl_ms, tcp_msl_ms, 10, 600000,
              "TCP maximum segment lifetime in ms (TIME_WAIT is twice it)", 1);
int tcp_unload_tw = TCP_UNLOAD_TW_WAIT;
BOOTPARAM_ENUM(tcp_unload_tw, tcp_unload_tw, "wait|purge",
               "TIME_WAIT at rmmod tcp: wait for expiry or purge", 1);

static DEFINE_SPINLOCK(persist_lock);
static uint32_t isn_key[4];
static bool keyed;
static uint16_t next_port;

/* Lock held.  The key comes from the TSC at first use: unpredictable
 * enough for a testbed, and fixed from then on. */
static void
ensure_key(void)
{
	uint64_t t;

	if (keyed)
		return;
	for (int i = 0; i < 4; i++) {
		t = rdtsc();
		isn_key[i] =
		    (uint32_t)(t ^ (t >> 29)) * 0x9e3779b1u + (uint32_t)i;
	}
	next_port = (uint16_t)(PORT_LOW + (uint32_t)rdtsc() % 4096);
	keyed = true;
}

static uint32_t
mix(uint32_t h, uint32_t v)
{
	h ^= v * 0xcc9e2d51u;
	h = (h << 13) | (h >> 19);
	return h * 5 + 0xe6546b64u;
}

uint32_t
tcp_persist_isn(uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport,
                uint64_t now_ms)
{
	uint32_t f = spin_lock_irqsave(&persist_lock), h;

	ensure_key();
	h = mix(isn_key[0], laddr);
	h = mix(h ^ isn_key[1], raddr);
	h = mix(h ^ isn_key[2], ((uint32_t)lport << 16) | rport);
	h = mix(h, isn_key[3]);
	spin_unlock_irqrestore(&persist_lock, f);
	/* M: RFC 6528's 4 us clock is 250 per ms; monotonic since boot. */
	return h + (uint32_t)(now_ms * 250u);
}

uint16_t
tcp_persist_next_port(void)
{
	uint32_t f = spin_lock_irqsave(&persist_lock);
	uint16_t p;

	ensure_key();
	p = next_port;
	next_port = p == PORT_HIGH ? PORT_LOW : (uint16_t)(p + 1);
	spin_unlock_irqrestore(&persist_lock, f);
	return p;
}

EXPORT_SYMBOL(tcp_msl_ms);
EXPORT_SYMBOL(tcp_unload_tw);
EXPORT_SYMBOL(tcp_persist_isn);
EXPORT_SYMBOL(tcp_persist_next_port);

/* The checksum helper the core inside tcp.ko links against (folding
 * and the pseudo-header's sum are inline in inet_csum.h). */
EXPORT_SYMBOL(inet_csum_add);
