/*
 * meminfo: page and kmalloc usage by tag, and a checkpoint/diff pair so a
 * test can prove that an operation left nothing behind:
 *   meminfo -c      remember the current counters
 *   meminfo -d      compare with the checkpoint; prints "meminfo: no
 *                   change since checkpoint" or each tag that changed
 *                   (and fails with EBUSY).
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/mm/memtag.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/mm/kfence.h>
#include <kernel/locking/rcu.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>

static struct {
	int valid;
	int32_t objs[MAX_MEMTAGS], bytes[MAX_MEMTAGS], pages[MAX_MEMTAGS];
} checkpoint;

/* Slab pages are kept for reuse once allocated, so they are reported but
 * not compared: a new slab page is not a leak. */
static bool
compared(const struct memtag *m)
{
	return strcmp(m->name, "kmalloc-slab") != 0;
}

static int
meminfo_diff(void)
{
	int changed = 0;

	if (!checkpoint.valid)
		return cmd_error("meminfo", -ENOENT,
		                 "no checkpoint (meminfo -c takes one)");
	for (int i = 0; i < memtag_count(); i++) {
		struct memtag *m = memtag_at(i);
		if (!compared(m))
			continue;
		if (m->objs != checkpoint.objs[i] ||
		    m->bytes != checkpoint.bytes[i] ||
		    m->pages != checkpoint.pages[i]) {
			kprintf("meminfo: %s: objects %d -> %d, bytes %d -> "
			        "%d, pages %d -> %d\n",
			        m->name, checkpoint.objs[i], m->objs,
			        checkpoint.bytes[i], m->bytes,
			        checkpoint.pages[i], m->pages);
			changed++;
		}
	}
	if (changed)
		return cmd_error("meminfo", -EBUSY,
		                 "%d tag(s) changed since checkpoint", changed);
	kprintf("meminfo: no change since checkpoint\n");
	return 0;
}

static int
cmd_meminfo(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "meminfo", argc, argv, "cd", 0, 0) < 0)
		return -EINVAL;
	if (args_has(&a, 'c') && args_has(&a, 'd'))
		return args_refuse(&a, "-c and -d exclude each other");
	/* Objects freed after a grace period (call_rcu: neighbour entries)
	 * and guarded objects freed where the pages could not go back at
	 * once are part of the books only once they have gone. */
	rcu_barrier();
	kfence_flush();
	if (args_has(&a, 'c')) {
		for (int i = 0; i < MAX_MEMTAGS; i++) {
			struct memtag *m = memtag_at(i);
			checkpoint.objs[i] = m != NULL ? m->objs : 0;
			checkpoint.bytes[i] = m != NULL ? m->bytes : 0;
			checkpoint.pages[i] = m != NULL ? m->pages : 0;
		}
		checkpoint.valid = 1;
		kprintf("meminfo: checkpoint taken\n");
		return 0;
	}
	if (args_has(&a, 'd'))
		return meminfo_diff();
	kprintf("pages: %u total, %u free, %u used (4 KiB each)\n",
	        (unsigned)pages_total(), (unsigned)pages_free(),
	        (unsigned)(pages_total() - pages_free()));
	kprintf("kmalloc slabs: %u pages\n", (unsigned)kmalloc_slab_pages());
	kfence_show();
	kprintf("%-16s %8s %10s %7s %9s %9s\n", "tag", "objects", "bytes",
	        "pages", "allocs", "frees");
	for (int i = 0; i < memtag_count(); i++) {
		struct memtag *m = memtag_at(i);
		if (m->allocs == 0 && m->pages == 0)
			continue;
		kprintf("%-16s %8d %10d %7d %9u %9u\n", m->name, m->objs,
		        m->bytes, m->pages, m->allocs, m->frees);
	}
	return 0;
}
COMMAND(meminfo, "meminfo [-c | -d]",
        "memory by tag; -c checkpoint, -d compare with the checkpoint",
        cmd_meminfo);
