/*
 * Suite "seqcount": sequence counts (kernel/locking/seqcount.h).
 *
 * A read with no write in between needs no retry; a write between the
 * begin and the check makes the reader retry.  Then a writer on another
 * CPU rewrites a three-word record whose words must agree (b == ~a,
 * c == a * 3), leaving a gap between the stores, while this CPU reads it
 * through the count, with a gap between its loads too: no accepted
 * read may mix two writes, and the readers must have been made to retry
 * (the two CPUs really overlapped).  Without the retry, the readers
 * accept torn records.  On a host busier than it has cores the two
 * vCPUs run at the same moment only now and then (245,904 reads and
 * 254,825 writes in 5 s without one overlap, during make test beside
 * make stress), so the first overlap is awaited far longer than the
 * few hundred a quiet host gives in no time.
 */
#include <kernel/debug/ktest.h>
#include <kernel/ktest/ktest_util.h>
#include <kernel/locking/seqcount.h>
#include <kernel/locking/spinlock.h>
#include <kernel/arch/x86.h>

static void
retry_only_after_a_write(struct ktest *t)
{
	static DEFINE_SPINLOCK(lock);
	seqcount_t s = {0};
	unsigned begin;
	uint32_t f;

	begin = read_seqbegin(&s);
	KEXPECT_TRUE(t, !read_seqretry(&s, begin));
	f = spin_lock_irqsave(&lock);
	write_seqbegin(&s, &lock);
	write_seqend(&s, &lock);
	spin_unlock_irqrestore(&lock, f);
	KEXPECT_TRUE(t, read_seqretry(&s, begin));
	begin = read_seqbegin(&s);
	KEXPECT_TRUE(t, !read_seqretry(&s, begin));
}

struct record {
	spinlock_t lock;
	seqcount_t seq;
	volatile uint32_t a, b, c;
	volatile int stop;
	volatile unsigned writes;
};

static void
gap(void)
{
	for (int i = 0; i < 8; i++)
		cpu_relax();
}

static int
writer(void *arg)
{
	struct record *r = arg;
	uint32_t v = 1;

	while (!READ_ONCE(r->stop)) {
		uint32_t f = spin_lock_irqsave(&r->lock);
		write_seqbegin(&r->seq, &r->lock);
		r->a = v;
		gap();
		r->b = ~v;
		gap();
		r->c = v * 3;
		write_seqend(&r->seq, &r->lock);
		spin_unlock_irqrestore(&r->lock, f);
		r->writes = r->writes + 1;
		v++;
	}
	kt_shared_put(r);
	return 0;
}

/* The first overlap of reader and writer, on a host too busy to run
 * both vCPUs at once for long. */
#define FIRST_OVERLAP_MS 25000 /* under the harness's 30 s for a line */

static void
readers_never_see_half_a_write(struct ktest *t)
{
	struct record *r;
	struct kt_async *w;
	unsigned torn = 0, retries = 0, reads = 0;
	uint64_t until, first_until;
	int other = kt_other_cpu();

	if (other < 0) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	r = kt_shared_alloc(sizeof(*r), 2); /* this case, the writer */
	KASSERT_TRUE(t, r != NULL);
	spin_init(&r->lock, "ktest-seq");
	r->b = ~0u;
	w = kt_async_start_on("kt-seqwriter", writer, r, other);
	if (w == NULL) {
		kt_shared_put(r);
		kt_shared_put(r);
		KASSERT_TRUE(t, w != NULL);
	}
	/* Until the readers were sent back a few hundred times (the CPUs
	 * overlapped), within a generous bound for a loaded host, and at
	 * least once within a far longer one. */
	until = now_ms() + KT_SOON_MS;
	first_until = now_ms() + FIRST_OVERLAP_MS;
	while (retries < 500 &&
	       (now_ms() < until || (retries == 0 && now_ms() < first_until))) {
		uint32_t a, b, c;
		unsigned seq;
		bool again = false;

		do {
			if (again)
				retries++;
			seq = read_seqbegin(&r->seq);
			a = READ_ONCE(r->a);
			gap();
			b = READ_ONCE(r->b);
			gap();
			c = READ_ONCE(r->c);
			again = true;
		} while (read_seqretry(&r->seq, seq));
		reads++;
		torn += b != ~a || c != a * 3;
	}
	WRITE_ONCE(r->stop, 1);
	KEXPECT_TRUE(t, kt_poll(READ_ONCE(w->done), KT_SOON_MS));
	kt_shared_put(w);
	KEXPECT_MSG(t, torn == 0, "%u of %u reads mixed two writes", torn,
	            reads);
	KEXPECT_MSG(t, retries > 0,
	            "no read overlapped a write in %u reads and %u writes",
	            reads, r->writes);
	kt_shared_put(r);
}

KTEST_SUITE(seqcount, KTEST_CASE(retry_only_after_a_write),
            KTEST_CASE(readers_never_see_half_a_write));
