/*
 * Tracked references (ref_tracker.h): the holder lists, the checks at
 * release, the quarantine of released trackers and the holders' report.
 */
#include <kernel/locking/ref_tracker.h>
#include <kernel/debug/ksyms.h>
#include <kernel/locking/lockorder.h>
#include <kernel/console/printk.h>
#include <kernel/debug/stackdepot.h>
#include <kernel/lib/string.h>

unsigned ref_tracker_double_releases, ref_tracker_bad_releases;

/* The last releases, by tracker address: a ring claimed with an atomic
 * add; the address is stored last, so a reader that finds it sees the
 * rest of the entry unless REF_QUARANTINE releases overtook it since. */
static struct {
	const struct ref_tracker *volatile t;
	/* copies: the object and a module's tag string may be gone when
	 * the entry is read */
	char tag[16], name[16];
	uint32_t hold_stack, put_stack;
} quarantine[REF_QUARANTINE];
static unsigned quarantine_next;

void
ref_tracker_dir_init(struct ref_tracker_dir *d, int level, const char *what,
                     const char *name, const char *lockname)
{
	spin_init_rank(&d->lock, lockname, LOCK_RANK_TRACK);
	INIT_LIST_HEAD(&d->list);
	d->untracked = 0;
	d->level = (uint8_t)level;
	d->what = what;
	d->name = name;
}

static void
quarantine_add(const struct ref_tracker_dir *d, const struct ref_tracker *t)
{
	unsigned i = __atomic_fetch_add(&quarantine_next, 1, __ATOMIC_RELAXED) %
	             REF_QUARANTINE;

	quarantine[i].t = NULL;
	strlcpy(quarantine[i].tag, t->tag, sizeof(quarantine[i].tag));
	strlcpy(quarantine[i].name, d->name, sizeof(quarantine[i].name));
	quarantine[i].hold_stack = t->hold_stack;
	quarantine[i].put_stack = t->put_stack;
	__atomic_store_n(&quarantine[i].t, t, __ATOMIC_RELEASE);
}

/* The newest quarantine entry of t, or -1. */
static int
quarantine_find(const struct ref_tracker *t)
{
	unsigned next = __atomic_load_n(&quarantine_next, __ATOMIC_ACQUIRE);

	for (unsigned k = 1; k <= REF_QUARANTINE && k <= next; k++) {
		unsigned i = (next - k) % REF_QUARANTINE;

		if (__atomic_load_n(&quarantine[i].t, __ATOMIC_ACQUIRE) == t)
			return (int)i;
	}
	return -1;
}

bool
ref_tracker_quarantined(const struct ref_tracker *t, uint32_t *hold,
                        uint32_t *put)
{
	int q = quarantine_find(t);

	if (q < 0)
		return false;
	*hold = quarantine[q].hold_stack;
	*put = quarantine[q].put_stack;
	return true;
}

/* A release t does not allow, with what is known of it; to the console
 * even from a thread whose output is captured. */
static void
report_bad_release(struct ref_tracker_dir *d, struct ref_tracker *t,
                   uintptr_t caller, uintptr_t frame)
{
	struct out_capture *c = out_capture_suspend();
	int q;

	if (t->state == REF_TRACKER_RELEASED) {
		__atomic_add_fetch(&ref_tracker_double_releases, 1,
		                   __ATOMIC_RELAXED);
		pr_err("%s: %s: double release of a '%s' reference (tracker "
		       "%p); the count is left alone\n",
		       d->what, d->name, t->tag, (void *)t);
		kprintf("  taken at:\n");
		stack_print(t->hold_stack, "    ");
		kprintf("  released at:\n");
		stack_print(t->put_stack, "    ");
	} else {
		__atomic_add_fetch(&ref_tracker_bad_releases, 1,
		                   __ATOMIC_RELAXED);
		q = quarantine_find(t);
		pr_err("%s: %s: release through tracker %p, which holds no "
		       "reference (%s); the count is left alone\n",
		       d->what, d->name, (void *)t,
		       q >= 0 ? "released before and its memory reused: a "
		                "put after free"
		              : "never taken, or released long ago");
		if (q >= 0) {
			kprintf("  a '%s' reference on %s, taken at:\n",
			        quarantine[q].tag, quarantine[q].name);
			stack_print(quarantine[q].hold_stack, "    ");
			kprintf("  released at:\n");
			stack_print(quarantine[q].put_stack, "    ");
		}
	}
	kprintf(t->state == REF_TRACKER_RELEASED ? "  released again at:\n"
	                                         : "  this release at:\n");
	stack_print(stack_save_from(caller, frame), "    ");
	out_capture_resume(c);
}

