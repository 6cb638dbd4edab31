/*
 * PCI bus: configuration mechanism #1 (PCI 3.0 sec. 3.2.2.3.2), the scan
 * of every bus/slot/function at boot, BAR decoding, and driver binding.
 *
 * Config space is reached through two ports, an address (0xCF8) and a
 * data window (0xCFC); the pair must not be split, so every access holds
 * pci_cfg_lock (an IRQ handler may read config space too).  The device
 * list is built once at boot and never changes; binding state
 * (pdev->driver) changes only under pci_mutex, which also serialises
 * probe and remove.
 *
 * Interrupts: the BIOS (SeaBIOS under QEMU) routes each INTx pin to an ISA
 * line and writes it to the interrupt-line register; that number is what
 * irq_register() takes.  The I/O APIC programs those lines from the ACPI
 * MADT overrides (QEMU: level triggered, active high), and they are
 * shared, so every handler must check its own device's cause register.
 */
#include <drivers/pci.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/fault.h>
#include <kernel/initcall.h>
#include <kernel/arch/irq.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/locking/mutex.h>
#include <kernel/mm/paging.h>
#include <kernel/console/printk.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>

#define CFG_ADDR   0xcf8
#define CFG_DATA   0xcfc
#define CFG_ENABLE 0x80000000u

#define PCI_TAG     "pci"
#define PCI_MAX_MAP (16u << 20)

static DEFINE_SPINLOCK(pci_cfg_lock);
static DEFINE_MUTEX(pci_mutex);     /* binding, probe, remove */
static DEFINE_MUTEX(pci_map_mutex); /* BAR mappings (taken inside probe) */
static LIST_HEAD(pci_devices);
static LIST_HEAD(pci_drivers);
static int nr_pci_devices;

static uint32_t
cfg_addr(unsigned bus, unsigned slot, unsigned func, unsigned off)
{
	return CFG_ENABLE | bus << 16 | slot << 11 | func << 8 | (off & 0xfc);
}

static uint32_t
cfg_read(unsigned bus, unsigned slot, unsigned func, unsigned off)
{
	uint32_t f = spin_lock_irqsave(&pci_cfg_lock), v;

	outl(CFG_ADDR, cfg_addr(bus, slot, func, off));
	v = inl(CFG_DATA);
	spin_unlock_irqrestore(&pci_cfg_lock, f);
	return v;
}

static void
cfg_write(unsigned bus, unsigned slot, unsigned func, unsigned off, uint32_t v)
{
	uint32_t f = spin_lock_irqsave(&pci_cfg_lock);

	outl(CFG_ADDR, cfg_addr(bus, slot, func, off));
	outl(CFG_DATA, v);
	spin_unlock_irqrestore(&pci_cfg_lock, f);
}

uint32_t
pci_read32(struct pci_dev *d, unsigned off)
{
	return cfg_read(d->bus, d->slot, d->func, off);
}

uint16_t
pci_read16(struct pci_dev *d, unsigned off)
{
	return (uint16_t)(pci_read32(d, off) >> ((off & 2) * 8));
}

uint8_t
pci_read8(struct pci_dev *d, unsigned off)
{
	return (uint8_t)(pci_read32(d, off) >> ((off & 3) * 8));
}

void
pci_write32(struct pci_dev *d, unsigned off, uint32_t v)
{
	cfg_write(d->bus, d->slot, d->func, off, v);
}

/* Sub-dword writes are read-modify-write of the dword: config mechanism
 * #1 has byte enables, but one locked dword access is simpler and no
 * register we write has write-1-to-clear bits next to it except STATUS,
 * which we never write. */
static void
cfg_write_part(struct pci_dev *d, unsigned off, uint32_t v, uint32_t mask)
{
	unsigned sh = (off & 3) * 8;
	uint32_t f = spin_lock_irqsave(&pci_cfg_lock), old;

	outl(CFG_ADDR, cfg_addr(d->bus, d->slot, d->func, off));
	old = inl(CFG_DATA);
	if ((off & ~3u) == PCI_COMMAND)
		old &= 0x0000ffff; /* never write 1s back into STATUS */
	outl(CFG_DATA, (old & ~(mask << sh)) | (v & mask) << sh);
	spin_unlock_irqrestore(&pci_cfg_lock, f);
}

void
pci_write16(struct pci_dev *d, unsigned off, uint16_t v)
{
	cfg_write_part(d, off, v, 0xffff);
}

void
pci_write8(struct pci_dev *d, unsigned off, uint8_t v)
{
	cfg_write_part(d, off, v, 0xff);
}

