/*
 * tbprof: guest instructions per function, from QEMU's TCG log, per
 * unit of work: how much the stack does per echo beyond the bounce loop,
 * counted rather than timed, so the machine's load cannot move it.
 *
 *   tbprof -s SYMS [-m PREFIX] [-k MIN] [-x VEC]... -u NAME=FUNC...
 *          [-n TOP] LOG
 *
 * LOG is what `qemu -d in_asm,exec,nochain -D LOG` writes (a FIFO
 * works: it is read once, front to back).  in_asm prints each
 * translated block's instructions once, exec a line per block executed
 * (nochain: every execution, not only the first of a chain), so the
 * guest instructions executed at an address are its executions times
 * its length.  SYMS is `nm -n` of the kernel: each block is charged to
 * the text symbol at or below its address (module code and firmware to
 * "[other]").
 *
 * The log is cut into segments at every execution of a function whose
 * name starts with PREFIX (default "cmd_": each console command starts
 * one).  -u NAME=FUNC defines a unit: a segment in which FUNC was
 * entered N >= MIN times (default 10; the first unit that matches wins)
 * is N units of NAME, and its instructions are divided by N.
 *
 * Timer interrupts are left out: a segment also holds the 1 kHz tick
 * and the local APIC timer, per unit of time, and logging slows the
 * guest ~10x, so a slower phase would collect more of them per unit.
 * Interrupt context is followed through the log: a block at a vector's
 * stub (VSTUBS + 16 * vector) enters it, a block with an iret leaves
 * it, a context switch (SWITCH) inside one ends it (the thread switched
 * to is not in it).  What runs inside an excluded vector (-x VEC,
 * default 32 and 0xef: the PIT and the local APIC timer) is counted
 * apart, as "timer".
 *
 * The command that starts a unit's segment is not the unit's work:
 * segments that a command (the same marker) starts without any unit
 * give its mean cost, per function, which is taken out.
 *
 * Output, per unit: the segments, the instructions per unit (and the
 * timer interrupts' apart), the top functions; then, for the first two units,
 * every function's difference per unit, largest first ("tbprof:
 * diff"), and the totals ("tbprof: per-unit").
 *
 * Instructions are not equal under TCG: most become a few host
 * instructions inline, but some run out of line in a helper, or end the
 * translated block: atomics (a lock prefix, xchg), the interrupt flag
 * (pushf, popf, cli, sti: spin_lock_irqsave and its unlock), rdtsc, and
 * port I/O.  Those are counted apart, per unit and per function
 * ("tbprof: slow:"), since a few of them can cost more than a hundred
 * plain instructions.  So is the number of blocks executed per unit,
 * and of those ending in a return or an indirect call or jump
 * ("tbprof: blocks:"): TCG chains a block to the next one when the
 * target is known, but looks an indirect target up at run time, and a
 * target on another page than the jumping block too (QEMU chains only
 * within a page).  Each such lookup costs as much as 10 to 30 register
 * adds (`bench jumps`, docs/bench.md); "tbprof: lookups:"
 * gives them per function (its blocks ending in one, or entered from
 * another page).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_UNITS 4
#define MAX_SEGS  256

struct sym {
	uint32_t addr;
	char *name;
	int marker; /* name starts with the segment prefix */
};

/* The instructions TCG runs out of line, by kind. */
enum slow { SLOW_ATOMIC, SLOW_IRQFLAGS, SLOW_TSC, SLOW_PIO, NSLOW };
/* Counted in the same arrays (slow[]), after them: blocks executed, and
 * those that end in a return or an indirect call or jump, which TCG
 * cannot chain to the next block: each looks its target up in a hash
 * table.  So does a direct jump, call or fall-through to a block on
 * another 4 KiB page than the jumping block starts on (QEMU chains only
 * within a page, since a page's code may be replaced): COUNT_CROSSPAGE,
 * a property of the block pair, counted in account(). */
enum { COUNT_BLOCKS = NSLOW, COUNT_INDIRECT, COUNT_CROSSPAGE, NCOUNT };
/* What is counted per symbol: instructions, slow ones, lookups (a
 * block ending in an indirect jump, or entered from another page). */
enum { BY_INSNS, BY_SLOW, BY_LOOKUPS, NBY };
static const char *const slow_names[NSLOW] = {"atomic", "irq-flags", "rdtsc",
                                              "port-io"};