void
ref_tracker_add_slow(struct ref_tracker_dir *d, struct ref_tracker *t,
                     const char *tag, uintptr_t caller, uintptr_t frame)
{
	uint32_t f;

	ref_tracker_stamp(d, t, tag, caller, frame);
	f = spin_lock_irqsave(&d->lock);
	list_add_tail(&t->link, &d->list);
	spin_unlock_irqrestore(&d->lock, f);
}

bool
ref_tracker_del_slow(struct ref_tracker_dir *d, struct ref_tracker *t,
                     uintptr_t caller, uintptr_t frame)
{
	uint32_t f;

	if (t->state != REF_TRACKER_HELD) {
		report_bad_release(d, t, caller, frame);
		return false;
	}
	if (t->link.next != NULL) {
		f = spin_lock_irqsave(&d->lock);
		list_del_init(&t->link);
		spin_unlock_irqrestore(&d->lock, f);
	}
	t->link.next = NULL;
	t->put_stack = d->level > 1 ? stack_save_from(caller, frame) : 0;
	t->state = REF_TRACKER_RELEASED;
	if (d->level > 1)
		quarantine_add(d, t);
	return true;
}

uint32_t
ref_tracker_site_signature(const char *tag, uintptr_t caller)
{
	return stack_signature_frames(&caller, 1, tag);
}

#define SHOW_MAX 32

void
ref_tracker_print(struct ref_tracker_dir *d, const char *prefix)
{
	struct {
		uint32_t sig;
		int n;
		const char *tag;
		uintptr_t caller;
		stack_handle_t stack;
	} g[SHOW_MAX] = {0};
	struct ref_tracker *t;
	char where[64], indent[24];
	uint32_t f, sig;
	int shown = 0, ng = 0, i;

	f = spin_lock_irqsave(&d->lock);
	list_for_each_entry(t, &d->list, link) {
		if (shown++ == SHOW_MAX) {
			kprintf("%s...\n", prefix);
			break;
		}
		ksym_format(t->caller, where, sizeof(where));
		kprintf("%s%-10s %s, held %u ms\n", prefix, t->tag, where,
		        (unsigned)clock_stamp_age_ms(t->since));
		sig = t->hold_stack != 0
		          ? stack_signature(t->hold_stack, t->tag)
		          : ref_tracker_site_signature(t->tag, t->caller);
		for (i = 0; i < ng && g[i].sig != sig; i++)
			;
		if (i == ng)
			g[ng++].sig = sig;
		if (g[i].n++ == 0) {
			g[i].tag = t->tag;
			g[i].caller = t->caller;
			g[i].stack = t->hold_stack;
		}
	}
	spin_unlock_irqrestore(&d->lock, f);
	snprintf(indent, sizeof(indent), "%s    ", prefix);
	for (i = 0; i < ng; i++) {
		ksym_format(g[i].caller, where, sizeof(where));
		kprintf("%ssignature %08x: %d holder(s), %s at %s\n", prefix,
		        (unsigned)g[i].sig, g[i].n, g[i].tag, where);
		if (g[i].stack != 0) /* its first frame is the site above */
			stack_print(g[i].stack, indent);
	}
	if (d->untracked != 0)
		kprintf("%suntracked  %d\n", prefix, d->untracked);
}
