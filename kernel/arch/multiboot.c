/*
 * Multiboot information parsing (see multiboot.h).  The structure comes
 * from outside the kernel, so every pointer and length in it is checked
 * against the direct map before it is followed.
 */
#include <kernel/arch/multiboot.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>

#define MBI_MEM        0x001
#define MBI_CMDLINE    0x004
#define MBI_MODS       0x008
#define MBI_MMAP       0x040
#define MBI_LOADER     0x200
#define MMAP_AVAILABLE 1

struct mbi {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
} __attribute__((packed));

struct mb_module {
	uint32_t start, end, string, reserved;
} __attribute__((packed));

struct mb_mmap {
	uint32_t size;
	uint64_t base, len;
	uint32_t type;
} __attribute__((packed));

struct boot_info boot_info;

/* Is [pa, pa+len) inside the direct map? */
static int
phys_ok(uint32_t pa, uint32_t len)
{
	return pa < DIRECT_MAP_SIZE && len <= DIRECT_MAP_SIZE - pa;
}

/* Copy the string at pa; false if it did not fit (dst is cut). */
static bool
copy_string(char *dst, size_t size, uint32_t pa)
{
	dst[0] = '\0';
	if (!phys_ok(pa, 1))
		return true;
	size_t max = DIRECT_MAP_SIZE - pa;
	const char *s = P2V(pa);
	size_t n = strnlen(s, max < size - 1 ? max : size - 1);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return n == max || s[n] == '\0';
}

static void
add_module(const struct mb_module *m)
{
	struct boot_image *b;
	char cmd[128];
	const char *base, *sp;

	if (boot_info.nimages == MAX_BOOT_IMAGES) {
		pr_err("multiboot: more than %d modules, ignoring the rest "
		       "(pack them into one cpio archive)\n",
		       MAX_BOOT_IMAGES);
		return;
	}
	if (m->end < m->start || !phys_ok(m->start, m->end - m->start)) {
		pr_err("multiboot: module at %08x-%08x outside RAM, ignored\n",
		       m->start, m->end);
		return;
	}
	copy_string(cmd, sizeof(cmd), m->string);
	/* QEMU passes the path, GRUB whatever follows the file name: use
	 * the basename of the first word. */
	sp = strchr(cmd, ' ');
	if (sp != NULL)
		cmd[sp - cmd] = '\0';
	base = strrchr(cmd, '/');
	base = base != NULL ? base + 1 : cmd;
	b = &boot_info.images[boot_info.nimages++];
	strlcpy(b->name, *base != '\0' ? base : "unnamed", sizeof(b->name));
	b->start = m->start;
	b->end = m->end;
}

static void
add_ram(uint64_t base, uint64_t len)
{
	uint64_t end = base + len;

	if (len == 0 || end < base)
		return;
	if (end > DIRECT_MAP_SIZE) {
		boot_info.ram_ignored +=
		    end - (base > DIRECT_MAP_SIZE ? base : DIRECT_MAP_SIZE);
		if (base >= DIRECT_MAP_SIZE)
			return;
		end = DIRECT_MAP_SIZE;
	}
	if (boot_info.nram == MAX_MEM_REGIONS)
		return;
	boot_info.ram[boot_info.nram].base = base;
	boot_info.ram[boot_info.nram].len = end - base;
	boot_info.nram++;
	if (end > boot_info.ram_top)
		boot_info.ram_top = (uintptr_t)end;
}

int
multiboot_parse(uint32_t magic, uint32_t mbi_phys)
{
	const struct mbi *mbi;

	if (magic != MULTIBOOT_BOOTLOADER_MAGIC) {
		pr_err("multiboot: bad magic %08x: not loaded by a multiboot "
		       "loader\n",
		       magic);
		return -EINVAL;
	}
	if (!phys_ok(mbi_phys, sizeof(*mbi))) {
		pr_err("multiboot: info block at %08x outside RAM\n", mbi_phys);
		return -EINVAL;
	}
	mbi = P2V(mbi_phys);
	if (mbi->flags & MBI_CMDLINE)
		if (!copy_string(boot_info.cmdline, sizeof(boot_info.cmdline),
		                 mbi->cmdline))
			pr_err("multiboot: command line longer than %u bytes, "
			       "cut\n",
			       (unsigned)sizeof(boot_info.cmdline) - 1);
	if (mbi->flags & MBI_LOADER)
		copy_string(boot_info.loader, sizeof(boot_info.loader),
		            mbi->boot_loader_name);
	if ((mbi->flags & MBI_MMAP) &&
	    phys_ok(mbi->mmap_addr, mbi->mmap_length)) {
		uint32_t off = 0;
		while (off + sizeof(struct mb_mmap) <= mbi->mmap_length) {
			const struct mb_mmap *e = P2V(mbi->mmap_addr + off);
			if (e->type == MMAP_AVAILABLE)
				add_ram(e->base, e->len);
			if (e->size < 20)
				break; /* malformed: would loop or misparse */
			off += e->size + 4;
		}
	} else if (mbi->flags & MBI_MEM) {
		add_ram(0, (uint64_t)mbi->mem_lower * 1024);
		add_ram(1u << 20, (uint64_t)mbi->mem_upper * 1024);
	}
	if (boot_info.nram == 0) {
		pr_err("multiboot: no usable memory map\n");
		return -EINVAL;
	}
	if ((mbi->flags & MBI_MODS) && mbi->mods_count > 0) {
		uint32_t n = mbi->mods_count;
		if (n > 1024 ||
		    !phys_ok(mbi->mods_addr, n * sizeof(struct mb_module))) {
			pr_err("multiboot: module list at %08x (%u entries) "
			       "invalid, ignored\n",
			       mbi->mods_addr, n);
		} else {
			const struct mb_module *m = P2V(mbi->mods_addr);
			for (uint32_t i = 0; i < n; i++)
				add_module(&m[i]);
		}
	}
	return 0;
}
