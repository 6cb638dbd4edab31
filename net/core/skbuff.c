/*
 * Socket buffers (skbuff.h): one kmalloc each, tagged "skb", so a leaked
 * frame shows up in `meminfo -d`.
 */
#include <net/core/skbuff.h>
#include <kernel/kmalloc.h>
#include <kernel/module.h>
#include <kernel/panic.h>

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
	skb->size = SKB_HEADROOM + size;
	skb->head = skb->buf;
	skb->data = skb->buf + SKB_HEADROOM;
	skb->len = 0;
	return skb;
}
EXPORT_SYMBOL(alloc_skb);

void
skb_set_dev(struct sk_buff *skb, struct net_device *dev)
{
	/* The same device: the reference held is the one wanted (a
	 * received frame sent back out costs no put and no hold). */
	if (skb->dev == dev)
		return;
	if (skb->dev != NULL)
		dev_put_track(skb->dev, &skb->dev_tracker);
	skb->dev = dev;
	if (dev != NULL)
		dev_hold_track(dev, &skb->dev_tracker, "skb");
}
EXPORT_SYMBOL(skb_set_dev);

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

unsigned
skb_tailroom(const struct sk_buff *skb)
{
	return (unsigned)(skb->head + skb->size - (skb->data + skb->len));
}
EXPORT_SYMBOL(skb_tailroom);

uint8_t *
skb_put(struct sk_buff *skb, unsigned n)
{
	uint8_t *tail = skb->data + skb->len;

	if (n > skb_tailroom(skb))
		panic("skb_put: %u bytes past the end (len %u, size %u)", n,
		      skb->len, skb->size);
	skb->len += n;
	return tail;
}
EXPORT_SYMBOL(skb_put);

uint8_t *
skb_push(struct sk_buff *skb, unsigned n)
{
	if (n > (unsigned)(skb->data - skb->head))
		panic("skb_push: %u bytes, only %u of headroom", n,
		      (unsigned)(skb->data - skb->head));
	skb->data -= n;
	skb->len += n;
	return skb->data;
}
EXPORT_SYMBOL(skb_push);

uint8_t *
skb_pull(struct sk_buff *skb, unsigned n)
{
	if (n > skb->len)
		panic("skb_pull: %u bytes of %u", n, skb->len);
	skb->data += n;
	skb->len -= n;
	return skb->data;
}
EXPORT_SYMBOL(skb_pull);
