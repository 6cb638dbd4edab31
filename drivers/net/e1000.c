/*
 * e1000: Intel 82540EM, the NIC QEMU emulates as "e1000".  References:
 * "PCI/PCI-X Family of Gigabit Ethernet Controllers Software Developer's
 * Manual" (8254x SDM, rev 4.0): register map sec. 13, descriptors 3.2.3
 * (receive) and 3.3.3 (transmit), initialisation sec. 14.
 *
 * Thin on purpose: reset and MAC at probe; rings, interrupts and RCTL at
 * open; frames up through NAPI.  Transmit copies each frame into the
 * slot's own buffer, so the skb is freed at once and completion only
 * recycles descriptors, which xmit and the poll do themselves (tx_clean):
 * no transmit interrupt (TXDW), which cost an interrupt and a poll per
 * echoed datagram (docs/bench.md, the packet path).  TCP/UDP checksums
 * are left to the device (NETIF_F_L4_CSUM, sec. 3.3.5): a frame that asks
 * for one goes as an extended data descriptor, after a context
 * descriptor when the offsets differ from the last frame's.  All DMA memory is direct-map pages (physically
 * contiguous, V2P is the bus address), allocated at open and freed at
 * stop after the device has been told to stop and has been reset.
 *
 * QEMU fact: its e1000 refuses received frames for 1000 ms of guest time
 * after every RCTL write, so RCTL is written once per open (and once at
 * stop to turn receive off), never for mode changes.
 */
#include <drivers/pci.h>
#include <kernel/lib/errno.h>
#include <kernel/arch/irq.h>
#include <kernel/module.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>

/* Registers (SDM sec. 13.4). */
#define CTRL    0x0000
#define STATUS  0x0008
#define EERD    0x0014
#define ICR     0x00c0
#define IMS     0x00d0
#define IMC     0x00d8
#define RCTL    0x0100
#define TCTL    0x0400
#define TIPG    0x0410
#define RDBAL   0x2800
#define RDBAH   0x2804
#define RDLEN   0x2808
#define RDH     0x2810
#define RDT     0x2818
#define TDBAL   0x3800
#define TDBAH   0x3804
#define TDLEN   0x3808
#define TDH     0x3810
#define TDT     0x3818
#define CRCERRS 0x4000 /* statistics, clear on read (sec. 13.7) */
#define MPC     0x4010
#define MTA     0x5200
#define RAL0    0x5400
#define RAH0    0x5404

#define CTRL_ASDE  (1u << 5)
#define CTRL_SLU   (1u << 6)
#define CTRL_RST   (1u << 26)
#define STATUS_LU  (1u << 1)
#define EERD_START (1u << 0)
#define EERD_DONE  (1u << 4)
#define RAH_AV     (1u << 31)

/* Interrupt cause bits, ICR/IMS/IMC (sec. 13.4.17). */
#define INT_LSC    (1u << 2)
#define INT_RXDMT0 (1u << 4)
#define INT_RXO    (1u << 6)
#define INT_RXT0   (1u << 7)
#define INT_RX     (INT_RXDMT0 | INT_RXO | INT_RXT0)
#define INT_ALL    0xffffffffu

/* RCTL (sec. 13.4.22): enable, accept broadcast, 2048-byte buffers,
 * strip the CRC. */
#define RCTL_EN    (1u << 1)
#define RCTL_BAM   (1u << 15)
#define RCTL_SECRC (1u << 26)
/* TCTL (sec. 13.4.33): enable, pad short packets, collision threshold
 * and distance for full duplex. */
#define TCTL_EN      (1u << 1)
#define TCTL_PSP     (1u << 3)
#define TCTL_CT      (0x0fu << 4)
#define TCTL_COLD    (0x40u << 12)
#define TIPG_DEFAULT (10u | 8u << 10 | 6u << 20) /* sec. 13.4.34 */

#define RXD_STAT_DD  0x01
#define RXD_STAT_EOP 0x02
#define TXD_CMD_EOP  0x01
#define TXD_CMD_IFCS 0x02
#define TXD_CMD_RS   0x08
#define TXD_CMD_DEXT 0x20 /* extended: context or data descriptor */
#define TXD_STAT_DD  0x01
/* Extended descriptors (sec. 3.3.5-3.3.7): the type in bits 20-23 of the
 * length word, which is the legacy layout's cso byte's high nibble; a
 * data descriptor's POPTS sits where the legacy css byte is. */
