/*
 * Socket buffers (skbuff.h): one kmalloc each, tagged "skb", so a leaked
 * frame shows up in `meminfo -d`.
 */
#include <net/core/skbuff.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>

#define SKB_TAG "skb"

struct sk_buff *
alloc_skb(unsigned size)
{
	struct sk_buff *skb;

	if (size > 65536)
		return NULL;
	skb = kmalloc(sizeof(*skb) + SKB_HEADROOM + size, SKB_TAG);
	if (skb == NULL)
		return NULL;
	skb->list.next = skb->list.prev = NULL;
	skb->dev = NULL;
	skb->dev_tracker.link.next = NULL;
	skb->protocol = 0;
	skb->csum_partial = false;
	skb->csum_rx_len = 0;
	skb->size = SKB_HEADROOM + size;
	skb->head = skb->buf;
	skb->data = skb->buf + SKB_HEADROOM;
	skb->len = 0;
	return skb;
}
EXPORT_SYMBOL(alloc_skb);

void
__skb_set_dev(struct sk_buff *skb, struct net_device *dev)
{
	if (skb->dev != NULL)
		dev_put_track(skb->dev, &skb->dev_tracker);
	skb->dev = dev;
	if (dev != NULL)
		dev_hold_track(dev, &skb->dev_tracker, "skb");
}
EXPORT_SYMBOL(__skb_set_dev);

struct sk_buff *
netdev_alloc_skb(struct net_device *dev, unsigned size)
{
	struct sk_buff *skb = alloc_skb(size);

	if (skb != NULL)
		skb_set_dev(skb, dev);
	return skb;
}
EXPORT_SYMBOL(netdev_alloc_skb);

void
kfree_skb(struct sk_buff *skb)
{
	if (skb == NULL)
		return;
	skb_set_dev(skb, NULL);
	kfree(skb);
}
EXPORT_SYMBOL(kfree_skb);

void
skb_panic_put(const struct sk_buff *skb, unsigned n)
{
	panic("skb_put: %u bytes past the end (len %u, size %u)", n, skb->len,
	      skb->size);
}
EXPORT_SYMBOL(skb_panic_put);

void
skb_panic_push(const struct sk_buff *skb, unsigned n)
{
	panic("skb_push: %u bytes, only %u of headroom", n,
	      (unsigned)(skb->data - skb->head));
}
EXPORT_SYMBOL(skb_panic_push);

void
skb_panic_pull(const struct sk_buff *skb, unsigned n)
{
	panic("skb_pull: %u bytes of %u", n, skb->len);
}
EXPORT_SYMBOL(skb_panic_pull);
