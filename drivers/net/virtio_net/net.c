/*
 * virtio_net: QEMU's virtio-net-pci (Virtual I/O Device (VIRTIO) 1.0,
 * sec. 2.4 split virtqueues, 5.1 network device) over either PCI
 * transport (virtio_pci.c): modern by default, legacy with
 * `insmod virtio_net force_legacy=1` or when the device has no modern
 * capabilities.
 *
 * Features negotiated: VIRTIO_NET_F_MAC and VIRTIO_NET_F_STATUS (and
 * VIRTIO_F_VERSION_1 on the modern transport); nothing else, so every
 * buffer starts with struct virtio_net_hdr: 10 bytes legacy, 12 modern
 * (num_buffers is always there with VERSION_1, sec. 5.1.6).  Queues 0
 * (receive) and 1 (transmit) are built at open: each receive descriptor
 * owns a 2048-byte buffer the device writes into; transmit copies the
 * frame behind a zeroed header, so the skb is freed at once and
 * completion only returns descriptors.  A kick is skipped while the
 * device has set VRING_USED_F_NO_NOTIFY (it is working through the queue
 * and will look again): each kick is an exit into QEMU that takes its
 * global lock, and kicking every frame halved the rate with 16 frames
 * in flight (docs/bench.md).  Stop resets the device (which
 * ends its DMA) before the memory it used is freed.  Everything read back
 * from the device (used-ring ids and lengths, the queue size) is checked
 * before use.
 */
#include <drivers/pci.h>
#include "drivers/net/virtio_net/virtio_pci.h"
#include <kernel/lib/errno.h>
#include <kernel/arch/irq.h>
#include <kernel/module.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/lib/string.h>
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>

/* Device configuration of a network device (sec. 5.1.4). */
#define VIRTIO_NET_CFG_MAC    0
#define VIRTIO_NET_CFG_STATUS 6

#define VIRTIO_NET_F_MAC     (1u << 5) /* sec. 5.1.3 */
#define VIRTIO_NET_F_STATUS  (1u << 16)
#define VIRTIO_NET_S_LINK_UP 1

#define VRING_DESC_F_WRITE         2 /* sec. 2.4.5 */
#define VRING_AVAIL_F_NO_INTERRUPT 1
#define VRING_ALIGN                4096 /* legacy (sec. 2.4.2) */

#define RXQ       0
#define TXQ       1
#define NBUF      64 /* buffers posted per queue */
#define BUFSZ     2048
#define MAX_QSIZE 1024
#define VNET_TAG  "virtio_net"

static bool force_legacy;
MODULE_PARAM(force_legacy, BOOL, "use the legacy virtio PCI transport");

struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct vring_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vq {
	unsigned size;   /* entries, from the device */
	unsigned npages; /* of ring memory */
	struct vring_desc *desc;
	volatile uint16_t *avail; /* flags, idx, ring[size] */
	volatile uint16_t *used;  /* flags, idx, then elems */
	struct vring_used_elem *used_ring;
	uint16_t last_used;
	uint16_t avail_idx;
	uint8_t *buf;  /* NBUF buffers of BUFSZ */
	unsigned free; /* tx: descriptors not in flight, in free_ids */
	uint16_t free_ids[NBUF];
};

struct vnet {
	struct net_device *dev;
	struct pci_dev *pdev;
	struct virtio_pci vp;
	uint64_t features;
	unsigned hdrlen;
	struct napi_struct napi;
	struct vq q[2];
	bool irq_on;
};

static unsigned
ring_bytes(unsigned size)
{
	unsigned a = 16 * size + 2 * (3 + size);

	a = (a + VRING_ALIGN - 1) & ~(VRING_ALIGN - 1);
	return a + 2 * 3 + 8 * size;
}

static void
vq_free(struct vq *q)
{
	if (q->desc != NULL)
		free_pages(q->desc, q->npages);
	if (q->buf != NULL)
		free_pages(q->buf, NBUF * BUFSZ / PAGE_SIZE);
	memset(q, 0, sizeof(*q));
}