#define TXD_DTYP_CTX   0x00
#define TXD_DTYP_DATA  0x10
#define TXD_POPTS_TXSM 0x02 /* insert the TCP/UDP checksum */

#define NRX       64 /* ring lengths: multiples of 8 (128-byte units) */
#define NTX       64
#define BUFSZ     2048
#define E1000_TAG "e1000"

struct rx_desc {
	uint64_t addr;
	uint16_t length;
	uint16_t csum;
	uint8_t status;
	uint8_t errors;
	uint16_t special;
};

struct tx_desc {
	uint64_t addr;
	uint16_t length;
	uint8_t cso;
	uint8_t cmd;
	uint8_t status;
	uint8_t css;
	uint16_t special;
};

/* The TCP/IP context descriptor (sec. 3.3.6): where the checksum the
 * following data descriptors ask for starts (tucss), goes (tucso) and
 * ends (tucse, 0: the end of the frame); offsets from the frame's first
 * byte.  The IP fields stay 0: the stack fills the IP header's own. */
struct tx_ctx_desc {
	uint8_t ipcss, ipcso;
	uint16_t ipcse;
	uint8_t tucss, tucso;
	uint16_t tucse;
	uint16_t paylen_lo;
	uint8_t dtyp;  /* paylen 19:16 (0), type in the high nibble */
	uint8_t tucmd; /* DEXT, RS: written back like a data descriptor */
	uint8_t status;
	uint8_t hdrlen;
	uint16_t mss;
};

_Static_assert(sizeof(struct rx_desc) == 16, "SDM 3.2.3");
_Static_assert(sizeof(struct tx_desc) == 16, "SDM 3.3.3");
_Static_assert(sizeof(struct tx_ctx_desc) == 16, "SDM 3.3.6");

struct e1000 {
	struct net_device *dev;
	struct pci_dev *pdev;
	volatile uint8_t *regs;
	struct napi_struct napi;
	struct rx_desc *rx;
	struct tx_desc *tx;
	uint8_t *rxbuf, *txbuf;
	unsigned rx_next;           /* next descriptor the device fills */
	unsigned tx_next, tx_clean; /* producer, oldest in flight */
	/* The checksum context the device holds (0, 0: none yet); a frame
	 * that needs another one is preceded by a context descriptor. */
	uint8_t ctx_css, ctx_cso;
	bool irq_on;
};

/* Test switch: leave every checksum to the stack (insmod e1000
 * csum_offload=0), so both ways stay exercised on the real device. */
static bool csum_offload = true;
MODULE_PARAM(csum_offload, BOOL,
             "fill in TCP/UDP checksums on transmit (default 1)");

static uint32_t
rd(struct e1000 *e, unsigned reg)
{
	return *(volatile uint32_t *)(e->regs + reg);
}

static void
wr(struct e1000 *e, unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)(e->regs + reg) = v;
}

/* EEPROM word through EERD (sec. 5.3.1, 13.4.4); 0xffff on timeout. */
static uint16_t
eeprom_read(struct e1000 *e, unsigned word)
{
	wr(e, EERD, EERD_START | word << 8);
	for (int i = 0; i < 1000; i++) {
		uint32_t v = rd(e, EERD);
		if (v & EERD_DONE)
			return (uint16_t)(v >> 16);
		udelay(10);
	}
	return 0xffff;
}

static int
reset(struct e1000 *e)
{
	wr(e, IMC, INT_ALL);
	wr(e, CTRL, rd(e, CTRL) | CTRL_RST);
	/* RST clears itself when the reset is done: poll it finely rather
	 * than sleep a fixed millisecond (QEMU's model is done at once; a
	 * real 82540 within microseconds).  Up to 100 ms in all. */
	udelay(10);
	for (int i = 0; i < 10000 && (rd(e, CTRL) & CTRL_RST); i++)
		udelay(10);
	if (rd(e, CTRL) & CTRL_RST)
		return -EIO;
	wr(e, IMC, INT_ALL);
	(void)rd(e, ICR);
	return 0;
}