struct unit {
	const char *name, *func;
	int fsym; /* index of func in syms, or -1 */
	uint64_t count, insns, timer, slow[NCOUNT];
	int segs;
	uint64_t *by_sym[NBY]; /* per symbol, over its segments */
	uint64_t *marker_segs; /* its segments, by marker symbol */
};

static uint64_t min_count = 10;

/* Segments with no unit, per marker: what the command itself costs, to
 * take out of the unit segments it starts (bench-boot types `cpus`
 * around every phase; its work is not the unit's). */
struct baseline {
	uint64_t segs, insns, slow[NCOUNT], *by_sym[NBY];
};
static struct baseline *baselines; /* by marker symbol */

/* Interrupt context, from the log. */
#define MAX_NEST 8
static uint32_t stubs_addr, switch_addr;
static int excluded[256], nest[MAX_NEST], depth;
static uint64_t seg_timer;
/* The last block accounted outside timer interrupts: its start, and
 * whether it ended in an indirect jump (already counted). */
static uint32_t prev_addr;
static int prev_indirect = 1;

/* Blocks seen: address -> instruction count (open addressing). */
struct block {
	uint32_t addr;
	uint32_t ninsn;
	/* Of each kind in the block; COUNT_BLOCKS and COUNT_CROSSPAGE stay
	 * 0 (account() counts them per execution). */
	uint16_t slow[NCOUNT];
	uint64_t execs; /* in the current segment, outside timer interrupts */
	uint64_t xpage; /* of them, entered from a block on another page */
	int used;
	int iret; /* ends with an iret: leaves an interrupt */
};

static struct sym *syms;
static size_t nsyms;
static struct block *blocks;
static size_t blocks_cap, nblocks;

static void
die(const char *msg)
{
	fprintf(stderr, "tbprof: %s\n", msg);
	exit(2);
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		die("out of memory");
	return p;
}

static void
load_syms(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512], name[400], type;
	unsigned long addr;
	size_t cap = 0;

	if (f == NULL) {
		fprintf(stderr, "tbprof: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx %c %399s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 1024;
			syms = realloc(syms, cap * sizeof(*syms));
			if (syms == NULL)
				die("out of memory");
		}
		syms[nsyms].addr = (uint32_t)addr;
		syms[nsyms].name = strdup(name);
		syms[nsyms].marker = strncmp(name, prefix, strlen(prefix)) == 0;
		if (syms[nsyms].name == NULL)
			die("out of memory");
		if (nsyms > 0 && syms[nsyms].addr < syms[nsyms - 1].addr)
			die("symbols not sorted by address (use nm -n)");
		nsyms++;
	}
	fclose(f);
	if (nsyms == 0)
		die("no text symbols in the symbol file");
}

/* The symbol at or below addr; nsyms ("[other]") past the text's end
 * (the last symbol is taken as its end marker) or below its start. */