/* Build queue idx and hand it to the device: 0 or -errno. */
static int
vq_setup(struct vnet *v, int idx)
{
	struct vq *q = &v->q[idx];
	unsigned size, avail_end;

	size = vp_queue_size(&v->vp, (unsigned)idx);
	if (size < NBUF || size > MAX_QSIZE || (size & (size - 1)) != 0) {
		pr_warn("virtio_net: queue %d: size %u unusable\n", idx, size);
		return -EIO;
	}
	q->size = size;
	q->npages = (ring_bytes(size) + PAGE_SIZE - 1) / PAGE_SIZE;
	q->desc = alloc_pages(q->npages, VNET_TAG);
	q->buf = alloc_pages(NBUF * BUFSZ / PAGE_SIZE, VNET_TAG);
	if (q->desc == NULL || q->buf == NULL) {
		vq_free(q);
		return -ENOMEM;
	}
	q->avail = (volatile uint16_t *)(q->desc + size);
	avail_end = 16 * size + 2 * (3 + size);
	q->used = (volatile uint16_t *)((uint8_t *)q->desc +
	                                ((avail_end + VRING_ALIGN - 1) &
	                                 ~(VRING_ALIGN - 1)));
	q->used_ring = (struct vring_used_elem *)(q->used + 2);
	q->free = NBUF;
	for (unsigned i = 0; i < NBUF; i++)
		q->free_ids[i] = (uint16_t)i;
	if (vp_queue_setup(&v->vp, (unsigned)idx, size, V2P(q->desc),
	                   V2P(q->avail), V2P(q->used)) < 0) {
		pr_warn("virtio_net: queue %d: notify offset out of range\n",
		        idx);
		vq_free(q);
		return -EIO;
	}
	return 0;
}

/* Put descriptor d (buffer d) on the available ring. */
static void
vq_post(struct vq *q, unsigned d, uint32_t len, uint16_t flags)
{
	q->desc[d].addr = V2P(q->buf + d * BUFSZ);
	q->desc[d].len = len;
	q->desc[d].flags = flags;
	q->desc[d].next = 0;
	q->avail[2 + q->avail_idx % q->size] = (uint16_t)d;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* ring entry, then idx */
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
}

#define VRING_USED_F_NO_NOTIFY 1 /* sec. 2.4.7.2 (2.6.7 in 1.1) */

/* Kick the device about queue idx, unless it said it needs no kick: it
 * sets NO_NOTIFY while it is working through the queue, and looks at the
 * available index again before clearing it (sec. 2.4.7.2).  The fence
 * orders our index update before the read of its flag. */
static void
vq_notify(struct vnet *v, int idx)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (v->q[idx].used[0] & VRING_USED_F_NO_NOTIFY)
		return;
	vp_notify(&v->vp, (unsigned)idx);
}

/* Next used element, or false.  A used id the driver never posted is
 * the device's bug, reported and skipped (sec. 2.4.8). */
static bool
vq_next_used(struct vq *q, uint32_t *id, uint32_t *len)
{
	uint16_t used_idx = __atomic_load_n(&q->used[1], __ATOMIC_ACQUIRE);

	if (q->last_used == used_idx)
		return false;
	*id = q->used_ring[q->last_used % q->size].id;
	*len = q->used_ring[q->last_used % q->size].len;
	q->last_used++;
	return true;
}

static void
update_link(struct vnet *v)
{
	if (!(v->features & VIRTIO_NET_F_STATUS) ||
	    (vp_config16(&v->vp, VIRTIO_NET_CFG_STATUS) & VIRTIO_NET_S_LINK_UP))
		netif_carrier_on(v->dev);
	else
		netif_carrier_off(v->dev);
}

/* Receive interrupts on or off.  Transmit never asks for one: xmit and
 * the poll recycle used descriptors themselves (tx_clean), and an
 * interrupt per sent frame cost an interrupt and a poll per echoed
 * datagram (docs/bench.md, the packet path). */
static void
set_irqs(struct vnet *v, bool on)
{
	v->q[RXQ].avail[0] = on ? 0 : VRING_AVAIL_F_NO_INTERRUPT;
	v->q[TXQ].avail[0] = VRING_AVAIL_F_NO_INTERRUPT;
}

static void
vnet_irq(void *arg)
{
	struct vnet *v = arg;
	uint8_t isr;

	if (v == NULL || !v->irq_on)
		return;
	isr = vp_isr(&v->vp); /* reading acknowledges */
	if (isr == 0)
		return; /* a device sharing the line */
	if (isr & VIRTIO_ISR_CONFIG)
		update_link(v);
	if (isr & VIRTIO_ISR_QUEUE) {
		set_irqs(v, false);
		napi_schedule(&v->napi);
	}
}