static void
read_mac(struct e1000 *e, uint8_t mac[ETH_ALEN])
{
	uint32_t lo = rd(e, RAL0), hi = rd(e, RAH0);

	if (hi & RAH_AV) {
		for (int i = 0; i < 4; i++)
			mac[i] = (uint8_t)(lo >> (8 * i));
		mac[4] = (uint8_t)hi;
		mac[5] = (uint8_t)(hi >> 8);
		return;
	}
	for (int i = 0; i < 3; i++) { /* EEPROM words 0-2 (sec. 5.6.1) */
		uint16_t w = eeprom_read(e, (unsigned)i);
		mac[2 * i] = (uint8_t)w;
		mac[2 * i + 1] = (uint8_t)(w >> 8);
	}
}

static void
update_link(struct e1000 *e)
{
	if (rd(e, STATUS) & STATUS_LU)
		netif_carrier_on(e->dev);
	else
		netif_carrier_off(e->dev);
}

static void
e1000_irq(void *arg)
{
	struct e1000 *e = arg;
	uint32_t icr;

	if (e == NULL || !e->irq_on)
		return;
	icr = rd(e, ICR); /* reading acknowledges (sec. 13.4.17) */
	if (icr == 0)
		return; /* a device sharing the line */
	if (icr & INT_LSC)
		update_link(e);
	if (icr & INT_RX) {
		/* Quiet until the poll has drained the ring. */
		wr(e, IMC, INT_RX);
		napi_schedule(&e->napi);
	}
}

static void
tx_clean(struct e1000 *e)
{
	while (e->tx_clean != e->tx_next &&
	       (__atomic_load_n(&e->tx[e->tx_clean].status, __ATOMIC_ACQUIRE) &
	        TXD_STAT_DD))
		e->tx_clean = (e->tx_clean + 1) % NTX;
}

static int
e1000_poll(struct napi_struct *napi, int budget)
{
	struct e1000 *e = netdev_priv(napi->dev);
	struct net_device *dev = e->dev;
	uint32_t f;
	int done = 0;

	f = spin_lock_irqsave(&dev->xmit_lock);
	tx_clean(e);
	spin_unlock_irqrestore(&dev->xmit_lock, f);
	while (done < budget) {
		struct rx_desc *d = &e->rx[e->rx_next];
		uint8_t st = __atomic_load_n(&d->status, __ATOMIC_ACQUIRE);
		struct sk_buff *skb;
		unsigned len = d->length;

		if (!(st & RXD_STAT_DD))
			break;
		/* Frames span one 2048-byte buffer; anything else (a
		 * fragment, an error, a bad length) is dropped. */
		if (!(st & RXD_STAT_EOP) || d->errors != 0 || len < ETH_HLEN ||
		    len > BUFSZ) {
			dev->stats.rx_errors++;
		} else if ((skb = netdev_alloc_skb(dev, len)) == NULL) {
			dev->stats.rx_dropped++;
		} else {
			memcpy(skb_put(skb, len), e->rxbuf + e->rx_next * BUFSZ,
			       len);
			netif_receive_skb(skb);
		}
		d->status = 0;
		e->rx_next = (e->rx_next + 1) % NRX;
		done++;
	}
	/* Give the descriptors back once per poll, not per frame: RDT is
	 * the last one we own, and each write is an exit to the emulator
	 * (Linux's e1000 writes it once per 16 buffers). */
	if (done > 0)
		wr(e, RDT, (e->rx_next + NRX - 1) % NRX);
	dev->stats.rx_errors += rd(e, CRCERRS);
	dev->stats.rx_dropped += rd(e, MPC);
	if (done < budget) {
		napi_complete(napi);
		wr(e, IMS, INT_RX | INT_LSC);
	}
	return done;
}

/* Make the device's checksum context (css, cso) if it is not already;
 * takes the slot at tx_next. */
static void
tx_context(struct e1000 *e, uint8_t css, uint8_t cso)
{
	struct tx_ctx_desc *c = (struct tx_ctx_desc *)&e->tx[e->tx_next];

	memset(c, 0, sizeof(*c));
	c->tucss = css;
	c->tucso = cso;
	c->dtyp = TXD_DTYP_CTX;
	c->tucmd = TXD_CMD_DEXT | TXD_CMD_RS;
	e->ctx_css = css;
	e->ctx_cso = cso;
	e->tx_next = (e->tx_next + 1) % NTX;
}