static size_t
sym_of(uint32_t addr)
{
	size_t lo = 0, hi = nsyms;

	if (addr < syms[0].addr || addr >= syms[nsyms - 1].addr)
		return nsyms;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int
sym_exact(const char *name)
{
	for (size_t i = 0; i < nsyms; i++)
		if (strcmp(syms[i].name, name) == 0)
			return (int)i;
	return -1;
}

static struct block *
block_find(uint32_t addr, int create)
{
	size_t h;

	if ((nblocks + 1) * 2 > blocks_cap) {
		struct block *old = blocks;
		size_t oldcap = blocks_cap;

		blocks_cap = blocks_cap ? 2 * blocks_cap : 65536;
		blocks = xcalloc(blocks_cap, sizeof(*blocks));
		nblocks = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				*block_find(old[i].addr, 1) = old[i];
		free(old);
	}
	h = (addr * 2654435761u) & (blocks_cap - 1);
	while (blocks[h].used && blocks[h].addr != addr)
		h = (h + 1) & (blocks_cap - 1);
	if (!blocks[h].used) {
		if (!create)
			return NULL;
		blocks[h].used = 1;
		blocks[h].addr = addr;
		blocks[h].ninsn = 1; /* until in_asm says */
		nblocks++;
	}
	return &blocks[h];
}

static struct unit units[MAX_UNITS];
static int nunits;
static uint64_t seg_insns, seg_slow[NCOUNT];
static int seg_marker = -1, nsegs;

/* Close the segment: find its unit, add its blocks to it, reset. */
static uint64_t
execs_of(int sym)
{
	struct block *b = sym >= 0 ? block_find(syms[sym].addr, 0) : NULL;

	return b != NULL ? b->execs : 0;
}

static bool
had_unit_event(void)
{
	for (int i = 0; i < nunits; i++)
		if (execs_of(units[i].fsym) != 0)
			return true;
	return false;
}

static void
end_segment(void)
{
	struct unit *u = NULL;
	struct baseline *bl;
	uint64_t n = 0, **into = NULL;

	for (int i = 0; i < nunits && u == NULL; i++) {
		uint64_t e = execs_of(units[i].fsym);

		if (e >= min_count) {
			u = &units[i];
			n = e;
		}
	}
	if (u == NULL && seg_marker >= 0 && !had_unit_event()) {
		bl = &baselines[seg_marker];
		if (bl->by_sym[0] == NULL)
			for (int k = 0; k < NBY; k++)
				bl->by_sym[k] =
				    xcalloc(nsyms + 1, sizeof(uint64_t));
		bl->segs++;
		bl->insns += seg_insns;
		for (int k = 0; k < NCOUNT; k++)
			bl->slow[k] += seg_slow[k];
		into = bl->by_sym;
	}
	if (u != NULL) {
		u->count += n;
		u->insns += seg_insns;
		u->timer += seg_timer;
		u->segs++;
		for (int k = 0; k < NCOUNT; k++)
			u->slow[k] += seg_slow[k];
		if (seg_marker >= 0)
			u->marker_segs[seg_marker]++;
		into = u->by_sym;
		printf("tbprof: segment %d (%s): %llu instructions (and %llu "
		       "in timer interrupts), %llu %s, %.0f per %s\n",
		       nsegs, seg_marker >= 0 ? syms[seg_marker].name : "-",
		       (unsigned long long)seg_insns,
		       (unsigned long long)seg_timer, (unsigned long long)n,
		       u->name, (double)seg_insns / (double)n, u->name);
	}
	for (size_t i = 0; i < blocks_cap; i++) {
		struct block *b = &blocks[i];

		if (into != NULL && b->execs != 0) {
			size_t s = sym_of(b->addr);
			unsigned slow = 0;

			for (int k = 0; k < NSLOW; k++)
				slow += b->slow[k];
			into[BY_INSNS][s] += b->execs * b->ninsn;
			into[BY_SLOW][s] += b->execs * slow;
			into[BY_LOOKUPS][s] +=
			    b->execs * b->slow[COUNT_INDIRECT] + b->xpage;
		}
		b->execs = 0;
		b->xpage = 0;
	}
	seg_insns = 0;
	memset(seg_slow, 0, sizeof(seg_slow));
	seg_timer = 0;
	nsegs++;
}

static int
by_desc(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

static const char *
sym_name(size_t i)
{
	return i < nsyms ? syms[i].name : "[other]";
}

/* What of a count u's segments' commands did, from the segments with
 * no unit that the same commands started: pick chooses the count of a
 * baseline (all instructions, one symbol's, slow ones of a kind). */
typedef uint64_t (*pick_fn)(const struct baseline *bl, long arg);

static double
marker_cost(const struct unit *u, pick_fn pick, long arg)
{
	double c = 0;

	for (size_t m = 0; m < nsyms; m++) {
		const struct baseline *bl = &baselines[m];

		if (u->marker_segs[m] == 0 || bl->segs == 0)
			continue;
		c += (double)u->marker_segs[m] * (double)pick(bl, arg) /
		     (double)bl->segs;
	}
	return c;
}

static uint64_t
pick_total(const struct baseline *bl, long unused)
{
	(void)unused;
	return bl->insns;
}

static uint64_t
pick_slow(const struct baseline *bl, long k)
{
	return bl->slow[k];
}

/* arg: symbol * NBY + kind */
static uint64_t
pick_sym(const struct baseline *bl, long arg)
{
	return bl->by_sym[arg % NBY][arg / NBY];
}

/* Symbol s's count of a kind (BY_*) per unit, less its commands' own. */
static double
sym_per_unit(const struct unit *u, int kind, size_t s)
{
	return ((double)u->by_sym[kind][s] -
	        marker_cost(u, pick_sym, (long)s * NBY + kind)) /
	       (double)u->count;
}

static double
total_per_unit(const struct unit *u)
{
	return ((double)u->insns - marker_cost(u, pick_total, 0)) /
	       (double)u->count;
}

static double
slow_per_unit(const struct unit *u, int k)
{
	return ((double)u->slow[k] - marker_cost(u, pick_slow, k)) /
	       (double)u->count;
}

/* Every symbol's a - b of a kind (BY_*), largest first, the top ones
 * down to min: "PREFIX   SYMBOL  DIFF  (A / B)", width and decimals
 * given. */
static void
print_diffs(double (*rows)[2], const struct unit *a, const struct unit *b,
            int kind, double min, int top, const char *prefix, int width,
            int prec)
{
	for (size_t s = 0; s <= nsyms; s++) {
		rows[s][0] =
		    sym_per_unit(a, kind, s) - sym_per_unit(b, kind, s);
		rows[s][1] = (double)s;
	}
	qsort(rows, nsyms + 1, sizeof(*rows), by_desc);
	for (int k = 0; k < top && rows[k][0] >= min; k++) {
		size_t s = (size_t)rows[k][1];

		printf("%s   %-28s %*.*f  (%.*f / %.*f)\n", prefix, sym_name(s),
		       width, prec, rows[k][0], prec, sym_per_unit(a, kind, s),
		       prec, sym_per_unit(b, kind, s));
	}
}

static void
report(int top)
{
	double(*rows)[2] = xcalloc(nsyms + 1, sizeof(*rows));

	for (int i = 0; i < nunits; i++) {
		struct unit *u = &units[i];

		if (u->count == 0) {
			printf("tbprof: unit %s: no segment entered %s\n",
			       u->name, u->func);
			continue;
		}
		printf("tbprof: unit %s: %llu in %d segment(s), %.0f "
		       "instructions per %s (and %.0f in timer interrupts); "
		       "top functions:\n",
		       u->name, (unsigned long long)u->count, u->segs,
		       total_per_unit(u), u->name,
		       (double)u->timer / (double)u->count);
		for (size_t s = 0; s <= nsyms; s++) {
			rows[s][0] = sym_per_unit(u, BY_INSNS, s);
			rows[s][1] = (double)s;
		}
		qsort(rows, nsyms + 1, sizeof(*rows), by_desc);
		for (int k = 0; k < top && rows[k][0] >= 1; k++)
			printf("tbprof:   %-28s %8.0f\n",
			       sym_name((size_t)rows[k][1]), rows[k][0]);
	}
	if (nunits >= 2 && units[0].count > 0 && units[1].count > 0) {
		struct unit *a = &units[0], *b = &units[1];
		double ta = total_per_unit(a), tb = total_per_unit(b);

		printf("tbprof: diff: instructions per unit, %s - %s, "
		       "largest first:\n",
		       a->name, b->name);
		print_diffs(rows, a, b, BY_INSNS, 1, top, "tbprof:", 8, 0);
		printf("tbprof: per-unit: %s %.0f, %s %.0f, %s/%s %.2f\n",
		       a->name, ta, b->name, tb, a->name, b->name, ta / tb);
		printf("tbprof: slow: instructions run out of line per unit, "
		       "%s / %s:",
		       a->name, b->name);
		for (int k = 0; k < NSLOW; k++)
			printf("%s %s %.1f / %.1f", k ? "," : "", slow_names[k],
			       slow_per_unit(a, k), slow_per_unit(b, k));
		printf("\n");
		print_diffs(rows, a, b, BY_SLOW, 0.05, top, "tbprof: slow:", 6,
		            1);
		printf("tbprof: blocks: executed per unit, %s / %s: %.1f / "
		       "%.1f, ending in an indirect jump (ret, call *, jmp *) "
		       "%.1f / %.1f, entered from another page %.1f / %.1f\n",
		       a->name, b->name, slow_per_unit(a, COUNT_BLOCKS),
		       slow_per_unit(b, COUNT_BLOCKS),
		       slow_per_unit(a, COUNT_INDIRECT),
		       slow_per_unit(b, COUNT_INDIRECT),
		       slow_per_unit(a, COUNT_CROSSPAGE),
		       slow_per_unit(b, COUNT_CROSSPAGE));
		print_diffs(rows, a, b, BY_LOOKUPS, 0.05, top,
		            "tbprof: lookups:", 6, 1);
	}
	free(rows);
}

/* One execution of b: into the segment, or apart if in a timer
 * interrupt; then follow interrupt entry, exit and switches. */
static void
account(struct block *b)
{
	int in_timer = 0;

	if (stubs_addr != 0 && b->addr >= stubs_addr &&
	    b->addr < stubs_addr + 256 * 16 &&
	    (b->addr - stubs_addr) % 16 == 0) {
		if (depth < MAX_NEST)
			nest[depth] = (int)((b->addr - stubs_addr) / 16);
		depth++;
	}
	if (switch_addr != 0 && b->addr == switch_addr)
		depth = 0; /* the next thread is not in our interrupt */
	for (int i = 0; i < depth && i < MAX_NEST; i++)
		in_timer |= excluded[nest[i]];
	if (in_timer) {
		seg_timer += b->ninsn;
	} else {
		b->execs++;
		seg_insns += b->ninsn;
		for (int k = 0; k < NCOUNT; k++)
			seg_slow[k] += b->slow[k];
		seg_slow[COUNT_BLOCKS]++;
		if (!prev_indirect && ((prev_addr ^ b->addr) & ~0xfffu) != 0) {
			seg_slow[COUNT_CROSSPAGE]++;
			b->xpage++;
		}
		prev_addr = b->addr;
		prev_indirect = b->slow[COUNT_INDIRECT] != 0;
	}
	if (b->iret && depth > 0)
		depth--;
}

/* The kind of slow instruction an in_asm line holds, COUNT_INDIRECT for
 * a return or an indirect call or jump, or -1.  The line is
 * "0xADDR:  BYTES  MNEMONIC OPERANDS"; the mnemonic follows the bytes
 * (pairs of hex digits). */
static int
slow_kind(const char *line)
{
	const char *p = strchr(line, ':');
	size_t n;

	if (p == NULL)
		return -1;
	for (p++;;) {
		while (*p == ' ')
			p++;
		if (isxdigit((unsigned char)p[0]) &&
		    isxdigit((unsigned char)p[1]) && p[2] == ' ')
			p += 2;
		else
			break;
	}
	n = strcspn(p, " \n");
	if ((n == 4 && strncmp(p, "lock", 4) == 0) ||
	    strncmp(p, "xchg", 4) == 0)
		return SLOW_ATOMIC;
	if (strncmp(p, "pushf", 5) == 0 || strncmp(p, "popf", 4) == 0 ||
	    (n == 3 &&
	     (strncmp(p, "cli", 3) == 0 || strncmp(p, "sti", 3) == 0)))
		return SLOW_IRQFLAGS;
	if (n == 5 && strncmp(p, "rdtsc", 5) == 0)
		return SLOW_TSC;
	if (((n == 3 || n == 4) && strncmp(p, "in", 2) == 0 &&
	     strchr("bwl", p[2]) != NULL) ||
	    ((n == 4 || n == 5) && strncmp(p, "out", 3) == 0 &&
	     strchr("bwl", p[3]) != NULL))
		return SLOW_PIO;
	if ((n == 3 || n == 4) && strncmp(p, "ret", 3) == 0)
		return COUNT_INDIRECT;
	if (((n == 4 || n == 5) && strncmp(p, "call", 4) == 0) ||
	    ((n == 3 || n == 4) && strncmp(p, "jmp", 3) == 0)) {
		p += n;
		while (*p == ' ')
			p++;
		if (*p == '*')
			return COUNT_INDIRECT;
	}
	return -1;
}

/* "0x0010abcd:  ..." -> 0x0010abcd; 0 with *ok false if not such. */
static uint32_t
parse_addr(const char *s, int *ok)
{
	char *end;
	unsigned long v;

	*ok = 0;
	if (s[0] != '0' || s[1] != 'x')
		return 0;
	v = strtoul(s + 2, &end, 16);
	if (end == s + 2 || *end != ':')
		return 0;
	*ok = 1;
	return (uint32_t)v;
}

/* "Trace 0: 0x7f.. [cs_base/pc/flags/..] ..." -> pc */
static int
parse_trace(const char *s, uint32_t *pc)
{
	const char *p = strchr(s, '[');
	char *end;
	unsigned long v;

	if (p == NULL || (p = strchr(p, '/')) == NULL)
		return 0;
	v = strtoul(p + 1, &end, 16);
	if (end == p + 1 || *end != '/')
		return 0;
	*pc = (uint32_t)v;
	return 1;
}

static void
usage(void)
{
	fprintf(stderr,
	        "usage: tbprof -s SYMS [-m PREFIX] [-k MIN] [-x VEC]... "
	        "-u NAME=FUNC... [-n TOP] LOG\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *symfile = NULL, *prefix = "cmd_";
	int nexcluded = 0, sym;
	char line[1024];
	int top = 25, opt, in_block = 0;
	struct block *cur = NULL;
	uint64_t lines = 0;
	FILE *log;

	while ((opt = getopt(argc, argv, "s:m:k:x:u:n:")) != -1) {
		switch (opt) {
		case 's':
			symfile = optarg;
			break;
		case 'm':
			prefix = optarg;
			break;
		case 'k':
			min_count = strtoull(optarg, NULL, 10);
			if (min_count == 0)
				usage();
			break;
		case 'x': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 0);
			if (*end != '\0' || v > 255)
				usage();
			excluded[v] = 1;
			nexcluded++;
			break;
		}
		case 'u': {
			char *eq = strchr(optarg, '=');
			if (eq == NULL || eq == optarg || eq[1] == '\0' ||
			    nunits == MAX_UNITS)
				usage();
			*eq = '\0';
			units[nunits].name = optarg;
			units[nunits].func = eq + 1;
			nunits++;
			break;
		}
		case 'n':
			top = atoi(optarg);
			if (top <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (symfile == NULL || nunits == 0 || optind != argc - 1)
		usage();
	load_syms(symfile, prefix);
	baselines = xcalloc(nsyms, sizeof(*baselines));
	if (nexcluded == 0)
		excluded[32] = excluded[0xef] = 1;
	sym = sym_exact("vector_stubs");
	stubs_addr = sym >= 0 ? syms[sym].addr : 0;
	sym = sym_exact("context_switch");
	switch_addr = sym >= 0 ? syms[sym].addr : 0;
	if (stubs_addr == 0 || switch_addr == 0)
		fprintf(stderr, "tbprof: no vector_stubs or context_switch: "
		                "timer interrupts are not told apart\n");
	for (int i = 0; i < nunits; i++) {
		units[i].fsym = sym_exact(units[i].func);
		for (int k = 0; k < NBY; k++)
			units[i].by_sym[k] =
			    xcalloc(nsyms + 1, sizeof(uint64_t));
		units[i].marker_segs = xcalloc(nsyms, sizeof(uint64_t));
		if (units[i].fsym < 0)
			fprintf(stderr, "tbprof: no symbol %s\n",
			        units[i].func);
	}
	log = fopen(argv[optind], "r");
	if (log == NULL) {
		fprintf(stderr, "tbprof: %s: %s\n", argv[optind],
		        strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), log) != NULL) {
		uint32_t a;
		int ok;

		lines++;
		if (strncmp(line, "IN:", 3) == 0) {
			in_block = 1;
			cur = NULL;
			continue;
		}
		if (in_block) {
			a = parse_addr(line, &ok);
			if (ok) {
				int kind = slow_kind(line);

				if (cur == NULL) {
					cur = block_find(a, 1);
					cur->ninsn = 0;
					cur->iret = 0;
					memset(cur->slow, 0, sizeof(cur->slow));
				}
				cur->ninsn++;
				if (kind >= 0)
					cur->slow[kind]++;
				if (strstr(line, "iret") != NULL)
					cur->iret = 1;
				continue;
			}
			if (line[0] == '\n')
				in_block = 0;
			continue;
		}
		if (strncmp(line, "Trace ", 6) == 0 && parse_trace(line, &a)) {
			struct block *b = block_find(a, 1);
			size_t s = sym_of(a);

			if (s < nsyms && syms[s].marker && syms[s].addr == a) {
				end_segment();
				seg_marker = (int)s;
				b = block_find(a, 1); /* the table may grow */
			}
			account(b);
		}
	}
	end_segment();
	fclose(log);
	if (lines == 0)
		die("empty log");
	report(top);
	return 0;
}