static void
tx_clean(struct vnet *v)
{
	struct vq *q = &v->q[TXQ];
	uint32_t id, len;

	while (vq_next_used(q, &id, &len)) {
		if (id >= NBUF || q->free >= NBUF) {
			v->dev->stats.tx_errors++; /* not one in flight */
			continue;
		}
		q->free_ids[q->free++] = (uint16_t)id;
	}
}

static int
vnet_poll(struct napi_struct *napi, int budget)
{
	struct vnet *v = netdev_priv(napi->dev);
	struct net_device *dev = v->dev;
	struct vq *q = &v->q[RXQ];
	uint32_t id, len, f;
	int done = 0;

	f = spin_lock_irqsave(&dev->xmit_lock);
	tx_clean(v);
	spin_unlock_irqrestore(&dev->xmit_lock, f);
	while (done < budget && vq_next_used(q, &id, &len)) {
		struct sk_buff *skb;

		done++;
		if (id >= NBUF) {
			dev->stats.rx_errors++;
			continue; /* not ours: nothing to give back */
		}
		if (len < v->hdrlen + ETH_HLEN || len > BUFSZ) {
			dev->stats.rx_errors++;
		} else if ((skb = netdev_alloc_skb(dev, len - v->hdrlen)) ==
		           NULL) {
			dev->stats.rx_dropped++;
		} else {
			memcpy(skb_put(skb, len - v->hdrlen),
			       q->buf + id * BUFSZ + v->hdrlen,
			       len - v->hdrlen);
			netif_receive_skb(skb);
		}
		vq_post(q, id, BUFSZ, VRING_DESC_F_WRITE);
	}
	if (done > 0)
		vq_notify(v, RXQ);
	if (done < budget) {
		napi_complete(napi);
		set_irqs(v, true);
		/* Work that arrived while interrupts were off. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (q->last_used != q->used[1])
			napi_schedule(napi);
	}
	return done;
}

/* Called with dev->xmit_lock held, interrupts off. */
static int
vnet_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct vnet *v = netdev_priv(dev);
	struct vq *q = &v->q[TXQ];
	unsigned d;

	tx_clean(v);
	if (q->free == 0 || skb->len + v->hdrlen > BUFSZ)
		return NETDEV_TX_BUSY;
	d = q->free_ids[--q->free];
	memset(q->buf + d * BUFSZ, 0, v->hdrlen);
	memcpy(q->buf + d * BUFSZ + v->hdrlen, skb->data, skb->len);
	vq_post(q, d, v->hdrlen + skb->len, 0);
	vq_notify(v, TXQ);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static void
vnet_reset(struct vnet *v)
{
	vp_reset(&v->vp);
}

static int
vnet_open(struct net_device *dev)
{
	struct vnet *v = netdev_priv(dev);
	int r;

	/* Initialisation in the order of sec. 3.1.1. */
	vnet_reset(v);
	vp_add_status(&v->vp, VIRTIO_STATUS_ACK | VIRTIO_STATUS_DRIVER);
	r = vp_set_features(&v->vp, v->features);
	if (r == 0)
		r = vq_setup(v, RXQ);
	if (r == 0)
		r = vq_setup(v, TXQ);
	if (r < 0)
		goto fail;
	for (unsigned i = 0; i < NBUF; i++)
		vq_post(&v->q[RXQ], i, BUFSZ, VRING_DESC_F_WRITE);
	pci_set_master(v->pdev);
	napi_enable(&v->napi);
	v->irq_on = true;
	if (irq_register(v->pdev->irq, vnet_irq, v, "virtio_net") < 0) {
		v->irq_on = false;
		napi_disable(&v->napi);
		r = -EBUSY;
		goto fail;
	}
	vp_add_status(&v->vp, VIRTIO_STATUS_DRIVER_OK);
	vq_notify(v, RXQ);
	update_link(v);
	return 0;
fail:
	vnet_reset(v);
	pci_clear_master(v->pdev);
	vq_free(&v->q[RXQ]);
	vq_free(&v->q[TXQ]);
	return r;
}

static int
vnet_stop(struct net_device *dev)
{
	struct vnet *v = netdev_priv(dev);

	/* Reset first: the device stops using the rings (and raising
	 * interrupts); then no handler may still run, then no poll. */
	vnet_reset(v);
	v->irq_on = false;
	irq_unregister(v->pdev->irq, vnet_irq, v);
	synchronize_rcu();
	napi_disable(&v->napi);
	pci_clear_master(v->pdev);
	vq_free(&v->q[RXQ]);
	vq_free(&v->q[TXQ]);
	netif_carrier_off(dev);
	return 0;
}

static const struct net_device_ops vnet_ops = {
    .owner = THIS_MODULE,
    .ndo_open = vnet_open,
    .ndo_stop = vnet_stop,
    .ndo_start_xmit = vnet_xmit,
};

void
virtio_net_destructor(struct net_device *dev)
{
	free_netdev(dev);
}

static int
vnet_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *dev;
	struct vnet *v;
	uint64_t host, want = VIRTIO_NET_F_MAC | VIRTIO_NET_F_STATUS;
	int r;

	(void)id;
	if (pdev->irq < 0)
		return -ENODEV;
	dev = alloc_etherdev(sizeof(*v));
	if (dev == NULL)
		return -ENOMEM;
	v = netdev_priv(dev);
	v->dev = dev;
	v->pdev = pdev;
	pci_enable_device(pdev);
	if (vp_init(&v->vp, pdev, force_legacy) < 0) {
		pci_disable_device(pdev);
		free_netdev(dev);
		return -ENODEV;
	}
	vnet_reset(v);
	vp_add_status(&v->vp, VIRTIO_STATUS_ACK | VIRTIO_STATUS_DRIVER);
	host = vp_device_features(&v->vp);
	if (v->vp.modern) {
		if (!(host & VIRTIO_F_VERSION_1)) {
			vnet_reset(v);
			pci_disable_device(pdev);
			free_netdev(dev);
			return -ENODEV; /* a modern device must offer it */
		}
		want |= VIRTIO_F_VERSION_1;
	}
	v->features = host & want;
	v->hdrlen = v->vp.modern ? 12 : 10;
	if (v->features & VIRTIO_NET_F_MAC) {
		for (int i = 0; i < ETH_ALEN; i++)
			dev->dev_addr[i] = vp_config8(
			    &v->vp, VIRTIO_NET_CFG_MAC + (unsigned)i);
	} else {
		/* No MAC from the device: a locally administered one. */
		dev->dev_addr[0] = 0x02;
		dev->dev_addr[5] = pdev->slot;
	}
	vnet_reset(v); /* quiet until open */
	dev->netdev_ops = &vnet_ops;
	dev->destructor = virtio_net_destructor;
	netif_napi_add(dev, &v->napi, vnet_poll, 64);
	r = register_netdev(dev);
	if (r < 0) {
		pci_disable_device(pdev);
		free_netdev(dev);
		return r;
	}
	pdev->driver_data = dev;
	kprintf("virtio_net: %s: %s, irq %d, %s transport, features "
	        "%08x%08x of %08x%08x, mac %02x:%02x:%02x:%02x:%02x:%02x\n",
	        pdev->name, dev->name, pdev->irq,
	        v->vp.modern ? "modern" : "legacy",
	        (unsigned)(v->features >> 32), (unsigned)v->features,
	        (unsigned)(host >> 32), (unsigned)host, dev->dev_addr[0],
	        dev->dev_addr[1], dev->dev_addr[2], dev->dev_addr[3],
	        dev->dev_addr[4], dev->dev_addr[5]);
	return 0;
}

static void
vnet_remove(struct pci_dev *pdev)
{
	struct net_device *dev = pdev->driver_data;
	struct virtio_pci vp = ((struct vnet *)netdev_priv(dev))->vp;

	unregister_netdev(dev); /* stops it if up; see e1000_remove */
	vp_reset(&vp);
	pci_disable_device(pdev);
}

static const struct pci_device_id vnet_ids[] = {
    {0x1af4, 0x1000, 0}, /* transitional virtio-net (both transports) */
    {0, 0, 0},
};

static struct pci_driver vnet_driver = {
    .name = "virtio_net",
    .id_table = vnet_ids,
    .probe = vnet_probe,
    .remove = vnet_remove,
    .owner = THIS_MODULE,
};

static int
vnet_init(void)
{
	return pci_register_driver(&vnet_driver);
}

static void
vnet_exit(void)
{
	pci_unregister_driver(&vnet_driver);
}

module_init(vnet_init);
module_exit(vnet_exit);
NETDEV_MODULE_HOOKS();
MODULE_INFO(alias, "pci:v00001AF4d00001000");
MODULE_DESCRIPTION("virtio-net over the modern or legacy virtio PCI transport");
MODULE_LICENSE("GPL");