/* Called with dev->xmit_lock held, interrupts off. */
static int
e1000_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct e1000 *e = netdev_priv(dev);
	unsigned css = 0, cso = 0, slots = 1, next;
	bool sum = skb->csum_partial;
	struct tx_desc *d;

	if (sum) {
		/* From the frame's first byte; the stack only asks for an
		 * IPv4 header without options, well inside a byte. */
		css = skb->csum_start - (unsigned)(skb->data - skb->head);
		cso = css + skb->csum_offset;
		ASSERT(cso + 2 <= skb->len && cso < 256);
		if (css != e->ctx_css || cso != e->ctx_cso)
			slots = 2;
	}
	tx_clean(e);
	if ((e->tx_clean + NTX - e->tx_next - 1) % NTX < slots ||
	    skb->len > BUFSZ)
		return NETDEV_TX_BUSY;
	if (slots == 2)
		tx_context(e, (uint8_t)css, (uint8_t)cso);
	d = &e->tx[e->tx_next];
	next = (e->tx_next + 1) % NTX;
	memcpy(e->txbuf + e->tx_next * BUFSZ, skb->data, skb->len);
	d->addr = V2P(e->txbuf + e->tx_next * BUFSZ);
	d->length = (uint16_t)skb->len;
	d->cmd = TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_RS;
	d->cso = 0;
	d->css = 0;
	if (sum) {
		d->cmd |= TXD_CMD_DEXT;
		d->cso = TXD_DTYP_DATA;
		d->css = TXD_POPTS_TXSM;
	}
	d->status = 0;
	e->tx_next = next;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* descriptor before TDT */
	wr(e, TDT, next);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static void
free_rings(struct e1000 *e)
{
	if (e->rx != NULL)
		free_page(e->rx);
	if (e->tx != NULL)
		free_page(e->tx);
	if (e->rxbuf != NULL)
		free_pages(e->rxbuf, NRX * BUFSZ / PAGE_SIZE);
	if (e->txbuf != NULL)
		free_pages(e->txbuf, NTX * BUFSZ / PAGE_SIZE);
	e->rx = NULL;
	e->tx = NULL;
	e->rxbuf = e->txbuf = NULL;
}

static int
alloc_rings(struct e1000 *e)
{
	e->rx = alloc_page(E1000_TAG);
	e->tx = alloc_page(E1000_TAG);
	e->rxbuf = alloc_pages(NRX * BUFSZ / PAGE_SIZE, E1000_TAG);
	e->txbuf = alloc_pages(NTX * BUFSZ / PAGE_SIZE, E1000_TAG);
	if (e->rx == NULL || e->tx == NULL || e->rxbuf == NULL ||
	    e->txbuf == NULL) {
		free_rings(e);
		return -ENOMEM;
	}
	return 0;
}

static int
e1000_open(struct net_device *dev)
{
	struct e1000 *e = netdev_priv(dev);
	int r = alloc_rings(e);

	if (r < 0)
		return r;
	for (unsigned i = 0; i < NRX; i++)
		e->rx[i].addr = V2P(e->rxbuf + i * BUFSZ);
	e->rx_next = e->tx_next = e->tx_clean = 0;
	e->ctx_css = e->ctx_cso = 0; /* a reset device holds no context */
	for (unsigned i = 0; i < 128; i++)
		wr(e, MTA + 4 * i, 0);
	wr(e, RDBAL, (uint32_t)V2P(e->rx));
	wr(e, RDBAH, 0);
	wr(e, RDLEN, NRX * sizeof(struct rx_desc));
	wr(e, RDH, 0);
	wr(e, RDT, NRX - 1);
	wr(e, TDBAL, (uint32_t)V2P(e->tx));
	wr(e, TDBAH, 0);
	wr(e, TDLEN, NTX * sizeof(struct tx_desc));
	wr(e, TDH, 0);
	wr(e, TDT, 0);
	wr(e, TIPG, TIPG_DEFAULT);
	wr(e, TCTL, TCTL_EN | TCTL_PSP | TCTL_CT | TCTL_COLD);
	pci_set_master(e->pdev);
	napi_enable(&e->napi);
	e->irq_on = true;
	r = irq_register(e->pdev->irq, e1000_irq, e, "e1000");
	if (r < 0) {
		e->irq_on = false;
		napi_disable(&e->napi);
		wr(e, TCTL, 0);
		reset(e);
		pci_clear_master(e->pdev);
		free_rings(e);
		return -EBUSY;
	}
	wr(e, CTRL, rd(e, CTRL) | CTRL_SLU | CTRL_ASDE);
	wr(e, RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC); /* once: see top */
	wr(e, IMS, INT_RX | INT_LSC);
	update_link(e);
	return 0;
}

