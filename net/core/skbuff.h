/*
 * Socket buffers, reduced to what the device layer needs: one contiguous
 * buffer with headroom, a length, and the device it came from or goes to.
 * An skb that names a device holds a tracked reference on it ("skb"), so
 * a frame in flight keeps its device alive and `refs` shows it.
 *
 * Rules: an skb has one owner at a time; whoever owns it last frees it
 * with kfree_skb (also on every error path).  skb_put/push/pull check
 * their bounds and panic on a violation: that is a kernel bug, not input.
 */
#ifndef NET_SKBUFF_H
#define NET_SKBUFF_H

#include <stdint.h>
#include <kernel/lib/list.h>
#include <net/core/netdevice.h>

#define SKB_HEADROOM 64

struct sk_buff {
	struct list_head list; /* for whoever owns it */
	struct net_device *dev;
	struct ref_tracker dev_tracker;
	uint16_t protocol; /* EtherType, host order, set on receive */
	unsigned len;      /* bytes at data */
	unsigned size;     /* bytes at head */
	/* A transmit checksum left to the device (NETIF_F_L4_CSUM): the
	 * one's complement sum from head + csum_start to the end, folded
	 * and inverted, goes at csum_start + csum_offset; the field holds
	 * the pseudo-header's sum until then. */
	bool csum_partial;
	uint16_t csum_start, csum_offset;
	/* A received payload's one's complement sum, left by the protocol
	 * that verified it, so that sending the same bytes back (an echo
	 * from a receive handler) need not sum them again: it covers
	 * csum_rx_len bytes from head + csum_rx_start, and counts only
	 * while data and len are exactly those (skb_csum_rx_covers).
	 * Whoever writes to those bytes in place calls skb_csum_rx_forget
	 * first.  csum_rx_len 0: none. */
	uint32_t csum_rx;
	uint16_t csum_rx_start, csum_rx_len;
	uint8_t *head, *data;
	uint8_t buf[];
};

/* size bytes of room after SKB_HEADROOM; NULL if out of memory. */
struct sk_buff *alloc_skb(unsigned size);
/* alloc_skb that also holds dev (tracked as "skb"). */
struct sk_buff *netdev_alloc_skb(struct net_device *dev, unsigned size);
void kfree_skb(struct sk_buff *skb);
/* Point skb at dev, holding a reference (dropping any previous one).
 * The same device is the common case (a received frame sent back out:
 * no put and no hold), checked in line; the rest is __skb_set_dev. */
void __skb_set_dev(struct sk_buff *skb, struct net_device *dev);

static inline void
skb_set_dev(struct sk_buff *skb, struct net_device *dev)
{
	if (skb->dev != dev)
		__skb_set_dev(skb, dev);
}

/* The panics of the inline helpers below, out of line: running past
 * either end of the buffer is a bug in the caller. */
void skb_panic_put(const struct sk_buff *skb, unsigned n)
    __attribute__((noreturn, cold));
void skb_panic_push(const struct sk_buff *skb, unsigned n)
    __attribute__((noreturn, cold));
void skb_panic_pull(const struct sk_buff *skb, unsigned n)
    __attribute__((noreturn, cold));

/* Inline: every layer calls them on every packet. */
static inline unsigned
skb_tailroom(const struct sk_buff *skb)
{
	return (unsigned)(skb->head + skb->size - (skb->data + skb->len));
}

/* The bytes at data, len of them, are those csum_rx was summed over. */
static inline bool
skb_csum_rx_covers(const struct sk_buff *skb)
{
	return skb->csum_rx_len != 0 && skb->csum_rx_len == skb->len &&
	       skb->csum_rx_start == (unsigned)(skb->data - skb->head);
}

/* Before changing the received bytes in place: their sum is stale. */
static inline void
skb_csum_rx_forget(struct sk_buff *skb)
{
	skb->csum_rx_len = 0;
}

/* Grow at the tail. */
static inline uint8_t *
skb_put(struct sk_buff *skb, unsigned n)
{
	uint8_t *tail = skb->data + skb->len;

	if (n > skb_tailroom(skb))
		skb_panic_put(skb, n);
	skb->len += n;
	return tail;
}

/* Grow at the head. */
static inline uint8_t *
skb_push(struct sk_buff *skb, unsigned n)
{
	if (n > (unsigned)(skb->data - skb->head))
		skb_panic_push(skb, n);
	skb->data -= n;
	skb->len += n;
	return skb->data;
}

/* Drop from the head. */
static inline uint8_t *
skb_pull(struct sk_buff *skb, unsigned n)
{
	if (n > skb->len)
		skb_panic_pull(skb, n);
	skb->data += n;
	skb->len -= n;
	return skb->data;
}

#endif
