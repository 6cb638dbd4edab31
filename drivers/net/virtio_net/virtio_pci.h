/*
 * The virtio PCI transport, both flavours, behind one small interface
 * (Virtual I/O Device (VIRTIO) 1.0, sec. 4.1):
 *
 *   modern  (sec. 4.1.4)    vendor capabilities point at the common,
 *                           notify, ISR and device config structures in
 *                           a memory BAR; 64 feature bits, FEATURES_OK
 *   legacy  (sec. 4.1.4.8)  one I/O BAR with a fixed register layout;
 *                           32 feature bits, queues given by page number
 *
 * QEMU's transitional virtio-net-pci (1af4:1000) offers both.  Callers
 * lay out each queue the legacy way (descriptors, available ring, the
 * used ring on the next 4096 boundary), which both transports accept.
 */
#ifndef DRIVERS_NET_VIRTIO_PCI_H
#define DRIVERS_NET_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include <drivers/pci.h>

#define VIRTIO_STATUS_ACK         1 /* sec. 2.1 */
#define VIRTIO_STATUS_DRIVER      2
#define VIRTIO_STATUS_DRIVER_OK   4
#define VIRTIO_STATUS_FEATURES_OK 8
#define VIRTIO_STATUS_FAILED      0x80

#define VIRTIO_ISR_QUEUE  1
#define VIRTIO_ISR_CONFIG 2

#define VIRTIO_F_VERSION_1 (1ull << 32) /* sec. 6.1 */

#define VP_MAX_QUEUES 2

struct virtio_pci {
	struct pci_dev *pdev;
	bool modern;
	uint16_t io; /* legacy: the I/O BAR */
	/* modern: the structures the capabilities point at */
	volatile uint8_t *common, *isr, *devcfg, *notify;
	uint32_t notify_mult, notify_len;
	uint16_t notify_off[VP_MAX_QUEUES];
};

/* Find the transport (modern unless force_legacy or absent): 0, or
 * -ENODEV when the device offers neither in a usable form. */
int vp_init(struct virtio_pci *vp, struct pci_dev *pdev, bool force_legacy);
void vp_reset(struct virtio_pci *vp); /* also stops the device's DMA */
void vp_add_status(struct virtio_pci *vp, uint8_t bits);
uint8_t vp_get_status(struct virtio_pci *vp);
uint64_t vp_device_features(struct virtio_pci *vp);
/* Write the driver's features; modern: the FEATURES_OK handshake,
 * -EIO if the device refuses them. */
int vp_set_features(struct virtio_pci *vp, uint64_t features);
unsigned vp_queue_size(struct virtio_pci *vp, unsigned idx);
/* Tell the device where queue idx lives (physical addresses): 0, or
 * -EIO if the device's notify offset for it lies outside its structure. */
int vp_queue_setup(struct virtio_pci *vp, unsigned idx, unsigned size,
                   uintptr_t desc, uintptr_t avail, uintptr_t used);
void vp_notify(struct virtio_pci *vp, unsigned idx);
uint8_t vp_isr(struct virtio_pci *vp); /* reading acknowledges */
uint8_t vp_config8(struct virtio_pci *vp, unsigned off);
uint16_t vp_config16(struct virtio_pci *vp, unsigned off);

#endif