static int
e1000_stop(struct net_device *dev)
{
	struct e1000 *e = netdev_priv(dev);

	/* Quiet the device first, then make sure no CPU is still in our
	 * interrupt handler, then stop the poll; DMA ends with the reset,
	 * and only then is the memory it used freed. */
	wr(e, IMC, INT_ALL);
	wr(e, RCTL, 0);
	wr(e, TCTL, 0);
	e->irq_on = false;
	irq_unregister(e->pdev->irq, e1000_irq, e);
	synchronize_rcu(); /* a handler running elsewhere has returned */
	napi_disable(&e->napi);
	reset(e);
	pci_clear_master(e->pdev);
	free_rings(e);
	netif_carrier_off(dev);
	return 0;
}

static const struct net_device_ops e1000_ops = {
    .owner = THIS_MODULE,
    .ndo_open = e1000_open,
    .ndo_stop = e1000_stop,
    .ndo_start_xmit = e1000_xmit,
};

void
e1000_destructor(struct net_device *dev)
{
	free_netdev(dev);
}

static int
e1000_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *dev;
	struct e1000 *e;
	int r;

	(void)id;
	if (pdev->irq < 0)
		return -ENODEV;
	dev = alloc_etherdev(sizeof(*e));
	if (dev == NULL)
		return -ENOMEM;
	e = netdev_priv(dev);
	e->dev = dev;
	e->pdev = pdev;
	pci_enable_device(pdev);
	e->regs = pci_iomap(pdev, 0);
	if (e->regs == NULL) {
		r = -ENODEV;
		goto fail;
	}
	r = reset(e);
	if (r < 0)
		goto fail;
	read_mac(e, dev->dev_addr);
	dev->netdev_ops = &e1000_ops;
	dev->destructor = e1000_destructor;
	if (csum_offload)
		dev->features |= NETIF_F_L4_CSUM;
	netif_napi_add(dev, &e->napi, e1000_poll, 64);
	r = register_netdev(dev);
	if (r < 0)
		goto fail;
	pdev->driver_data = dev;
	kprintf("e1000: %s: %s, irq %d, mac %02x:%02x:%02x:%02x:%02x:%02x\n",
	        pdev->name, dev->name, pdev->irq, dev->dev_addr[0],
	        dev->dev_addr[1], dev->dev_addr[2], dev->dev_addr[3],
	        dev->dev_addr[4], dev->dev_addr[5]);
	return 0;
fail:
	pci_disable_device(pdev);
	free_netdev(dev);
	return r;
}

static void
e1000_remove(struct pci_dev *pdev)
{
	struct net_device *dev = pdev->driver_data;

	/* Closes the device (e1000_stop) if it is up, waits for the
	 * references if the core's refcount strategy does, then runs the
	 * destructor.  The hardware was reset by stop; once the device is
	 * gone, reset again in case it was never opened.  If references
	 * outlive the unregister (the core says so), leave the hardware as
	 * it is.  Bus mastering stops for good either way. */
	struct e1000 *e = netdev_priv(dev);
	volatile uint8_t *regs = e->regs;
	if (unregister_netdev(dev) == 0) {
		struct e1000 tmp = {.regs = regs};
		reset(&tmp);
	}
	pci_disable_device(pdev);
}

static const struct pci_device_id e1000_ids[] = {
    {0x8086, 0x100e, 0}, /* 82540EM, QEMU's default e1000 */
    {0, 0, 0},
};

static struct pci_driver e1000_driver = {
    .name = "e1000",
    .id_table = e1000_ids,
    .probe = e1000_probe,
    .remove = e1000_remove,
    .owner = THIS_MODULE,
};

static int
e1000_init(void)
{
	return pci_register_driver(&e1000_driver);
}

static void
e1000_exit(void)
{
	pci_unregister_driver(&e1000_driver);
}

module_init(e1000_init);
module_exit(e1000_exit);
NETDEV_MODULE_HOOKS();
MODULE_INFO(alias, "pci:v00008086d0000100E");
MODULE_DESCRIPTION("Intel 82540EM (QEMU e1000) network driver");
MODULE_LICENSE("GPL");
