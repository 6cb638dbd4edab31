/*
 * The virtio PCI transport (virtio_pci.h): modern through the vendor
 * capabilities (virtio 1.0 sec. 4.1.4), legacy through I/O BAR 0
 * (sec. 4.1.4.8).  Capability contents come from the device and are
 * checked before use: a BAR that is not memory, or a structure that does
 * not fit in its BAR, makes the modern transport unusable.
 */
#include "drivers/net/virtio_net/virtio_pci.h"
#include <kernel/lib/errno.h>
#include <kernel/arch/x86.h>

/* Legacy register block (sec. 4.1.4.8), without MSI-X. */
#define L_HOST_FEATURES  0x00
#define L_GUEST_FEATURES 0x04
#define L_QUEUE_PFN      0x08
#define L_QUEUE_SIZE     0x0c
#define L_QUEUE_SEL      0x0e
#define L_QUEUE_NOTIFY   0x10
#define L_STATUS         0x12
#define L_ISR            0x13
#define L_CONFIG         0x14

/* Modern common configuration structure (sec. 4.1.4.3). */
#define C_DFSELECT  0x00
#define C_DF        0x04
#define C_GFSELECT  0x08
#define C_GF        0x0c
#define C_STATUS    0x14
#define C_Q_SELECT  0x16
#define C_Q_SIZE    0x18
#define C_Q_ENABLE  0x1c
#define C_Q_NOFF    0x1e
#define C_Q_DESCLO  0x20
#define C_Q_DESCHI  0x24
#define C_Q_AVAILLO 0x28
#define C_Q_AVAILHI 0x2c
#define C_Q_USEDLO  0x30
#define C_Q_USEDHI  0x34
#define C_LEN       0x38

/* Vendor capability (sec. 4.1.4). */
#define PCI_CAP_ID_VNDR 0x09
#define CAP_CFG_TYPE    3
#define CAP_BAR         4
#define CAP_OFFSET      8
#define CAP_LENGTH      12
#define CAP_NOTIFY_MULT 16
#define CFG_COMMON      1
#define CFG_NOTIFY      2
#define CFG_ISR         3
#define CFG_DEVICE      4

static void
w8(volatile uint8_t *b, unsigned off, uint8_t v)
{
	*(volatile uint8_t *)(b + off) = v;
}

static void
w16(volatile uint8_t *b, unsigned off, uint16_t v)
{
	*(volatile uint16_t *)(b + off) = v;
}

static void
w32(volatile uint8_t *b, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(b + off) = v;
}

static uint8_t
r8(volatile uint8_t *b, unsigned off)
{
	return *(volatile uint8_t *)(b + off);
}

static uint16_t
r16(volatile uint8_t *b, unsigned off)
{
	return *(volatile uint16_t *)(b + off);
}

static uint32_t
r32(volatile uint8_t *b, unsigned off)
{
	return *(volatile uint32_t *)(b + off);
}

/* Map the structure a capability at cap describes; NULL if unusable. */
static volatile uint8_t *
cap_map(struct pci_dev *d, unsigned cap, uint32_t need)
{
	uint8_t bar = pci_read8(d, cap + CAP_BAR);
	uint32_t off = pci_read32(d, cap + CAP_OFFSET);
	uint32_t len = pci_read32(d, cap + CAP_LENGTH);
	uint8_t *base;

	if (bar >= PCI_NUM_BARS || d->bar[bar].kind != PCI_BAR_KIND_MEM ||
	    len < need || off > d->bar[bar].size ||
	    len > d->bar[bar].size - off)
		return NULL;
	base = pci_iomap(d, bar);
	return base != NULL ? base + off : NULL;
}

static int
modern_init(struct virtio_pci *vp, struct pci_dev *d)
{
	int ttl = PCI_CAP_TTL;

	for (unsigned off = pci_next_capability(d, 0, PCI_CAP_ID_VNDR, &ttl);
	     off != 0;
	     off = pci_next_capability(d, off, PCI_CAP_ID_VNDR, &ttl)) {
		switch (pci_read8(d, off + CAP_CFG_TYPE)) {
		case CFG_COMMON:
			if (vp->common == NULL)
				vp->common = cap_map(d, off, C_LEN);
			break;
		case CFG_NOTIFY:
			if (vp->notify == NULL) {
				vp->notify = cap_map(d, off, 2);
				vp->notify_mult =
				    pci_read32(d, off + CAP_NOTIFY_MULT);
				vp->notify_len =
				    pci_read32(d, off + CAP_LENGTH);
			}
			break;
		case CFG_ISR:
			if (vp->isr == NULL)
				vp->isr = cap_map(d, off, 1);
			break;
		case CFG_DEVICE:
			if (vp->devcfg == NULL)
				vp->devcfg = cap_map(d, off, 8);
			break;
		}
	}
	if (vp->common == NULL || vp->notify == NULL || vp->isr == NULL ||
	    vp->devcfg == NULL || vp->notify_mult > 4096)
		return -ENODEV;
	vp->modern = true;
	return 0;
}

