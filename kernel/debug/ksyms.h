/*
 * Symbolization of code addresses.  The kernel's own table is generated at
 * build time (scripts/mkksyms.c); loaded modules and the graveyard of
 * unloaded ones register a resolver so backtraces name their functions too.
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>
#include <stddef.h>

struct sym_info {
	const char *name;
	uintptr_t start;
	uint32_t size;
	const char *module; /* NULL for the kernel itself */
	const char *note;   /* e.g. "unloaded 3.2 s ago" */
};

/* Fill *si for addr; returns 0 or -ENOENT. */
int ksym_lookup(uintptr_t addr, struct sym_info *si);
/* Format "name+0xoff/0xsize [module]" into buf. */
void ksym_format(uintptr_t addr, char *buf, size_t size);

/* Hook for the module layer: resolve addresses outside the kernel image. */
typedef int (*ksym_resolver_fn)(uintptr_t addr, struct sym_info *si);
void ksym_set_module_resolver(ksym_resolver_fn fn);

#endif
