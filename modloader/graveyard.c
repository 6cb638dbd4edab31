/*
 * The graveyard: what the kernel remembers about recently unloaded
 * modules, so that a late access into one is named instead of being a
 * mystery.  Also the backtrace symbolizer for module addresses.
 *
 * Each unload copies the module's name, address range, unload time and
 * function table into one of GRAVE_SLOTS static slots (oldest reused
 * first).  Static storage, not kmalloc: the books `meminfo -d` compares
 * stay the same however many modules come and go.
 *
 * Fault path rules: the hook and the resolver run inside a fatal
 * exception report, possibly with other CPUs stopped while holding
 * locks, so they take no lock.  A slot is marked invalid while it is
 * rewritten, and valid again (release store) once complete.
 */
#include <kernel/arch/irq.h>
#include <kernel/debug/ksyms.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/arch/trap.h>
#include <kernel/lib/errno.h>
#include "modloader/module_internal.h"

#define GRAVE_SLOTS 16
#define GRAVE_SYMS  160
#define GRAVE_NAMES 2560

struct grave {
	volatile int valid;
	char name[MODULE_NAME_LEN];
	uintptr_t area, area_end, base;
	uint32_t size, text_size;
	uint64_t unloaded_ms;
	uint64_t seq;
	unsigned nsyms;
	struct module_sym syms[GRAVE_SYMS];
	char names[GRAVE_NAMES];
};

static struct grave graves[GRAVE_SLOTS];
static uint64_t grave_seq;
static DEFINE_SPINLOCK(grave_lock);

void
graveyard_add(const struct module *mod)
{
	struct grave *g = NULL;
	size_t used = 0;
	uint32_t f = spin_lock_irqsave(&grave_lock);

	for (int i = 0; i < GRAVE_SLOTS; i++)
		if (g == NULL || !graves[i].valid ||
		    (g->valid && graves[i].seq < g->seq))
			g = &graves[i];
	__atomic_store_n(&g->valid, 0, __ATOMIC_SEQ_CST);
	strlcpy(g->name, mod->name, sizeof(g->name));
	g->area = mod->area;
	g->area_end = mod->area_end;
	g->base = mod->base;
	g->size = mod->size;
	g->text_size = mod->text_size;
	g->unloaded_ms = now_ms();
	g->seq = ++grave_seq;
	g->nsyms = 0;
	/* Keep functions in address order while they fit. */
	for (unsigned i = 0; i < mod->nsymtab && g->nsyms < GRAVE_SYMS; i++) {
		const char *n = mod->symnames + mod->symtab[i].name;
		size_t len = strlen(n) + 1;
		if (used + len > GRAVE_NAMES)
			break;
		memcpy(g->names + used, n, len);
		g->syms[g->nsyms] = mod->symtab[i];
		g->syms[g->nsyms].name = (uint32_t)used;
		g->nsyms++;
		used += len;
	}
	__atomic_store_n(&g->valid, 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&grave_lock, f);
}

/* The newest remembered module whose range held addr. */
static const struct grave *
grave_find(uintptr_t addr)
{
	const struct grave *best = NULL;

	for (int i = 0; i < GRAVE_SLOTS; i++) {
		const struct grave *g = &graves[i];
		if (__atomic_load_n(&g->valid, __ATOMIC_ACQUIRE) &&
		    addr >= g->area && addr < g->area_end &&
		    (best == NULL || g->seq > best->seq))
			best = g;
	}
	return best;
}

