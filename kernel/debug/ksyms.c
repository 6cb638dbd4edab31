/*
 * Address-to-symbol lookup over the build-time table (scripts/mkksyms.c)
 * and, for addresses outside the kernel, the module layer's resolver.
 */
#include <kernel/debug/ksyms.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>

extern const uint32_t __ksyms_count;
extern const uint32_t __ksyms_addrs[];
extern const uint32_t __ksyms_offsets[];
extern const char __ksyms_names[];
extern const char _kernel_etext[];

static ksym_resolver_fn module_resolver;

void
ksym_set_module_resolver(ksym_resolver_fn fn)
{
	module_resolver = fn;
}

int
ksym_lookup(uintptr_t addr, struct sym_info *si)
{
	uint32_t lo = 0, hi = __ksyms_count;

	if (__ksyms_count > 0 && addr >= __ksyms_addrs[0] &&
	    addr < (uintptr_t)_kernel_etext) {
		/* Largest symbol address <= addr. */
		while (hi - lo > 1) {
			uint32_t mid = (lo + hi) / 2;
			if (__ksyms_addrs[mid] <= addr)
				lo = mid;
			else
				hi = mid;
		}
		si->name = __ksyms_names + __ksyms_offsets[lo];
		si->start = __ksyms_addrs[lo];
		si->size = (lo + 1 < __ksyms_count ? __ksyms_addrs[lo + 1]
		                                   : (uintptr_t)_kernel_etext) -
		           si->start;
		si->module = NULL;
		si->note = NULL;
		return 0;
	}
	if (module_resolver != NULL)
		return module_resolver(addr, si);
	return -ENOENT;
}

void
ksym_format(uintptr_t addr, char *buf, size_t size)
{
	struct sym_info si;

	if (ksym_lookup(addr, &si) != 0) {
		snprintf(buf, size, "?");
		return;
	}
	if (si.module != NULL)
		snprintf(buf, size, "%s+0x%x/0x%x [%s%s%s]", si.name,
		         (unsigned)(addr - si.start), (unsigned)si.size,
		         si.module, si.note != NULL ? ", " : "",
		         si.note != NULL ? si.note : "");
	else
		snprintf(buf, size, "%s+0x%x/0x%x", si.name,
		         (unsigned)(addr - si.start), (unsigned)si.size);
}
