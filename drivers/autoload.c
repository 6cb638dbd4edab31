/*
 * Driver autoload: at boot, for every PCI function no driver has bound,
 * find a boot module whose .modinfo carries a matching
 * "alias=pci:vVVVVVVVVdDDDDDDDD" entry (written next to the driver's ID
 * table with MODULE_INFO(alias, ...)) and insmod it, once.  The boot
 * parameter netautoload=0 turns this off for tests that load drivers by
 * hand.
 *
 * The module files are untrusted: each is validated by the ELF loader's
 * checks (elf_mod_check) before its .modinfo is read, and the strings are
 * bounded by the section.
 */
#include <drivers/pci.h>
#include <kernel/bootparam.h>
#include <kernel/initcall.h>
#include <kernel/bootmod.h>
#include <kernel/kmalloc.h>
#include <kernel/page_alloc.h>
#include <kernel/printk.h>
#include <kernel/shell.h>
#include <kernel/string.h>
#include "modloader/elf_mod.h"

static int netautoload = 1;
BOOTPARAM_BOOL(netautoload, netautoload,
               "load drivers for the PCI devices present at boot", 0);

/* "pci:v00008086d0000100E" for d (upper-case hex, as Linux writes it). */
static void
alias_of(const struct pci_dev *d, char *buf, size_t size)
{
	snprintf(buf, size, "pci:v%08Xd%08X", d->vendor, d->device);
}

/* Does boot module bm declare alias? */
static bool
module_has_alias(const struct boot_module *bm, const char *alias)
{
	struct elf_mod m;
	const char *info;
	uint32_t size, off = 0;
	int idx;

	if (elf_mod_check(&m, P2V(bm->start), bm->end - bm->start, NULL, 0) !=
	    0)
		return false;
	idx = elf_mod_find_section(&m, ".modinfo");
	if (idx < 0)
		return false;
	info = elf_mod_section_data(&m, (unsigned)idx, &size);
	if (info == NULL)
		return false;
	while (off < size) {
		const char *e = info + off;
		size_t n = strnlen(e, size - off);
		if (n == size - off)
			break; /* not terminated inside the section */
		if (strncmp(e, "alias=", 6) == 0 &&
		    strncmp(e + 6, alias, n - 6 + 1) == 0)
			return true;
		off += (uint32_t)n + 1;
	}
	return false;
}

/* tried[0..n) marks the boot modules already loaded for some device. */
static void
load_for(struct pci_dev *d, bool *tried, int n)
{
	char alias[32], line[80], name[64];

	alias_of(d, alias, sizeof(alias));
	for (int i = 0; i < n; i++) {
		const struct boot_module *bm = boot_module_at(i);
		char *dot;

		if (tried[i] || !module_has_alias(bm, alias))
			continue;
		tried[i] = true;
		strlcpy(name, bm->name, sizeof(name));
		dot = strrchr(name, '.');
		if (dot != NULL && strcmp(dot, ".ko") == 0)
			*dot = '\0';
		pr_info("autoload: %s %04x:%04x -> %s\n", d->name, d->vendor,
		        d->device, name);
		snprintf(line, sizeof(line), "insmod %s", name);
		shell_run_line(line);
		return;
	}
}

static void
pci_autoload(void)
{
	int n = boot_module_count();
	struct pci_dev *d;
	bool *tried;

	if (!netautoload)
		return;
	tried = kzalloc((size_t)n + 1, "autoload");
	if (tried == NULL) {
		pr_err("autoload: ENOMEM: no memory to scan %d boot modules\n",
		       n);
		return;
	}
	for (int i = 0; (d = pci_dev_at(i)) != NULL; i++)
		if (d->driver == NULL)
			load_for(d, tried, n);
	kfree(tried);
}
device_initcall(pci_autoload);