int
vp_init(struct virtio_pci *vp, struct pci_dev *pdev, bool force_legacy)
{
	vp->pdev = pdev;
	if (!force_legacy && modern_init(vp, pdev) == 0)
		return 0;
	vp->common = vp->notify = vp->isr = vp->devcfg = NULL;
	if (pdev->bar[0].kind != PCI_BAR_KIND_IO || pdev->bar[0].size < 0x20)
		return -ENODEV;
	vp->modern = false;
	vp->io = (uint16_t)pdev->bar[0].base;
	return 0;
}

void
vp_reset(struct virtio_pci *vp)
{
	/* Writing 0 resets; reading back until 0 says it is done
	 * (sec. 4.1.4.3.2). */
	if (vp->modern) {
		w8(vp->common, C_STATUS, 0);
		for (int i = 0; i < 1000 && r8(vp->common, C_STATUS) != 0; i++)
			cpu_relax();
	} else {
		outb(vp->io + L_STATUS, 0);
		(void)inb(vp->io + L_STATUS);
	}
}

uint8_t
vp_get_status(struct virtio_pci *vp)
{
	return vp->modern ? r8(vp->common, C_STATUS) : inb(vp->io + L_STATUS);
}

void
vp_add_status(struct virtio_pci *vp, uint8_t bits)
{
	uint8_t s = vp_get_status(vp) | bits;

	if (vp->modern)
		w8(vp->common, C_STATUS, s);
	else
		outb(vp->io + L_STATUS, s);
}

uint64_t
vp_device_features(struct virtio_pci *vp)
{
	uint64_t lo, hi;

	if (!vp->modern)
		return inl(vp->io + L_HOST_FEATURES);
	w32(vp->common, C_DFSELECT, 0);
	lo = r32(vp->common, C_DF);
	w32(vp->common, C_DFSELECT, 1);
	hi = r32(vp->common, C_DF);
	return hi << 32 | lo;
}

int
vp_set_features(struct virtio_pci *vp, uint64_t f)
{
	if (!vp->modern) {
		outl(vp->io + L_GUEST_FEATURES, (uint32_t)f);
		return 0;
	}
	w32(vp->common, C_GFSELECT, 0);
	w32(vp->common, C_GF, (uint32_t)f);
	w32(vp->common, C_GFSELECT, 1);
	w32(vp->common, C_GF, (uint32_t)(f >> 32));
	vp_add_status(vp, VIRTIO_STATUS_FEATURES_OK);
	if (!(vp_get_status(vp) & VIRTIO_STATUS_FEATURES_OK))
		return -EIO; /* sec. 3.1.1 step 6 */
	return 0;
}

unsigned
vp_queue_size(struct virtio_pci *vp, unsigned idx)
{
	if (vp->modern) {
		w16(vp->common, C_Q_SELECT, (uint16_t)idx);
		return r16(vp->common, C_Q_SIZE);
	}
	outw(vp->io + L_QUEUE_SEL, (uint16_t)idx);
	return inw(vp->io + L_QUEUE_SIZE);
}

int
vp_queue_setup(struct virtio_pci *vp, unsigned idx, unsigned size,
               uintptr_t desc, uintptr_t avail, uintptr_t used)
{
	uint32_t noff;

	if (idx >= VP_MAX_QUEUES)
		return -EINVAL;
	if (!vp->modern) {
		/* The device derives the rings from the page number with the
		 * legacy alignment (sec. 2.4.2): the caller laid them out so.
		 */
		outw(vp->io + L_QUEUE_SEL, (uint16_t)idx);
		outl(vp->io + L_QUEUE_PFN, (uint32_t)(desc >> 12));
		return 0;
	}
	w16(vp->common, C_Q_SELECT, (uint16_t)idx);
	w16(vp->common, C_Q_SIZE, (uint16_t)size);
	w32(vp->common, C_Q_DESCLO, (uint32_t)desc);
	w32(vp->common, C_Q_DESCHI, 0);
	w32(vp->common, C_Q_AVAILLO, (uint32_t)avail);
	w32(vp->common, C_Q_AVAILHI, 0);
	w32(vp->common, C_Q_USEDLO, (uint32_t)used);
	w32(vp->common, C_Q_USEDHI, 0);
	noff = r16(vp->common, C_Q_NOFF);
	if (noff * vp->notify_mult + 2 > vp->notify_len)
		return -EIO; /* would kick outside the notify structure */
	vp->notify_off[idx] = (uint16_t)noff;
	w16(vp->common, C_Q_ENABLE, 1);
	return 0;
}

void
vp_notify(struct virtio_pci *vp, unsigned idx)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* rings before the kick */
	if (!vp->modern) {
		outw(vp->io + L_QUEUE_NOTIFY, (uint16_t)idx);
		return;
	}
	/* The offset was checked against the structure at setup. */
	w16(vp->notify,
	    (unsigned)(vp->notify_off[idx % VP_MAX_QUEUES] * vp->notify_mult),
	    (uint16_t)idx);
}

uint8_t
vp_isr(struct virtio_pci *vp)
{
	return vp->modern ? r8(vp->isr, 0) : inb(vp->io + L_ISR);
}

uint8_t
vp_config8(struct virtio_pci *vp, unsigned off)
{
	return vp->modern ? r8(vp->devcfg, off) : inb(vp->io + L_CONFIG + off);
}

uint16_t
vp_config16(struct virtio_pci *vp, unsigned off)
{
	return vp->modern ? r16(vp->devcfg, off) : inw(vp->io + L_CONFIG + off);
}