/* The function containing addr in a sorted table, or NULL. */
static const struct module_sym *
sym_find(const struct module_sym *v, unsigned n, uintptr_t addr)
{
	unsigned lo = 0, hi = n;

	if (n == 0 || addr < v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		if (v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (v[lo].size != 0 && addr >= v[lo].addr + v[lo].size)
		return NULL;
	return &v[lo];
}

static char note_buf[48];

static void
fill_grave(const struct grave *g, const struct module_sym *s,
           struct sym_info *si)
{
	uint64_t ago = now_ms() - g->unloaded_ms;

	si->name = g->names + s->name;
	si->start = s->addr;
	si->size = s->size;
	si->module = g->name;
	snprintf(note_buf, sizeof(note_buf), "unloaded %u.%u s ago",
	         (unsigned)(ago / 1000), (unsigned)(ago % 1000 / 100));
	si->note = note_buf;
}

static int
module_resolver(uintptr_t addr, struct sym_info *si)
{
	const struct module_sym *s = NULL;
	const struct grave *g;
	struct module *mod;
	int r = -ENOENT;

	if (!area_contains(addr))
		return -ENOENT;
	rcu_read_lock();
	mod = module_by_addr(addr);
	if (mod != NULL && mod->symtab != NULL)
		s = sym_find(mod->symtab, mod->nsymtab, addr);
	if (s != NULL) {
		si->name = mod->symnames + s->name;
		si->start = s->addr;
		si->size = s->size;
		si->module = mod->name;
		si->note = mod->state == MODULE_STATE_LIVE
		               ? NULL
		               : module_state_name(mod->state);
		r = 0;
	}
	rcu_read_unlock();
	if (mod != NULL)
		return r;
	g = grave_find(addr);
	if (g != NULL && (s = sym_find(g->syms, g->nsyms, addr)) != NULL) {
		fill_grave(g, s, si);
		return 0;
	}
	return -ENOENT;
}

/* What part of a module's range addr is in. */
static void
describe_place(uintptr_t addr, uintptr_t area, uintptr_t base, uint32_t size,
               uint32_t text_size, const struct module_sym *s,
               const char *names, char *buf, size_t len)
{
	if (addr < base)
		snprintf(buf, len, "its struct module (+0x%x)",
		         (unsigned)(addr - area));
	else if (s != NULL)
		snprintf(buf, len, "%s+0x%x/0x%x", names + s->name,
		         (unsigned)(addr - s->addr), (unsigned)s->size);
	else
		snprintf(buf, len, "%s +0x%x of the image",
		         addr - base < text_size ? "text"
		         : addr - base < size    ? "data"
		                                 : "guard page",
		         (unsigned)(addr - base));
}

static void
report(const char *what, uintptr_t addr)
{
	const struct grave *g = grave_find(addr);
	char place[96];
	struct module *mod;

	mod = module_by_addr(addr);
	if (mod != NULL) {
		const struct module_sym *s =
		    sym_find(mod->symtab, mod->nsymtab, addr);
		describe_place(addr, mod->area, mod->base, mod->size,
		               mod->text_size, s, mod->symnames, place,
		               sizeof(place));
		if (strcmp(what, "executing") == 0) {
			/* Where the faulting code is, not what it touched. */
			kprintf("  faulting code at %08x in %s module %s: %s\n",
			        (unsigned)addr, module_state_name(mod->state),
			        mod->name, place);
			return;
		}
		kprintf("  module fault: %s at %08x in %s module %s: %s%s\n",
		        what, (unsigned)addr, module_state_name(mod->state),
		        mod->name, place,
		        strcmp(what, "write") == 0 && addr >= mod->base &&
		                addr < mod->base + mod->ro_size
		            ? " (read-only text/rodata)"
		            : "");
		return;
	}
	if (g != NULL) {
		uint64_t ago = now_ms() - g->unloaded_ms;
		describe_place(addr, g->area, g->base, g->size, g->text_size,
		               sym_find(g->syms, g->nsyms, addr), g->names,
		               place, sizeof(place));
		kprintf("  use-after-unload: %s at %08x: %s in module %s, "
		        "unloaded %u.%u s ago\n",
		        what, (unsigned)addr, place, g->name,
		        (unsigned)(ago / 1000), (unsigned)(ago % 1000 / 100));
		return;
	}
	kprintf(
	    "  use-after-unload: %s at %08x in the module area: no live "
	    "module there and none remembered (unloaded long ago, or a wild "
	    "pointer)\n",
	    what, (unsigned)addr);
}

static void
fault_hook(const struct trapframe *tf, uint32_t cr2)
{
	if (tf->vector == 14 && area_contains(cr2)) {
		const char *what = cr2 == tf->eip ? "instruction fetch"
		                   : tf->err & 2  ? "write"
		                                  : "read";
		report(what, cr2);
		if (cr2 != tf->eip && area_contains(tf->eip))
			report("executing", tf->eip);
	} else if (area_contains(tf->eip)) {
		report("executing", tf->eip);
	}
}

void
graveyard_init(void)
{
	ksym_set_module_resolver(module_resolver);
	trap_add_fault_hook(fault_hook);
}