static void
set_command_bits(struct pci_dev *d, uint16_t set, uint16_t clear)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND, (uint16_t)((cmd & ~clear) | set));
}

int
pci_enable_device(struct pci_dev *d)
{
	uint16_t set = 0;

	for (int i = 0; i < PCI_NUM_BARS; i++) {
		if (d->bar[i].kind == PCI_BAR_KIND_IO)
			set |= PCI_CMD_IO;
		else if (d->bar[i].kind == PCI_BAR_KIND_MEM)
			set |= PCI_CMD_MEM;
	}
	set_command_bits(d, set, PCI_CMD_INTX_DISABLE);
	return 0;
}

void
pci_disable_device(struct pci_dev *d)
{
	set_command_bits(d, 0, PCI_CMD_MASTER);
}

void
pci_set_master(struct pci_dev *d)
{
	set_command_bits(d, PCI_CMD_MASTER, 0);
}

void
pci_clear_master(struct pci_dev *d)
{
	set_command_bits(d, 0, PCI_CMD_MASTER);
	/* A config read after the write: the write has reached the device
	 * before we return (PCI 3.0 sec. 3.2.5, writes may be posted). */
	(void)pci_read16(d, PCI_COMMAND);
}

void *
pci_iomap(struct pci_dev *d, int n)
{
	struct pci_bar *b;
	void *v;

	if (n < 0 || n >= PCI_NUM_BARS || fault_should_fail(FAULT_IOMAP))
		return NULL;
	b = &d->bar[n];
	if (b->kind != PCI_BAR_KIND_MEM)
		return NULL;
	/* The vmap area never shrinks: refuse a BAR that would eat it. */
	if (b->size > PCI_MAX_MAP) {
		pr_warn("pci: %s BAR%d: %u KiB is too large to map\n", d->name,
		        n, (unsigned)(b->size >> 10));
		return NULL;
	}
	mutex_lock(&pci_map_mutex);
	if (b->virt == NULL)
		b->virt = ioremap(b->base, b->size);
	v = b->virt;
	mutex_unlock(&pci_map_mutex);
	return v;
}

unsigned
pci_cap_walk(uint8_t (*read8)(void *ctx, unsigned off), void *ctx, unsigned pos,
             uint8_t id, int *ttl)
{
	unsigned off;

	if (pos == 0) {
		/* CAP_LIST is in STATUS's low byte. */
		if (!(read8(ctx, PCI_STATUS) & PCI_STATUS_CAP_LIST))
			return 0;
		off = read8(ctx, PCI_CAP_PTR) & 0xfc;
	} else {
		off = read8(ctx, pos + 1) & 0xfc;
	}
	/* Pointers below 0x40 end the list (they would point into the
	 * header); the low two bits are reserved (sec. 6.7). */
	for (; *ttl > 0 && off >= 0x40; (*ttl)--) {
		if (read8(ctx, off) == id) {
			(*ttl)--;
			return off;
		}
		off = read8(ctx, off + 1) & 0xfc;
	}
	return 0;
}

static uint8_t
dev_read8(void *d, unsigned off)
{
	return pci_read8(d, off);
}

unsigned
pci_next_capability(struct pci_dev *d, unsigned pos, uint8_t id, int *ttl)
{
	return pci_cap_walk(dev_read8, d, pos, id, ttl);
}

/* ---- scanning -------------------------------------------------------- */

/* Size a BAR by writing all ones (PCI 3.0 sec. 6.2.5.1) with decoding off,
 * so the device never answers at the probe address.  Returns how many BAR
 * slots it used (2 for a 64-bit memory BAR). */
