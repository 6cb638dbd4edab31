/*
 * The tag table (see memtag.h).  Tags are interned once and never removed,
 * so an index stays valid forever and the hot path is a pointer compare.
 */
#include <kernel/memtag.h>
#include <kernel/spinlock.h>
#include <kernel/string.h>
#include <kernel/x86.h>

static struct memtag tags[MAX_MEMTAGS] = {{.name = "other"}};
static int ntags = 1;
static DEFINE_SPINLOCK(memtag_lock);

int
memtag_index(const char *name)
{
	int i, n = READ_ONCE(ntags);
	uint32_t f;

	for (i = 0; i < n; i++)
		if (tags[i].name == name)
			return i;
	f = spin_lock_irqsave(&memtag_lock);
	for (i = 0; i < ntags; i++)
		if (strcmp(tags[i].name, name) == 0)
			break;
	if (i == ntags) {
		if (ntags < MAX_MEMTAGS) {
			tags[ntags].name = name;
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
