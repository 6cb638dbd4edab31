/*
 * PCI: configuration space, the devices found at boot, and the drivers
 * that bind to them (PCI Local Bus Specification 3.0, ch. 6).
 *
 * The bus is scanned once at boot (pci_init); devices never come or go
 * after that.  A driver (usually a loadable module) registers a table of
 * vendor:device IDs and an owner; pci_register_driver() calls its probe
 * for every unbound match, pci_unregister_driver() calls remove for every
 * device it bound.  Rules for drivers:
 *  - BARs are mapped by pci_iomap() once and the mapping is kept by the
 *    core (the vmap area never shrinks), so a driver never unmaps one.
 *  - remove must leave the device quiet: interrupts masked at the device,
 *    DMA stopped (pci_clear_master) before the memory it used is freed.
 *  - Config-space values are what the device says; the core checks them
 *    (BAR sizes, interrupt lines) before handing them to a driver.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <kernel/lib/list.h>

/* Configuration header, type 0 (PCI 3.0 sec. 6.1). */
#define PCI_VENDOR_ID      0x00
#define PCI_DEVICE_ID      0x02
#define PCI_COMMAND        0x04
#define PCI_STATUS         0x06
#define PCI_REVISION       0x08
#define PCI_CLASS_PROG     0x09
#define PCI_CLASS_DEVICE   0x0a
#define PCI_HEADER_TYPE    0x0e
#define PCI_BAR0           0x10
#define PCI_SUBSYS_VENDOR  0x2c
#define PCI_SUBSYS_ID      0x2e
#define PCI_CAP_PTR        0x34
#define PCI_INTERRUPT_LINE 0x3c
#define PCI_INTERRUPT_PIN  0x3d

/* Command register bits (sec. 6.2.2). */
#define PCI_CMD_IO           0x0001
#define PCI_CMD_MEM          0x0002
#define PCI_CMD_MASTER       0x0004
#define PCI_CMD_INTX_DISABLE 0x0400

#define PCI_STATUS_CAP_LIST 0x0010

/* BAR encoding (sec. 6.2.5.1). */
#define PCI_BAR_IO           0x01
#define PCI_BAR_MEM_TYPE     0x06
#define PCI_BAR_MEM_64       0x04
#define PCI_BAR_MEM_PREFETCH 0x08

#define PCI_NUM_BARS 6
#define PCI_ANY_ID   0xffff

enum pci_bar_kind { PCI_BAR_NONE, PCI_BAR_KIND_IO, PCI_BAR_KIND_MEM };

struct pci_bar {
	enum pci_bar_kind kind;
	uint32_t base; /* port or physical address */
	uint32_t size;
	bool prefetch;
	bool is64;
	void *virt; /* memory BARs: the uncached mapping, once made */
};

struct pci_driver;

struct pci_dev {
	struct list_head link;
	uint8_t bus, slot, func;
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint8_t class, subclass, progif, revision;
	uint8_t irq_pin; /* 1..4 = INTA..INTD, 0 none */
	int irq;         /* line number for irq_register, -1 if none */
	struct pci_bar bar[PCI_NUM_BARS];
	struct pci_driver *driver; /* bound driver, NULL if none */
	void *driver_data;
	char name[8]; /* "00:03.0" */
};

struct pci_device_id {
	uint16_t vendor, device; /* PCI_ANY_ID matches anything */
	unsigned long driver_data;
};

struct module;

struct pci_driver {
	const char *name;
	const struct pci_device_id *id_table; /* ends with vendor 0 */
	int (*probe)(struct pci_dev *pdev, const struct pci_device_id *id);
	void (*remove)(struct pci_dev *pdev);
	struct module *owner;
	struct list_head link;
};

uint8_t pci_read8(struct pci_dev *d, unsigned off);
uint16_t pci_read16(struct pci_dev *d, unsigned off);
uint32_t pci_read32(struct pci_dev *d, unsigned off);
void pci_write8(struct pci_dev *d, unsigned off, uint8_t v);
void pci_write16(struct pci_dev *d, unsigned off, uint16_t v);
void pci_write32(struct pci_dev *d, unsigned off, uint32_t v);

/* Turn on I/O and memory decoding for the BARs the device has. */
int pci_enable_device(struct pci_dev *d);
void pci_disable_device(struct pci_dev *d);
void pci_set_master(struct pci_dev *d);
/* Stop the device's DMA: no new bus-master cycles after this returns. */
void pci_clear_master(struct pci_dev *d);
/* A memory BAR's uncached mapping (made on first use, then kept), or
 * NULL if BAR n is not memory or cannot be mapped. */
void *pci_iomap(struct pci_dev *d, int n);
/* The capability list (PCI 3.0 sec. 6.7), the one walk every driver
 * uses: the config-space offset of the next capability id after the one
 * at pos (pos 0: the first), or 0 when there is none.  *ttl, set to
 * PCI_CAP_TTL before the first call, bounds the whole walk, so a device
 * whose list loops (hostile or broken) ends it after 48 entries, all
 * that fit after the 64-byte header. */
#define PCI_CAP_TTL 48
/* The walk over any reader of config space (a test's fake one). */
unsigned pci_cap_walk(uint8_t (*read8)(void *ctx, unsigned off), void *ctx,
                      unsigned pos, uint8_t id, int *ttl);
unsigned pci_next_capability(struct pci_dev *d, unsigned pos, uint8_t id,
                             int *ttl);

/* 0, or -errno: -EINVAL for a malformed driver, -EEXIST if registered. */
int pci_register_driver(struct pci_driver *drv);
void pci_unregister_driver(struct pci_driver *drv);

struct pci_dev *pci_dev_at(int i); /* i from 0 until NULL */
const struct pci_device_id *pci_match_id(const struct pci_device_id *ids,
                                         const struct pci_dev *d);

#endif