static int
decode_bar(struct pci_dev *d, int i)
{
	unsigned off = PCI_BAR0 + 4 * (unsigned)i;
	uint32_t orig = pci_read32(d, off), mask, hi = 0;
	struct pci_bar *b = &d->bar[i];
	int used = 1;

	pci_write32(d, off, 0xffffffff);
	mask = pci_read32(d, off);
	pci_write32(d, off, orig);
	if (mask == 0 || mask == 0xffffffff)
		return 1;
	if (orig & PCI_BAR_IO) {
		mask &= 0xfffc;
		b->kind = PCI_BAR_KIND_IO;
		b->base = orig & 0xfffc;
	} else {
		if ((orig & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64 && i < 5) {
			hi = pci_read32(d, off + 4);
			b->is64 = true;
			used = 2;
		}
		mask &= 0xfffffff0;
		b->kind = PCI_BAR_KIND_MEM;
		b->base = orig & 0xfffffff0;
		b->prefetch = (orig & PCI_BAR_MEM_PREFETCH) != 0;
	}
	b->size = mask & ~(mask - 1);
	/* Unusable: above 4 GiB (no PAE here), unassigned, or a size that
	 * wraps the address space. */
	if (hi != 0 || b->base == 0 || b->size == 0 ||
	    b->base + b->size - 1 < b->base) {
		pr_warn("pci: %s BAR%d unusable (base %08x%08x size %x)\n",
		        d->name, i, (unsigned)hi, (unsigned)b->base,
		        (unsigned)b->size);
		b->kind = PCI_BAR_NONE;
	}
	return used;
}

static bool
has_bars(struct pci_dev *d)
{
	for (int i = 0; i < PCI_NUM_BARS; i++)
		if (pci_read32(d, PCI_BAR0 + 4 * (unsigned)i) != 0)
			return true;
	return false;
}

static void
scan_function(unsigned bus, unsigned slot, unsigned func)
{
	uint32_t id = cfg_read(bus, slot, func, PCI_VENDOR_ID);
	struct pci_dev *d;
	uint16_t cmd;
	uint8_t line;

	if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
		return;
	d = kzalloc(sizeof(*d), PCI_TAG);
	if (d == NULL) {
		pr_err("pci: out of memory scanning %02x:%02x.%u\n", bus, slot,
		       func);
		return;
	}
	d->bus = (uint8_t)bus;
	d->slot = (uint8_t)slot;
	d->func = (uint8_t)func;
	snprintf(d->name, sizeof(d->name), "%02x:%02x.%u", bus, slot, func);
	d->vendor = (uint16_t)id;
	d->device = (uint16_t)(id >> 16);
	d->revision = pci_read8(d, PCI_REVISION);
	d->progif = pci_read8(d, PCI_CLASS_PROG);
	d->subclass = pci_read8(d, PCI_CLASS_DEVICE);
	d->class = pci_read8(d, PCI_CLASS_DEVICE + 1);
	d->irq = -1;
	if ((pci_read8(d, PCI_HEADER_TYPE) & 0x7f) == 0) {
		d->subsys_vendor = pci_read16(d, PCI_SUBSYS_VENDOR);
		d->subsys_device = pci_read16(d, PCI_SUBSYS_ID);
		/* Bridges (the host bridge, PIIX's ISA bridge) carry the
		 * legacy devices the kernel is using right now: never turn
		 * their decoding off (Linux's mmio_always_on).  Others are
		 * sized with decoding off, and only if the BIOS assigned them
		 * BARs at all. */
		if (d->class != 0x06 && has_bars(d)) {
			cmd = pci_read16(d, PCI_COMMAND);
			pci_write16(d, PCI_COMMAND,
			            cmd & ~(PCI_CMD_IO | PCI_CMD_MEM));
			for (int i = 0; i < PCI_NUM_BARS;)
				i += decode_bar(d, i);
			pci_write16(d, PCI_COMMAND, cmd);
		}
		d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
		line = pci_read8(d, PCI_INTERRUPT_LINE);
		/* 0xff means "not connected" (sec. 6.2.4). */
		if (d->irq_pin >= 1 && d->irq_pin <= 4 && line < NR_IRQS &&
		    line != 0 && line != 2)
			d->irq = line;
	}
	list_add_tail(&d->link, &pci_devices);
	nr_pci_devices++;
}

static bool bus_scanned[256];

/* One bus, then the buses behind its PCI-to-PCI and CardBus bridges
 * (header types 1 and 2; the secondary bus number, PCI-to-PCI Bridge
 * spec 1.2 sec. 3.2.5.4, was assigned by the BIOS).  Each bus once:
 * a misconfigured bridge pointing back cannot loop. */
static void
scan_bus(unsigned bus)
{
	bus_scanned[bus] = true;
	for (unsigned slot = 0; slot < 32; slot++) {
		uint32_t id = cfg_read(bus, slot, 0, PCI_VENDOR_ID);
		unsigned nfunc = 1;

		if ((id & 0xffff) == 0xffff)
			continue;
		if (cfg_read(bus, slot, 0, PCI_HEADER_TYPE) & 0x00800000)
			nfunc = 8; /* multi-function (sec. 6.2.1) */
		for (unsigned f = 0; f < nfunc; f++) {
			uint32_t hdr = cfg_read(bus, slot, f, PCI_HEADER_TYPE);
			unsigned type = (hdr >> 16) & 0x7f, sec;

			if ((cfg_read(bus, slot, f, PCI_VENDOR_ID) & 0xffff) ==
			    0xffff)
				continue;
			scan_function(bus, slot, f);
			if (type != 1 && type != 2)
				continue;
			sec = (cfg_read(bus, slot, f, 0x18) >> 8) & 0xff;
			if (sec != 0 && !bus_scanned[sec])
				scan_bus(sec);
		}
	}
}

static void
pci_init(void)
{
	/* Mechanism #1 is present if the address register holds what we
	 * write into it. */
	outl(CFG_ADDR, CFG_ENABLE);
	if (inl(CFG_ADDR) != CFG_ENABLE) {
		pr_warn("pci: no configuration mechanism #1, no PCI\n");
		return;
	}
	/* From bus 0 down through the bridges (a brute force over all 256
	 * buses was 8192 probes: 8 to 30 ms of every boot under QEMU).
	 * A multi-function host bridge at 00:00 has one host bridge per
	 * function, function N owning bus N. */
	scan_bus(0);
	if (cfg_read(0, 0, 0, PCI_HEADER_TYPE) & 0x00800000)
		for (unsigned f = 1; f < 8; f++)
			if ((cfg_read(0, 0, f, PCI_VENDOR_ID) & 0xffff) !=
			        0xffff &&
			    !bus_scanned[f])
				scan_bus(f);
	pr_info("pci: %d function(s) found\n", nr_pci_devices);
}
bus_initcall(pci_init);

struct pci_dev *
pci_dev_at(int i)
{
	struct pci_dev *d;

	list_for_each_entry(d, &pci_devices, link)
		if (i-- == 0)
			return d;
	return NULL;
}

/* ---- drivers --------------------------------------------------------- */

const struct pci_device_id *
pci_match_id(const struct pci_device_id *ids, const struct pci_dev *d)
{
	for (; ids->vendor != 0; ids++)
		if ((ids->vendor == PCI_ANY_ID || ids->vendor == d->vendor) &&
		    (ids->device == PCI_ANY_ID || ids->device == d->device))
			return ids;
	return NULL;
}

int
pci_register_driver(struct pci_driver *drv)
{
	struct pci_driver *o;
	struct pci_dev *d;
	int bound = 0;

	if (drv == NULL || drv->name == NULL || drv->id_table == NULL ||
	    drv->probe == NULL || drv->remove == NULL)
		return -EINVAL;
	mutex_lock(&pci_mutex);
	list_for_each_entry(o, &pci_drivers, link) {
		if (o == drv || strcmp(o->name, drv->name) == 0) {
			mutex_unlock(&pci_mutex);
			return -EEXIST;
		}
	}
	list_add_tail(&drv->link, &pci_drivers);
	list_for_each_entry(d, &pci_devices, link) {
		const struct pci_device_id *id;
		int r;

		if (d->driver != NULL)
			continue;
		id = pci_match_id(drv->id_table, d);
		if (id == NULL)
			continue;
		d->driver = drv;
		r = drv->probe(d, id);
		if (r < 0) {
			d->driver = NULL;
			d->driver_data = NULL;
			pr_warn("pci: %s: %s probe failed: %s\n", d->name,
			        drv->name, errno_name(r));
			continue;
		}
		bound++;
	}
	mutex_unlock(&pci_mutex);
	pr_info("pci: driver %s registered, %d device(s) bound\n", drv->name,
	        bound);
	return 0;
}

void
pci_unregister_driver(struct pci_driver *drv)
{
	struct pci_dev *d;

	mutex_lock(&pci_mutex);
	list_for_each_entry(d, &pci_devices, link) {
		if (d->driver != drv)
			continue;
		drv->remove(d);
		d->driver = NULL;
		d->driver_data = NULL;
	}
	list_del_init(&drv->link);
	mutex_unlock(&pci_mutex);
}

EXPORT_SYMBOL(pci_read8);
EXPORT_SYMBOL(pci_read16);
EXPORT_SYMBOL(pci_read32);
EXPORT_SYMBOL(pci_write8);
EXPORT_SYMBOL(pci_write16);
EXPORT_SYMBOL(pci_write32);
EXPORT_SYMBOL(pci_enable_device);
EXPORT_SYMBOL(pci_disable_device);
EXPORT_SYMBOL(pci_set_master);
EXPORT_SYMBOL(pci_clear_master);
EXPORT_SYMBOL(pci_iomap);
EXPORT_SYMBOL(pci_next_capability);
EXPORT_SYMBOL(pci_register_driver);
EXPORT_SYMBOL(pci_unregister_driver);

/* What PCI drivers need from the core and nobody else exports: their
 * interrupt line, and physically contiguous pages for DMA. */
#include <kernel/mm/page_alloc.h>
EXPORT_SYMBOL(irq_register);
EXPORT_SYMBOL(irq_unregister);
EXPORT_SYMBOL(alloc_pages);
EXPORT_SYMBOL(free_pages);
