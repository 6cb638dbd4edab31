/*
 * Driver autoload: at boot, for every PCI function no driver has bound,
 * load the module that declares its alias "pci:vVVVVVVVVdDDDDDDDD" (a
 * MODULE_INFO(alias, ...) next to the driver's ID table).  Which file
 * that is, and loading it, is the module loader's business
 * (modloader/load.h): the same lookup as `insmod pci:v...`.  A module
 * already loaded is not loaded again (its driver saw every device when it
 * registered).  The boot parameter netautoload=0 turns this off for tests
 * that load drivers by hand.
 */
#include <drivers/pci.h>
#include <kernel/bootmod.h>
#include <kernel/bootparam.h>
#include <kernel/lib/errno.h>
#include <kernel/initcall.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include "modloader/load.h"

static int netautoload = 1;
BOOTPARAM_BOOL(netautoload, netautoload,
               "load drivers for the PCI devices present at boot", 0);

/* "pci:v00008086d0000100E" for d (upper-case hex, as Linux writes it). */
static void
alias_of(const struct pci_dev *d, char *buf, size_t size)
{
	snprintf(buf, size, "pci:v%08Xd%08X", d->vendor, d->device);
}

static void
load_for(struct pci_dev *d)
{
	char alias[32], file[BOOT_MODULE_NAME_MAX], name[BOOT_MODULE_NAME_MAX];
	char err[160], *dot;
	int r;

	alias_of(d, alias, sizeof(alias));
	/* No module for it, or its module is loaded: nothing to do. */
	if (module_find_file(alias, file, sizeof(file), err, sizeof(err)) != 0)
		return;
	strlcpy(name, file, sizeof(name));
	dot = strrchr(name, '.');
	if (dot != NULL && strcmp(dot, ".ko") == 0)
		*dot = '\0';
	pr_info("autoload: %s %04x:%04x -> %s\n", d->name, d->vendor, d->device,
	        name);
	r = module_load_by_name(file, 0, NULL, NULL, err, sizeof(err));
	if (r != 0)
		pr_err("autoload: %s: insmod %s: %s: %s\n", d->name, name,
		       errno_name(r), err);
}

static void
pci_autoload(void)
{
	struct pci_dev *d;

	if (!netautoload)
		return;
	for (int i = 0; (d = pci_dev_at(i)) != NULL; i++)
		if (d->driver == NULL)
			load_for(d);
}
device_initcall(pci_autoload);
