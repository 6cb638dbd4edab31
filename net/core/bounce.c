/*
 * The raw bounce loop, `bench bounce DEV on|off` (docs/bench.md): the
 * emulated NIC's own limit, without the stack.  While a device bounces,
 * netif_receive_skb hands every received IPv4 UDP frame straight back to
 * the device's transmit (dev_queue_xmit) with the Ethernet addresses, the
 * IP addresses and the UDP ports swapped: no ARP, IP input, socket,
 * wakeup or copy beyond the driver's own.  Every other frame (ARP, ICMP,
 * TCP, fragments) takes the stack as usual, so the link stays usable.
 *
 * Checksums stay valid without being recomputed: the IP header checksum
 * and the UDP checksum (pseudo-header included) are one's complement
 * sums of 16-bit words (RFC 1071), and swapping two aligned fields of
 * the summed data does not change a sum.  `make bench` measures the loop
 * with the same host client as the UDP echo (bench-boot -u), so the two
 * stand side by side and the difference is the stack's share.
 */
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>
#include "net/core/netdev_internal.h"
#include <kernel/console/args.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

#define ETH_P_IPV4   0x0800
#define IP_OFF_VIHL  0 /* version and IHL */
#define IP_OFF_FRAG  6 /* flags and fragment offset */
#define IP_OFF_PROTO 9
#define IP_OFF_SRC   12 /* source, then destination */
#define IP_PROTO_UDP 17
#define IP_MF_OFFSET 0x3fff /* more fragments, fragment offset */
#define UDP_HLEN     8

static void
swap_bytes(uint8_t *a, uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

bool
netif_bounce(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	uint8_t *eth = skb->data, *ip = eth + ETH_HLEN, *udp;
	unsigned ihl;

	/* From netif_receive_skb in a NAPI poll: thread context. */
	ASSERT(!in_interrupt());
	if (skb->len < ETH_HLEN + 20 + UDP_HLEN ||
	    (eth[12] << 8 | eth[13]) != ETH_P_IPV4 ||
	    ip[IP_OFF_VIHL] >> 4 != 4 || ip[IP_OFF_PROTO] != IP_PROTO_UDP ||
	    ((ip[IP_OFF_FRAG] << 8 | ip[IP_OFF_FRAG + 1]) & IP_MF_OFFSET))
		return false;
	ihl = (ip[IP_OFF_VIHL] & 0xf) * 4u;
	if (ihl < 20 || skb->len < ETH_HLEN + ihl + UDP_HLEN)
		return false;
	udp = ip + ihl;
	memcpy(eth, eth + ETH_ALEN, ETH_ALEN); /* back to the sender */
	memcpy(eth + ETH_ALEN, dev->dev_addr, ETH_ALEN);
	swap_bytes(ip + IP_OFF_SRC, ip + IP_OFF_SRC + 4, 4);
	swap_bytes(udp, udp + 2, 2);
	__atomic_add_fetch(&dev->bounced, 1, __ATOMIC_RELAXED);
	dev_queue_xmit(skb); /* it owns the frame now, also on failure */
	return true;
}

/* bench bounce DEV [on|off] */
int
cmd_bench_bounce(const struct args *a)
{
	struct ref_tracker t;
	struct net_device *dev;
	bool on = false;

	if (a->npos < 2 || a->npos > 3)
		return args_refuse(a, "bounce wants DEV [on|off]");
	if (a->npos == 3) {
		if (strcmp(a->pos[2], "on") != 0 &&
		    strcmp(a->pos[2], "off") != 0)
			return args_refuse(a, "bounce: '%s' is not on or off",
			                   a->pos[2]);
		on = strcmp(a->pos[2], "on") == 0;
	}
	dev = dev_get_by_name(a->pos[1], &t, "bounce");
	if (dev == NULL)
		return cmd_error("bench", -ENODEV, "no device %s", a->pos[1]);
	if (a->npos == 3) {
		if (on && !dev->bounce)
			__atomic_store_n(&dev->bounced, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dev->bounce, on, __ATOMIC_RELEASE);
	}
	kprintf("bench: bounce: %s %s, %lu frames bounced\n", dev->name,
	        dev->bounce ? "on" : "off",
	        __atomic_load_n(&dev->bounced, __ATOMIC_RELAXED));
	dev_put_track(dev, &t);
	return 0;
}
