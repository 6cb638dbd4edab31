/*
 * The boot module table (see bootmod.h): chunks of entries in a list that
 * only grows.  Lock order: bootmod_lock, then the allocator's locks.
 */
#include <kernel/bootmod.h>
#include <kernel/arch/multiboot.h>
#include <kernel/lib/newc.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/locking/spinlock.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/panic.h>

#define PER_CHUNK 64

struct chunk {
	struct chunk *next; /* written once, before the count covers it */
	struct boot_module mods[PER_CHUNK];
};

static DEFINE_SPINLOCK(bootmod_lock);
/* Guarded by bootmod_lock for writers; readers load count with acquire
 * and then only touch entries below it. */
static struct chunk *first, *last;
static int count;

int
boot_module_count(void)
{
	return __atomic_load_n(&count, __ATOMIC_ACQUIRE);
}

const struct boot_module *
boot_module_at(int i)
{
	const struct chunk *c;

	/* The count first: it covers every chunk pointer read after it. */
	if (i < 0 || i >= boot_module_count())
		return NULL;
	c = first;
	for (; i >= PER_CHUNK; i -= PER_CHUNK)
		c = c->next;
	return &c->mods[i];
}

const struct boot_module *
boot_module_find(const char *name)
{
	int n = boot_module_count(); /* before first: see boot_module_at */
	const struct chunk *c = first;

	for (int i = 0; i < n; i++) {
		if (i > 0 && i % PER_CHUNK == 0)
			c = c->next;
		if (strcmp(c->mods[i % PER_CHUNK].name, name) == 0)
			return &c->mods[i % PER_CHUNK];
	}
	return NULL;
}

int
boot_module_add(const char *name, uintptr_t start, uintptr_t end)
{
	struct boot_module *bm;
	uint32_t fl;
	int r = 0;

	if (name[0] == '\0' || strlen(name) >= BOOT_MODULE_NAME_MAX ||
	    strchr(name, '/') != NULL || end < start)
		return -EINVAL;
	fl = spin_lock_irqsave(&bootmod_lock);
	if (boot_module_find(name) != NULL) {
		r = -EEXIST;
		goto out;
	}
	if (count % PER_CHUNK == 0) {
		struct chunk *c = kzalloc(sizeof(*c), "bootmod");
		if (c == NULL) {
			r = -ENOMEM;
			goto out;
		}
		if (last == NULL)
			first = c;
		else
			last->next = c;
		last = c;
	}
	bm = &last->mods[count % PER_CHUNK];
	strlcpy(bm->name, name, sizeof(bm->name));
	bm->start = start;
	bm->end = end;
	/* Readers scan [0, count) without the lock: fill first. */
	__atomic_store_n(&count, count + 1, __ATOMIC_RELEASE);
out:
	spin_unlock_irqrestore(&bootmod_lock, fl);
	return r;
}

static void
add_or_warn(const char *name, uintptr_t start, uintptr_t end, const char *from)
{
	int r = boot_module_add(name, start, end);

	if (r == -EEXIST)
		pr_warn("initrd: %s: %s: a boot module of that name exists "
		        "already, ignored\n",
		        from, name);
	else if (r == -EINVAL)
		pr_warn("initrd: %s: '%s': not a usable module file name "
		        "(1..%d bytes), ignored\n",
		        from, name, BOOT_MODULE_NAME_MAX - 1);
	else if (r != 0)
		pr_err("initrd: %s: %s: %s, ignored\n", from, name,
		       errno_name(r));
}

/* Every regular file of a checked archive; directories are structure,
 * anything else (links, devices) has no place among modules. */
static void
add_archive(const struct boot_image *img)
{
	const void *base = P2V(img->start);
	size_t len = img->end - img->start;
	struct newc_reader r;
	struct newc_entry e;
	char err[96];
	unsigned nfiles;

	if (newc_check(base, len, &nfiles, err, sizeof(err)) != 0) {
		pr_err("initrd: %s: %s; no module taken from it\n", img->name,
		       err);
		return;
	}
	newc_init(&r, base, len);
	while (newc_next(&r, &e, err, sizeof(err)) > 0) {
		uint32_t type = e.mode & NEWC_S_IFMT;
		uintptr_t pa =
		    img->start + ((const char *)e.data - (const char *)base);

		if (type == NEWC_S_IFDIR)
			continue;
		if (type != NEWC_S_IFREG) {
			pr_warn("initrd: %s: %s: not a regular file (mode "
			        "%06o), ignored\n",
			        img->name, e.name, e.mode);
			continue;
		}
		add_or_warn(newc_basename(e.name), pa, pa + e.size, img->name);
	}
	pr_info("initrd: %s: %u file(s)\n", img->name, nfiles);
}

void
boot_modules_init(void)
{
	for (int i = 0; i < boot_info.nimages; i++) {
		const struct boot_image *img = &boot_info.images[i];

		if (newc_is_archive(P2V(img->start), img->end - img->start))
			add_archive(img);
		else
			add_or_warn(img->name, img->start, img->end,
			            "multiboot");
	}
}
