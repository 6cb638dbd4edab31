/*
 * Frames in and out of a device.
 *
 * Transmit: dev_queue_xmit takes a reference on the driver module for the
 * call (the owner rule) and calls ndo_start_xmit under dev->xmit_lock,
 * with interrupts off; dev_close clears IFF_UP and then takes and drops
 * the lock once, so when ndo_stop runs no transmit is inside the driver.
 *
 * Receive: drivers call netif_receive_skb from their NAPI poll (thread
 * context).  Taps (packet_type.type 0) borrow the frame, must not keep
 * it and must not sleep; then the handler registered for its EtherType owns it,
 * or it is dropped.  Each handler is called with a reference on its owner
 * module.
 */
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>
#include "net/core/netdev_internal.h"
#include <kernel/lib/errno.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/locking/rcu.h>

static DEFINE_MUTEX(ptype_mutex);
static LIST_HEAD(ptype_list); /* RCU */

void
dev_xmit_disable(struct net_device *dev)
{
	uint32_t f = spin_lock_irqsave(&dev->xmit_lock);
	spin_unlock_irqrestore(&dev->xmit_lock, f);
}

int
dev_queue_xmit(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	unsigned len = skb->len;
	uint32_t f;
	int r;

	if (dev == NULL) {
		kfree_skb(skb);
		return -EINVAL;
	}
	if (len < ETH_HLEN || len > dev->mtu + ETH_HLEN) {
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return -EINVAL;
	}
	if (!try_module_get(dev->owner)) {
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return -ENETDOWN;
	}
	f = spin_lock_irqsave(&dev->xmit_lock);
	if (!netif_running(dev)) {
		spin_unlock_irqrestore(&dev->xmit_lock, f);
		module_put(dev->owner);
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return -ENETDOWN;
	}
	/* The stack leaves a checksum only to the device it routed to. */
	ASSERT(!skb->csum_partial || (dev->features & NETIF_F_L4_CSUM));
	r = dev->netdev_ops->ndo_start_xmit(skb, dev);
	if (r == NETDEV_TX_OK) {
		dev->stats.tx_packets++;
		dev->stats.tx_bytes += len;
	} else {
		dev->stats.tx_dropped++;
	}
	spin_unlock_irqrestore(&dev->xmit_lock, f);
	module_put(dev->owner);
	if (r != NETDEV_TX_OK) {
		kfree_skb(skb);
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL(dev_queue_xmit);

void
dev_add_pack(struct packet_type *pt)
{
	mutex_lock(&ptype_mutex);
	list_add_tail_rcu(&pt->link, &ptype_list);
	mutex_unlock(&ptype_mutex);
}
EXPORT_SYMBOL(dev_add_pack);

void
dev_remove_pack(struct packet_type *pt)
{
	mutex_lock(&ptype_mutex);
	list_del_rcu(&pt->link);
	mutex_unlock(&ptype_mutex);
	/* A receiver may still be looking at pt. */
	synchronize_rcu();
}
EXPORT_SYMBOL(dev_remove_pack);

static void
deliver(struct packet_type *pt, struct sk_buff *skb, struct net_device *dev)
{
	pt->func(skb, dev, pt);
	module_put(pt->owner);
}

void
netif_receive_skb(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct packet_type *owner_pt = NULL;
	struct packet_type *pt;

	if (dev == NULL || skb->len < ETH_HLEN) {
		if (dev != NULL)
			dev->stats.rx_errors++;
		kfree_skb(skb);
		return;
	}
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	skb->protocol = (uint16_t)(skb->data[12] << 8 | skb->data[13]);
	if (__atomic_load_n(&dev->bounce, __ATOMIC_ACQUIRE) &&
	    netif_bounce(skb))
		return;
	/* Taps run inside the RCU section (they must not sleep); the owning
	 * handler may sleep and runs after it, pinned by its module
	 * reference.  dev_remove_pack waits for walkers before pt may go. */
	rcu_read_lock();
	list_for_each_entry_rcu(pt, &ptype_list, link)
	{
		if (pt->type != 0) {
			if (pt->type == skb->protocol && owner_pt == NULL &&
			    try_module_get(pt->owner))
				owner_pt = pt;
			continue;
		}
		if (try_module_get(pt->owner))
			deliver(pt, skb, dev);
	}
	rcu_read_unlock();
	if (owner_pt != NULL) {
		deliver(owner_pt, skb, dev);
		return;
	}
	kfree_skb(skb);
}
EXPORT_SYMBOL(netif_receive_skb);
