/*
 * lspci: every PCI function found at boot, with its class, BARs, interrupt
 * line and the driver (and module) bound to it.
 */
#include <drivers/pci.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/lib/string.h>

static void
format_size(char *buf, size_t n, uint32_t size)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		snprintf(buf, n, "%uM", (unsigned)(size >> 20));
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, n, "%uK", (unsigned)(size >> 10));
	else
		snprintf(buf, n, "%u", (unsigned)size);
}

static void
print_dev(struct pci_dev *d, bool verbose)
{
	struct pci_driver *drv;
	char irq[8] = "-", sz[12];

	if (d->irq >= 0)
		snprintf(irq, sizeof(irq), "%d", d->irq);
	/* The driver lives in its module: read it under rcu_read_lock, so
	 * an rmmod racing with us cannot unmap it in between (the module
	 * unloader waits for a grace period). */
	rcu_read_lock();
	drv = __atomic_load_n(&d->driver, __ATOMIC_ACQUIRE);
	kprintf("%s %04x:%04x class %02x%02x irq %-3s driver %s", d->name,
	        d->vendor, d->device, d->class, d->subclass, irq,
	        drv != NULL ? drv->name : "-");
	if (drv != NULL)
		kprintf(" (%s)", module_name(drv->owner));
	rcu_read_unlock();
	kprintf("\n");
	for (int i = 0; i < PCI_NUM_BARS; i++) {
		struct pci_bar *b = &d->bar[i];
		if (b->kind == PCI_BAR_NONE)
			continue;
		format_size(sz, sizeof(sz), b->size);
		kprintf("    BAR%d %s %08x size %s%s%s\n", i,
		        b->kind == PCI_BAR_KIND_IO ? "io " : "mem",
		        (unsigned)b->base, sz, b->is64 ? " 64-bit" : "",
		        b->prefetch ? " prefetchable" : "");
	}
	if (verbose)
		kprintf("    subsystem %04x:%04x rev %02x progif %02x pin %c\n",
		        d->subsys_vendor, d->subsys_device, d->revision,
		        d->progif, d->irq_pin ? 'A' + d->irq_pin - 1 : '-');
}

static int
cmd_lspci(int argc, char **argv)
{
	struct pci_dev *d;
	struct args a;
	bool verbose;

	if (args_parse(&a, "lspci", argc, argv, "v", 0, 0) < 0)
		return -EINVAL;
	verbose = args_has(&a, 'v');
	for (int i = 0; (d = pci_dev_at(i)) != NULL; i++)
		print_dev(d, verbose);
	return 0;
}
COMMAND(lspci, "lspci [-v]",
        "PCI functions: vendor:device, class, IRQ, bound driver, BARs",
        cmd_lspci);
