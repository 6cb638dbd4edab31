/*
 * The per-worker op log: the last LT_RING operations of each worker
 * (seed is the run's, index, CPU, op, argument, result, duration),
 * printed once, on the first failure, so the interleaving that led to
 * it can be read back.  Each ring is written only by its worker; the
 * dump reads them racily, which is fine for a post-mortem.
 */
#include "lifetime/lifetime.h"
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>

void
lt_ring_add(struct lt_worker *w, const struct lt_rec *r)
{
	w->ring[w->nrec % LT_RING] = *r;
	w->nrec++;
}

static void
dump_one(struct lt_run *run, struct lt_worker *w)
{
	uint32_t n = w->nrec, first = n > LT_RING ? n - LT_RING : 0;
	char arg[16];

	printk(LOG_ERR, "stress: ring of worker %d (cpu %d): ops %u..%u\n",
	       w->id, w->cpu, (unsigned)first, (unsigned)n);
	for (uint32_t i = first; i < n; i++) {
		const struct lt_rec *r = &w->ring[i % LT_RING];
		const struct lt_op *op = &lt_ops[r->op];
		printk(LOG_ERR,
		       "stress:   seed %u w%d #%u cpu%u %-10s %s -> %s (%u "
		       "us)%s\n",
		       (unsigned)run->p.seed, w->id, (unsigned)r->idx,
		       (unsigned)r->cpu, op->name,
		       lt_arg_name(op, r->arg, arg, sizeof(arg)),
		       r->result == 0 ? "ok" : errno_name(r->result),
		       (unsigned)r->us, r->injected ? " injected" : "");
	}
}

void
lt_ring_dump(struct lt_run *run)
{
	if (__atomic_exchange_n(&run->dumped, 1, __ATOMIC_SEQ_CST) != 0)
		return;
	for (int i = 0; i < run->p.workers; i++)
		dump_one(run, &run->w[i]);
}
