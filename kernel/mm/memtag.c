/*
 * The tag table (see memtag.h).  Tags are interned once and never removed,
 * so an index stays valid forever and the hot path is a pointer compare.
 * Names are copied: a tag may come from a module, whose strings are
 * unmapped when it is unloaded, while its counters stay in the table.
 * Only names in the kernel image are remembered for the pointer compare,
 * and a small direct-mapped cache from the name's address to its index
 * spares kmalloc the scan of the table: on the packet path the "skb" tag
 * sat dozens of entries deep.  A cache slot is one byte, written and read
 * whole, and a hit is believed only when keys[] agrees, so a stale or
 * racing slot costs a scan, never a wrong tag.
 */
#include <kernel/mm/memtag.h>
#include <kernel/locking/spinlock.h>
#include <kernel/lib/string.h>
#include <kernel/arch/x86.h>
#include <kernel/arch/layout.h>

#define MEMTAG_NAME_MAX 24

static struct memtag tags[MAX_MEMTAGS] = {{.name = "other"}};
static char names[MAX_MEMTAGS][MEMTAG_NAME_MAX];
static const char *keys[MAX_MEMTAGS] = {"other"};
static int ntags = 1;
static uint8_t cache[MEMTAG_CACHE_SLOTS];
static DEFINE_SPINLOCK(memtag_lock);

unsigned
memtag_cache_slot(const char *name)
{
	uintptr_t a = (uintptr_t)name;

	return (unsigned)(a ^ a >> 6) % MEMTAG_CACHE_SLOTS;
}

int
memtag_index(const char *name)
{
	int i, n = READ_ONCE(ntags);
	unsigned slot = memtag_cache_slot(name);
	uint32_t f;

	i = READ_ONCE(cache[slot]);
	if (i < n && READ_ONCE(keys[i]) == name)
		return i;
	for (i = 0; i < n; i++) {
		if (READ_ONCE(keys[i]) == name) {
			WRITE_ONCE(cache[slot], (uint8_t)i);
			return i;
		}
	}
	f = spin_lock_irqsave(&memtag_lock);
	for (i = 0; i < ntags; i++)
		if (strncmp(tags[i].name, name, MEMTAG_NAME_MAX - 1) == 0)
			break;
	if (i == ntags) {
		if (ntags < MAX_MEMTAGS) {
			strlcpy(names[ntags], name, MEMTAG_NAME_MAX);
			tags[ntags].name = names[ntags];
			if ((uintptr_t)name < MODULE_BASE)
				keys[ntags] = name;
			ntags++;
		} else {
			i = 0;
		}
	}
	spin_unlock_irqrestore(&memtag_lock, f);
	return i;
}

struct memtag *
memtag_at(int i)
{
	return i >= 0 && i < ntags ? &tags[i] : NULL;
}

int
memtag_count(void)
{
	return ntags;
}
