/*
 * bench-report: make bench's report.  Reads the serial logs of the
 * scenarios in tests/bench (DIR/logs) and bench-boot's output in DIR
 * (boot.txt, typed.txt, udp.txt, tcp.txt, rmmod.txt) and the guest
 * instruction counts of make bench-insns (insns.txt), writes
 * DIR/report.txt (every bench: line), DIR/report.md (tables), the data
 * files and the PNG plots (through gnuplot, DIR/plots.gp).  Benchmarks print numbers; nothing here judges
 * them.  docs/bench.md explains each figure.
 *
 *   bench-report DIR
 *
 * A figure whose input is missing is left out of the tables (its plot
 * too), so a partial run still gets a report.
 */
#include <glob.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXTOK  64
#define MAXROWS 64
#define LINEMAX 4096

/* ---- lines and tokens ---------------------------------------------------- */

struct line {
	char text[LINEMAX];
	char buf[LINEMAX];
	char *tok[MAXTOK];
	int ntok;
};

static void
tokenize(struct line *l)
{
	char *save = NULL, *t;

	strcpy(l->buf, l->text);
	l->ntok = 0;
	for (t = strtok_r(l->buf, " \t\r\n", &save);
	     t != NULL && l->ntok < MAXTOK;
	     t = strtok_r(NULL, " \t\r\n", &save))
		l->tok[l->ntok++] = t;
}

/* The index of the first token equal to w at or after from, or -1. */
static int
tok_find(const struct line *l, const char *w, int from)
{
	for (int i = from; i < l->ntok; i++)
		if (strcmp(l->tok[i], w) == 0)
			return i;
	return -1;
}

/* The number in token i (trailing units or punctuation ignored). */
static double
tok_num(const struct line *l, int i)
{
	return i >= 0 && i < l->ntok ? atof(l->tok[i]) : -1;
}

/* The value of key=VALUE in the line's "(...)" part, "?" if absent. */
static void
param(const char *text, const char *key, char *out, size_t size)
{
	char k[64];
	const char *p;
	size_t n;

	snprintf(k, sizeof(k), "%s=", key);
	p = strstr(text, k);
	while (p != NULL && p != text && p[-1] != ' ' && p[-1] != '(')
		p = strstr(p + 1, k);
	if (p == NULL) {
		snprintf(out, size, "%s",
		         strcmp(key, "refmode") == 0         ? "wait"
		         : strcmp(key, "tcp_unload_tw") == 0 ? "wait"
		                                             : "atomic");
		return;
	}
	p += strlen(k);
	n = strcspn(p, " ):");
	snprintf(out, size, "%.*s", (int)n, p);
}

typedef void (*line_fn)(struct line *l, const char *file, void *ctx);

static int
each_line(const char *pattern, const char *prefix, line_fn fn, void *ctx)
{
	glob_t g;
	int seen = 0;
	static struct line l;

	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f == NULL)
			continue;
		while (fgets(l.text, sizeof(l.text), f) != NULL) {
			if (strncmp(l.text, prefix, strlen(prefix)) != 0)
				continue;
			l.text[strcspn(l.text, "\r\n")] = '\0';
			tokenize(&l);
			fn(&l, g.gl_pathv[i], ctx);
			seen++;
		}
		fclose(f);
	}
	globfree(&g);
	return seen;
}

/* ---- tables of named rows ------------------------------------------------ */

#define NCOL 18

struct table {
	int n;
	char name[MAXROWS][64];
	double v[MAXROWS][NCOL];
};

static int
row(struct table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->name[i], name) == 0)
			return i;
	if (t->n == MAXROWS)
		return MAXROWS - 1;
	snprintf(t->name[t->n], sizeof(t->name[0]), "%s", name);
	for (int c = 0; c < NCOL; c++)
		t->v[t->n][c] = -1;
	return t->n++;
}

static void
cell(FILE *f, double v, const char *fmt)
{
	if (v < 0)
		fprintf(f, " | -");
	else
		fprintf(f, " | "), fprintf(f, fmt, v);
}

/* Every row of t: its name and its first ncols columns, in fmt. */
static void
print_rows(FILE *f, const struct table *t, int ncols, const char *fmt)
{
	for (int i = 0; i < t->n; i++) {
		fprintf(f, "| %s", t->name[i]);
		for (int c = 0; c < ncols; c++)
			cell(f, t->v[i][c], fmt);
		fprintf(f, " |\n");
	}
}

/* name then columns cols[0..ncols) of every row; "?" for missing. */
static void
write_dat(const char *file, const struct table *t, const int *cols, int n)
{
	FILE *f = fopen(file, "w");

	if (f == NULL)
		return;
	for (int i = 0; i < t->n; i++) {
		/* A numeric name (CPUs) is an x value, not a label. */
		if (strspn(t->name[i], "0123456789") == strlen(t->name[i]))
			fprintf(f, "%s", t->name[i]);
		else
			fprintf(f, "\"%s\"", t->name[i]);
		for (int c = 0; c < n; c++) {
			double v = t->v[i][cols[c]];
			if (v < 0)
				fprintf(f, " ?");
			else
				fprintf(f, " %g", v);
		}
		fprintf(f, "\n");
	}
	fclose(f);
}

/* ---- the figures ---------------------------------------------------------- */

static struct table devref, contended, modcycle, typed, udp, tcp, rmm, rmtcp;
static double boot[4] = {-1, -1, -1, -1};
static char boot_runs[8192], udp_costs[8192];
static FILE *txt;

static void
on_bench(struct line *l, const char *file, void *ctx)
{
	(void)file;
	(void)ctx;
	fprintf(txt, "%s\n", l->text);
}

/* bench: devref: VARIANT N cycles ... (column 0 atomic, 1 percpu) */
static void
on_devref(struct line *l, const char *file, void *ctx)
{
	(void)ctx;
	if (l->ntok < 5 || strcmp(l->tok[1], "devref:") != 0 ||
	    strcmp(l->tok[4], "cycles") != 0)
		return;
	devref.v[row(&devref, l->tok[2])][strstr(file, "percpu") ? 1 : 0] =
	    tok_num(l, 3);
}

/* bench: devref-contended: VARIANT cpus K C cycles/pair R kpairs/s
 * speedup S: row per CPU count, columns rate/speedup per variant. */
static const char *const cvariants[] = {"wait/atomic", "wait/percpu", "owner"};

static void
on_contended(struct line *l, const char *file, void *ctx)
{
	int v = -1, r;

	(void)file;
	(void)ctx;
	if (l->ntok < 11 || strcmp(l->tok[3], "cpus") != 0)
		return;
	for (int i = 0; i < 3; i++)
		if (strcmp(l->tok[2], cvariants[i]) == 0)
			v = i;
	if (v < 0)
		return;
	r = row(&contended, l->tok[4]);
	contended.v[r][2 * v] = tok_num(l, 7);
	contended.v[r][2 * v + 1] = tok_num(l, 10);
}

/* modcycle: NAME: N cycles in S s, R/s, ... */
static void
on_modcycle(struct line *l, const char *file, void *ctx)
{
	char name[64];

	(void)ctx;
	if (l->ntok < 8 || strcmp(l->tok[3], "cycles") != 0)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(l->tok[1], ":"),
	         l->tok[1]);
	modcycle.v[row(&modcycle, name)][strstr(file, "percpu") ? 1 : 0] =
	    tok_num(l, 7);
}

/* rmmod-idle.scn's "rmmod: e1000: unloaded after X ms", in order: the
 * first after boot, two right after insmod, two after a pause. */
static double idle_rmmod[5];
static int n_idle_rmmod;

static void
on_idle_rmmod(struct line *l, const char *file, void *ctx)
{
	(void)file;
	(void)ctx;
	if (l->ntok >= 6 && strcmp(l->tok[2], "unloaded") == 0 &&
	    n_idle_rmmod < 5)
		idle_rmmod[n_idle_rmmod++] = tok_num(l, 4);
}

/* rmmod-first.scn's two lines: netsim's rmmod (the first after boot) and
 * then e1000's first, after the shared unload code has run once. */
static double first_netsim = -1, first_e1000 = -1;

static void
on_first_rmmod(struct line *l, const char *file, void *ctx)
{
	(void)file;
	(void)ctx;
	if (l->ntok < 6 || strcmp(l->tok[2], "unloaded") != 0)
		return;
	if (strcmp(l->tok[1], "netsim:") == 0)
		first_netsim = tok_num(l, 4);
	else if (strcmp(l->tok[1], "e1000:") == 0)
		first_e1000 = tok_num(l, 4);
}

static void
on_boot(struct line *l, const char *file, void *ctx)
{
	const char *p;

	(void)file;
	(void)ctx;
	if (strncmp(l->text, "bench: boot-run: ", 17) == 0) {
		size_t n = strlen(boot_runs);
		snprintf(boot_runs + n, sizeof(boot_runs) - n, "    run %s\n",
		         l->text + 17);
		return;
	}
	p = strstr(l->text, "medians: ");
	if (p == NULL)
		return;
	sscanf(p,
	       "medians: floor first byte %lf ms, exit %lf ms; modref first "
	       "byte %lf ms, prompt %lf ms",
	       &boot[0], &boot[1], &boot[2], &boot[3]);
}

/* bench: typed: MOD (..refmode=R modref=M): N cycles typed in S s, R/s;
 * insmod ms min a median b p90 c max d; rmmod ms ... */
static void
on_typed(struct line *l, const char *file, void *ctx)
{
	char r[32], m[32], name[64];
	int i, k, ins, rm;

	(void)file;
	(void)ctx;
	if (strcmp(l->tok[1], "typed:") != 0)
		return;
	param(l->text, "refmode", r, sizeof(r));
	param(l->text, "modref", m, sizeof(m));
	snprintf(name, sizeof(name), "%s/%s", r, m);
	k = row(&typed, name);
	i = tok_find(l, "typed", 3);
	ins = tok_find(l, "insmod", 3);
	rm = tok_find(l, "rmmod", 3);
	if (i < 0 || ins < 0 || rm < 0)
		return;
	typed.v[k][0] = tok_num(l, i + 4);
	for (int j = 0; j < 4; j++) {
		typed.v[k][1 + j] = tok_num(l, ins + 3 + 2 * j);
		typed.v[k][5 + j] = tok_num(l, rm + 3 + 2 * j);
	}
}

/* Every udp-round line's frames ratio, per NIC (e1000, virtio-net): the
 * fast path is the same code in every refmode, so all of a NIC's
 * rounds together are the run's best estimate of its ratio. */
#define MAXROUNDS 256
static double udp_rounds[2][MAXROUNDS];
static int n_udp_rounds[2];

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v; its median (the mean of the middle two for an even count),
 * and the values a quarter and three quarters of the way (nearest rank
 * below), as tests/bench/udp-ab.sh gives them. */
static void
median_quartiles(double *v, int n, double out[3])
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[1] = v[(int)(0.25 * (n - 1))];
	out[2] = v[(int)(0.75 * (n - 1))];
}

/*
 * UDP, a row per refmode/devref; columns per driver d (0 e1000, 1
 * virtio_net) at 9*d + : 0 stack round trips/s, 1 bounce round trips/s,
 * 2 stack frames/s, 3 bounce frames/s, 4 stack median rtt, 5 bounce
 * median rtt; then the stack/bounce ratios as bench-boot gives them
 * (each the median of the rounds' own ratios, not a ratio of two
 * medians): 6 round trips, 7 frames, 8 median rtt (bounce over stack).
 */
static void
on_udp(struct line *l, const char *file, void *ctx)
{
	char r[32], dr[32], name[64];
	int k, d;

	(void)file;
	(void)ctx;
	if (l->ntok < 4)
		return;
	param(l->text, "refmode", r, sizeof(r));
	param(l->text, "devref", dr, sizeof(dr));
	snprintf(name, sizeof(name), "%s/%s", r, dr);
	d = strcmp(l->tok[2], "e1000") == 0 ? 0 : 9;
	if (strcmp(l->tok[1], "udp-cost:") == 0) {
		size_t n = strlen(udp_costs);
		/* one strategy is enough to see where the events are */
		if (strcmp(name, "wait/atomic") == 0)
			snprintf(udp_costs + n, sizeof(udp_costs) - n,
			         "    %s\n", l->text + 7);
		return;
	}
	if (strcmp(l->tok[1], "udp-round:") == 0) {
		int nic = d ? 1 : 0;
		double x;

		/* "... (0.95x)" */
		if (sscanf(l->tok[l->ntok - 1], "(%lfx)", &x) == 1 &&
		    n_udp_rounds[nic] < MAXROUNDS)
			udp_rounds[nic][n_udp_rounds[nic]++] = x;
		return;
	}
	k = row(&udp, name);
	if (strcmp(l->tok[1], "udp-path:") == 0) {
		const char *p = strstr(l->text, "round trips/s stack ");
		const char *q = strstr(l->text, "frames/s stack ");
		double *v = udp.v[k] + d;

		if (p != NULL)
			sscanf(p, "round trips/s stack %lf bounce %lf (%lfx)",
			       &v[0], &v[1], &v[6]);
		if (q != NULL)
			sscanf(q, "frames/s stack %lf bounce %lf (%lfx)", &v[2],
			       &v[3], &v[7]);
		q = strstr(l->text, "median rtt ms stack ");
		if (q != NULL)
			sscanf(q, "median rtt ms stack %lf bounce %lf (%lfx)",
			       &v[4], &v[5], &v[8]);
	}
}

/*
 * Guest instructions per UDP echo (make bench-insns, tbprof): per NIC the
 * totals ("bench: insns: DRV: per-unit: echo E, bounce B, ...") and the
 * functions the stack spends more in than the bounce loop ("bench:
 * insns: DRV:   FUNC  DIFF  (E / B)", largest first).
 */
#define INSNS_TOP 12
static struct insns {
	char nic[16];
	double echo, bounce;
	bool in_diff; /* past the "diff:" line */
	int nfn;
	char fn[INSNS_TOP][48];
	double diff[INSNS_TOP], in_echo[INSNS_TOP], in_bounce[INSNS_TOP];
	char slow[160];   /* "atomic A / B, irq-flags ..." (tbprof: slow:) */
	char blocks[160]; /* "A / B, ending in ..." (tbprof: blocks:) */
} insns[2];
static int ninsns;

static struct insns *
insns_nic(const char *tok)
{
	char nic[16];

	snprintf(nic, sizeof(nic), "%.*s", (int)strcspn(tok, ":"), tok);
	for (int i = 0; i < ninsns; i++)
		if (strcmp(insns[i].nic, nic) == 0)
			return &insns[i];
	if (ninsns == 2)
		return NULL;
	snprintf(insns[ninsns].nic, sizeof(insns[0].nic), "%s", nic);
	return &insns[ninsns++];
}

static void
on_insns(struct line *l, const char *file, void *ctx)
{
	struct insns *n;

	(void)file;
	(void)ctx;
	if (l->ntok < 5 || (n = insns_nic(l->tok[2])) == NULL)
		return;
	if (strcmp(l->tok[3], "per-unit:") == 0) {
		const char *p = strstr(l->text, "echo ");
		const char *q = strstr(l->text, "bounce ");
		if (p != NULL)
			n->echo = atof(p + 5);
		if (q != NULL)
			n->bounce = atof(q + 7);
	} else if (strcmp(l->tok[3], "diff:") == 0) {
		n->in_diff = true;
	} else if (strcmp(l->tok[3], "slow:") == 0 &&
	           strstr(l->text, "echo / bounce: ") != NULL) {
		snprintf(n->slow, sizeof(n->slow), "%s",
		         strstr(l->text, "echo / bounce: ") + 15);
	} else if (strcmp(l->tok[3], "blocks:") == 0 &&
	           strstr(l->text, "echo / bounce: ") != NULL) {
		snprintf(n->blocks, sizeof(n->blocks), "%s",
		         strstr(l->text, "echo / bounce: ") + 15);
	} else if (n->in_diff && l->ntok >= 8 && l->tok[5][0] == '(' &&
	           n->nfn < INSNS_TOP) {
		snprintf(n->fn[n->nfn], sizeof(n->fn[0]), "%s", l->tok[3]);
		n->diff[n->nfn] = tok_num(l, 4);
		/* tbprof rounds a tiny negative remainder to "-0" */
		n->in_echo[n->nfn] = fabs(atof(l->tok[5] + 1));
		n->in_bounce[n->nfn] = fabs(atof(l->tok[7]));
		n->nfn++;
	}
}

/* bench: tcp: DRIVER (..): R rounds of B bytes, medians: guest->host X
 * Mbit/s, host->guest Y Mbit/s */
static void
on_tcp(struct line *l, const char *file, void *ctx)
{
	int k, i, j;

	(void)file;
	(void)ctx;
	if (strcmp(l->tok[1], "tcp:") != 0)
		return;
	k = row(&tcp, l->tok[2]);
	i = tok_find(l, "guest->host", 3);
	j = tok_find(l, "host->guest", 3);
	tcp.v[k][0] = tok_num(l, i + 1);
	tcp.v[k][1] = tok_num(l, j + 1);
}

/* rmmod-load: a row per refmode, K holders; columns by TIME_WAIT and
 * policy: 0 no TIME_WAIT, 1 with M (tcp_unload_tw=wait), 2 with M
 * (purge); host ms.  rmmod-tcp: a row per policy/refmode/K. */
static int tw_count;
static char last_k[16] = "?"; /* holders of the rmmod-load line before */

static void
on_rmmod(struct line *l, const char *file, void *ctx)
{
	char r[32], tw[32], name[64];
	int took = tok_find(l, "took", 3), k, m, h;

	(void)file;
	(void)ctx;
	if (took < 0)
		return;
	param(l->text, "refmode", r, sizeof(r));
	param(l->text, "tcp_unload_tw", tw, sizeof(tw));
	h = tok_find(l, "holders", 3);
	m = tok_find(l, "TIME_WAIT,", 3);
	if (strcmp(l->tok[1], "rmmod-load:") == 0 && h > 0) {
		int tws = m > 0 ? (int)tok_num(l, m - 1) : 0;
		snprintf(last_k, sizeof(last_k), "%s", l->tok[h - 1]);
		snprintf(name, sizeof(name), "%s, K=%s", r, last_k);
		k = row(&rmm, name);
		if (tws > 0)
			tw_count = tws;
		rmm.v[k][tws == 0                   ? 0
		         : strcmp(tw, "purge") == 0 ? 2
		                                    : 1] = tok_num(l, took + 1);
	} else if (strcmp(l->tok[1], "rmmod-tcp:") == 0) {
		snprintf(name, sizeof(name), "%s, K=%s", r, last_k);
		k = row(&rmtcp, name);
		rmtcp.v[k][strcmp(tw, "purge") == 0] = tok_num(l, took + 1);
	}
}

/* ---- gnuplot ---------------------------------------------------------------
 */

static const char plots_head[] =
    "set terminal pngcairo size 800,480 font \",10\"\n"
    "set grid ytics\n"
    /* Row names (virtio_net) are data, not enhanced-text markup. */
    "set xtics noenhanced\n"
    "set key top left\n"
    "set yrange [0:*]\n"
    "set style data histograms\n"
    "set style histogram clustered gap 1\n"
    "set style fill solid 0.8 border -1\n"
    "set datafile missing \"?\"\n";

static void
gp(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void
plots(void)
{
	FILE *f = fopen("plots.gp", "w");
	static const int c2[] = {0, 1}, c4[] = {0, 1, 2, 3, 4, 5},
	                 cty[] = {0, 1, 2, 3, 4, 5, 6, 7, 8},
	                 cudp[] = {0, 1, 9, 10, 2, 3, 11, 12}, c3[] = {0, 1, 2};

	if (f == NULL)
		return;
	fputs(plots_head, f);
	if (devref.n) {
		write_dat("devref.dat", &devref, c2, 2);
		gp(f, "set output \"devref.png\"");
		gp(f, "set title \"bench devref: one hold/put pair on one CPU "
		      "(TSC cycles, QEMU TCG)\"");
		gp(f, "set ylabel \"cycles per pair\"");
		gp(f,
		   "plot \"devref.dat\" using 2:xtic(1) title "
		   "\"modref=atomic\", \"\" using 3 title \"modref=percpu\"");
	}
	if (modcycle.n) {
		write_dat("modcycle.dat", &modcycle, c2, 2);
		gp(f, "set output \"modcycle.png\"");
		gp(f, "set title \"modcycle: insmod+rmmod cycles per second, "
		      "in the guest\"");
		gp(f, "set ylabel \"cycles/s\"");
		gp(f, "set logscale y");
		gp(f,
		   "plot \"modcycle.dat\" using 2:xtic(1) title "
		   "\"modref=atomic\", \"\" using 3 title \"modref=percpu\"");
		gp(f, "unset logscale y");
	}
	if (boot[3] > 0) {
		FILE *d = fopen("boot.dat", "w");
		static const char *const names[] = {
		    "floor: first byte", "floor: powered off",
		    "modref: first byte", "modref: prompt"};
		for (int i = 0; d != NULL && i < 4; i++)
			fprintf(d, "\"%s\" %g\n", names[i], boot[i]);
		if (d != NULL)
			fclose(d);
		gp(f, "set output \"boot.png\"");
		gp(f, "set title \"boot: from QEMU start (host clock, ms; "
		      "median)\"");
		gp(f, "set ylabel \"ms\"");
		gp(f, "plot \"boot.dat\" using 2:xtic(1) notitle");
	}
	if (typed.n) {
		write_dat("typed.dat", &typed, cty, 9);
		gp(f, "set output \"typed.png\"");
		gp(f, "set title \"insmod / rmmod e1000 typed at the console "
		      "(host clock, ms):\\nbox median..p90, whiskers "
		      "min..max\"");
		gp(f, "set ylabel \"ms\"");
		gp(f, "set style fill solid 0.4 border -1");
		gp(f, "set boxwidth 0.3");
		gp(f, "set xrange [-0.6:*]");
		gp(f, "set offsets 0, 0.6, 0, 0");
		gp(f,
		   "plot \"typed.dat\" using ($0-0.18):4:3:6:5:xtic(1) "
		   "with candlesticks title \"insmod\" whiskerbars, "
		   "\"typed.dat\" using ($0+0.18):8:7:10:9 with candlesticks "
		   "title \"rmmod\" whiskerbars");
		gp(f, "set autoscale x");
		gp(f, "set offsets 0, 0, 0, 0");
		gp(f, "set style fill solid 0.8 border -1");
		gp(f, "set style data histograms");
	}
	if (udp.n) {
		write_dat("udp.dat", &udp, cudp, 8);
		gp(f, "set output \"udp.png\"");
		gp(f, "set key above");
		gp(f, "set title \"UDP echo, 64 bytes, one at a time from the "
		      "host: round trips/s, stack and raw bounce loop\"");
		gp(f, "set ylabel \"round trips/s\"");
		gp(f, "plot \"udp.dat\" using 2:xtic(1) title \"e1000 stack\", "
		      "\"\" using 3 title \"e1000 bounce\", \"\" using 4 title "
		      "\"virtio-net stack\", \"\" using 5 title \"virtio-net "
		      "bounce\"");
		gp(f, "set output \"frames.png\"");
		gp(f, "set key above");
		gp(f, "set title \"UDP echo, 64 bytes, 16 in flight: frames/s "
		      "through the driver (in + out), stack and raw bounce "
		      "loop\"");
		gp(f, "set ylabel \"frames/s\"");
		gp(f, "plot \"udp.dat\" using 6:xtic(1) title \"e1000 stack\", "
		      "\"\" using 7 title \"e1000 bounce\", \"\" using 8 title "
		      "\"virtio-net stack\", \"\" using 9 title \"virtio-net "
		      "bounce\"");
	}
	if (tcp.n) {
		write_dat("tcp.dat", &tcp, c2, 2);
		gp(f, "set output \"tcp.png\"");
		gp(f, "set key above");
		gp(f, "set title \"TCP bulk through each NIC (host clock, "
		      "median Mbit/s)\"");
		gp(f, "set ylabel \"Mbit/s\"");
		gp(f, "plot \"tcp.dat\" using 2:xtic(1) title \"guest to "
		      "host\", \"\" using 3 title \"host to guest\"");
	}
	if (rmm.n) {
		write_dat("rmmod.dat", &rmm, c3, 3);
		gp(f, "set output \"rmmod.png\"");
		gp(f, "set key above");
		gp(f,
		   "set title \"rmmod e1000 under load (8 bound UDP sockets, "
		   "K holders of 500 ms, M TIME\\\\_WAIT): host ms\"");
		gp(f, "set ylabel \"ms\"");
		gp(f,
		   "plot \"rmmod.dat\" using 2:xtic(1) title \"M=0\", \"\" "
		   "using 3 title \"M=%d, tcp\\\\_unload\\\\_tw=wait\", \"\" "
		   "using 4 title \"M=%d, purge\"",
		   tw_count, tw_count);
	}
	if (rmtcp.n) {
		write_dat("rmmod-tcp.dat", &rmtcp, c2, 2);
		gp(f, "set output \"rmmod-tcp.png\"");
		gp(f, "set key above");
		gp(f,
		   "set title \"then rmmod tcp with M=%d TIME\\\\_WAIT "
		   "(tcp\\\\_msl\\\\_ms=1000): host ms, per "
		   "tcp\\\\_unload\\\\_tw\"",
		   tw_count);
		gp(f, "set ylabel \"ms\"");
		gp(f, "plot \"rmmod-tcp.dat\" using 2:xtic(1) title \"wait\", "
		      "\"\" using 3 title \"purge\"");
	}
	if (contended.n) {
		write_dat("contended.dat", &contended, c4, 6);
		gp(f, "set style data linespoints");
		gp(f, "set key inside top left");
		gp(f, "set output \"contended.png\"");
		gp(f, "set title \"bench devref contended: every CPU on one "
		      "device (total rate)\"");
		gp(f, "set xlabel \"CPUs\"");
		gp(f, "set ylabel \"thousand pairs/s, all CPUs together\"");
		gp(f, "set logscale x 2");
		gp(f, "set xtics (1, 2, 4, 8)");
		gp(f, "set xrange [0.8:10]");
		gp(f, "plot \"contended.dat\" using 1:2 title \"wait/atomic\" "
		      "lw 2, \"\" using 1:4 title \"wait/percpu\" lw 2, \"\" "
		      "using 1:6 title \"owner\" lw 2");
		gp(f, "set output \"contended-speedup.png\"");
		gp(f,
		   "set title \"bench devref contended: speedup over one CPU "
		   "(ideal = CPUs)\"");
		gp(f, "set ylabel \"speedup\"");
		gp(f, "plot \"contended.dat\" using 1:3 title \"wait/atomic\" "
		      "lw 2, \"\" using 1:5 title \"wait/percpu\" lw 2, \"\" "
		      "using 1:7 title \"owner\" lw 2, x title \"ideal\" dt 2 "
		      "lc rgb \"gray\"");
	}
	fclose(f);
	if (system("gnuplot plots.gp") != 0)
		fprintf(stderr, "bench-report: gnuplot failed; tables only\n");
}

/* ---- report.md --------------------------------------------------------------
 */

static double
ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : -1;
}

static void
report(FILE *f)
{
	char date[64], l1[16] = "?", l2[16] = "?", l3[16] = "?";
	time_t now = time(NULL);
	FILE *la = fopen("/proc/loadavg", "r");

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	if (la != NULL) {
		if (fscanf(la, "%15s %15s %15s", l1, l2, l3) != 3)
			snprintf(l1, sizeof(l1), "?");
		fclose(la);
	}
	fprintf(f, "# modref benchmark report\n\n");
	fprintf(f,
	        "%s, %ld host cores, load average %s %s %s (at the end "
	        "of the run).\n",
	        date, sysconf(_SC_NPROCESSORS_ONLN), l1, l2, l3);
	fprintf(f, "QEMU TCG: read ratios measured side by side, not absolute "
	           "cycles (docs/bench.md).\n");
	if (boot[3] > 0) {
		fprintf(f, "\n## Boot\n\n![boot](boot.png)\n\n");
		fprintf(f,
		        "| step | ms from QEMU start (median) |\n|---|---|\n");
		fprintf(f, "| floor: first byte | %.1f |\n", boot[0]);
		fprintf(f, "| floor: powered off | %.1f |\n", boot[1]);
		fprintf(f, "| modref: first byte | %.1f |\n", boot[2]);
		fprintf(f, "| modref: prompt | %.1f (%.2fx the floor) |\n",
		        boot[3], ratio(boot[3], boot[1]));
		fprintf(f, "\n%s", boot_runs);
	}
	if (devref.n) {
		fprintf(f, "\n## bench devref: one CPU\n\n![devref](devref.png)"
		           "\n\n| variant | cycles, modref=atomic | cycles, "
		           "modref=percpu |\n|---|---|---|\n");
		print_rows(f, &devref, 2, "%.0f");
	}
	if (contended.n) {
		fprintf(f, "\n## bench devref contended: every CPU on one "
		           "device\n\n![contended](contended.png) "
		           "![speedup](contended-speedup.png)\n\n| CPUs | "
		           "wait/atomic kpairs/s | speedup | wait/percpu "
		           "kpairs/s | speedup | owner kpairs/s | speedup "
		           "|\n|---|---|---|---|---|---|---|\n");
		for (int i = 0; i < contended.n; i++) {
			fprintf(f, "| %s", contended.name[i]);
			for (int c = 0; c < 6; c++)
				cell(f, contended.v[i][c],
				     c % 2 ? "%.2fx" : "%.0f");
			fprintf(f, " |\n");
		}
	}
	if (modcycle.n) {
		fprintf(f,
		        "\n## Module load/unload cycles (in-guest "
		        "modcycle)\n\n![modcycle](modcycle.png)\n\n| module | "
		        "cycles/s, modref=atomic | cycles/s, modref=percpu "
		        "|\n|---|---|---|\n");
		print_rows(f, &modcycle, 2, "%.1f");
	}
	if (n_idle_rmmod == 5) {
		double *v = idle_rmmod;

		fprintf(f,
		        "\n## Idle rmmod e1000 (guest clock, "
		        "tests/bench/rmmod-idle.scn)\n\n| first after boot | "
		        "right after insmod | after a 0.5 s pause |\n|---|---|"
		        "---|\n| %.3f ms | %.3f / %.3f ms | %.3f / %.3f ms |\n",
		        v[0], v[1], v[2], v[3], v[4]);
	}
	if (first_netsim >= 0 && first_e1000 >= 0)
		fprintf(f,
		        "\nWhen netsim is loaded and unloaded first "
		        "(tests/bench/rmmod-first.scn), its rmmod, the first "
		        "after boot, takes %.3f ms, and then e1000's first "
		        "rmmod (after a 0.5 s pause) %.3f ms; set against the "
		        "table's first after boot, the difference is what the "
		        "unload code shared by every driver costs the first "
		        "time it runs (docs/bench.md, \"The first rmmod after "
		        "boot\").\n",
		        first_netsim, first_e1000);
	if (typed.n) {
		fprintf(f,
		        "\n## Module load/unload typed at the console (e1000, "
		        "per refmode/modref)\n\n![typed](typed.png)\n\n| "
		        "refmode/modref | cycles/s | insmod ms min / median / "
		        "p90 / max | rmmod ms min / median / p90 / max "
		        "|\n|---|---|---|---|\n");
		for (int i = 0; i < typed.n; i++) {
			double *v = typed.v[i];
			fprintf(
			    f,
			    "| %s | %.1f | %.2f / %.2f / %.2f / %.2f | %.2f / "
			    "%.2f / %.2f / %.2f |\n",
			    typed.name[i], v[0], v[1], v[2], v[3], v[4], v[5],
			    v[6], v[7], v[8]);
		}
	}
	if (udp.n) {
		fprintf(f,
		        "\n## The packet path: UDP echo through the stack and "
		        "the raw bounce loop, per refmode/devref\n\n"
		        "![udp](udp.png) ![frames](frames.png)\n\n"
		        "One at a time (round trips/s, and the median rtt, "
		        "the steadier figure on a loaded host) and 16 in "
		        "flight (frames/s through the driver, in + out), "
		        "medians of the rounds; stack/bounce is the stack's "
		        "speed over the raw loop's (for rtt: bounce rtt over "
		        "stack rtt), measured alternately in the same "
		        "boot: the median of the rounds' own ratios, so it "
		        "need not be the ratio of the two medians beside "
		        "it.\n");
		for (int d = 0; d < 18; d += 9) {
			fprintf(
			    f,
			    "\n| %s: refmode/devref | stack rt/s | bounce "
			    "rt/s | stack/bounce | stack frames/s | "
			    "bounce frames/s | stack/bounce | median rtt ms "
			    "stack / bounce | stack/bounce |\n|---|---|---|---"
			    "|---|---|---|---|---|\n",
			    d ? "virtio-net" : "e1000");
			for (int i = 0; i < udp.n; i++) {
				double *v = udp.v[i] + d;

				fprintf(f, "| %s", udp.name[i]);
				cell(f, v[0], "%.0f");
				cell(f, v[1], "%.0f");
				cell(f, v[6], "%.2f");
				cell(f, v[2], "%.0f");
				cell(f, v[3], "%.0f");
				cell(f, v[7], "%.2f");
				if (v[4] < 0 || v[5] < 0)
					fprintf(f, " | -");
				else
					fprintf(f, " | %.3f / %.3f", v[4],
					        v[5]);
				cell(f, v[8], "%.2f");
				fprintf(f, " |\n");
			}
		}
	}
	for (int nic = 0; nic < 2; nic++) {
		double m[3];

		if (n_udp_rounds[nic] == 0)
			continue;
		median_quartiles(udp_rounds[nic], n_udp_rounds[nic], m);
		fprintf(f,
		        "\n%s, 16 in flight, every round of every refmode "
		        "together (the fast path is the same code in each): "
		        "stack/bounce frames median %.2f (quartiles "
		        "%.2f-%.2f) over %d rounds.\n",
		        nic ? "virtio-net" : "e1000", m[0], m[1], m[2],
		        n_udp_rounds[nic]);
	}
	if (ninsns > 0) {
		fprintf(f,
		        "\n### Guest instructions per echo (make bench-insns)"
		        "\n\nCounted from QEMU's TCG log, so the host's load "
		        "does not move them (timer interrupts left out): the "
		        "stack's own cost beside the bounce loop's.\n\n| NIC | "
		        "through the stack | through the bounce loop | "
		        "stack/bounce |\n|---|---|---|---|\n");
		for (int i = 0; i < ninsns; i++) {
			fprintf(f, "| %s", insns[i].nic);
			cell(f, insns[i].echo, "%.0f");
			cell(f, insns[i].bounce, "%.0f");
			cell(f, ratio(insns[i].echo, insns[i].bounce), "%.2f");
			fprintf(f, " |\n");
		}
		for (int i = 0; i < ninsns; i++) {
			fprintf(f,
			        "\n%s, where the stack spends more than the "
			        "bounce loop (instructions per echo):\n\n| "
			        "function | more | stack | bounce "
			        "|\n|---|---|---|---|\n",
			        insns[i].nic);
			for (int k = 0; k < insns[i].nfn; k++)
				fprintf(f, "| `%s` | %.0f | %.0f | %.0f |\n",
				        insns[i].fn[k], insns[i].diff[k],
				        insns[i].in_echo[k],
				        insns[i].in_bounce[k]);
			if (insns[i].slow[0] != '\0')
				fprintf(
				    f,
				    "\nInstructions TCG runs out of line (a "
				    "helper call, or the end of a block), per "
				    "echo, stack / bounce: %s\n",
				    insns[i].slow);
			if (insns[i].blocks[0] != '\0')
				fprintf(
				    f,
				    "\nTranslated blocks executed per echo, "
				    "stack / bounce: %s\n",
				    insns[i].blocks);
		}
	}
	if (udp_costs[0] != '\0')
		fprintf(f,
		        "\nEvents per echo in the guest (its cpus command "
		        "before and after each phase; the phase's timer "
		        "ticks included), refmode=wait devref=atomic, every "
		        "round:\n\n%s",
		        udp_costs);
	if (tcp.n) {
		fprintf(f,
		        "\n## TCP bulk (tcp.ko), host clock, median Mbit/s"
		        "\n\n![tcp](tcp.png)\n\n| NIC | guest to host | host "
		        "to guest |\n|---|---|---|\n");
		print_rows(f, &tcp, 2, "%.1f");
	}
	if (rmm.n) {
		fprintf(
		    f,
		    "\n## rmmod e1000 under load (8 bound UDP sockets; K "
		    "holders that keep their reference 500 ms; M TIME_WAIT "
		    "connections of tcp.ko)\n\n![rmmod](rmmod.png)\n\n| "
		    "refmode, holders | M=0, host ms | M=%d "
		    "(tcp_unload_tw=wait) | M=%d (purge) |\n|---|---|---|---"
		    "|\n",
		    tw_count, tw_count);
		print_rows(f, &rmm, 3, "%.2f");
	}
	if (rmtcp.n) {
		fprintf(f,
		        "\n### then rmmod tcp, with the %d TIME_WAIT "
		        "(tcp_msl_ms=1000: 2 s each)\n\n"
		        "![rmmod-tcp](rmmod-tcp.png)\n\n| refmode, holders | "
		        "tcp_unload_tw=wait, host ms | purge, host ms "
		        "|\n|---|---|---|\n",
		        tw_count);
		print_rows(f, &rmtcp, 2, "%.2f");
	}
	fprintf(f, "\nEvery figure's run lines are in report.txt; the Linux "
	           "guest peer is `make bench-linux` (docs/bench.md).\n");
}

int
main(int argc, char **argv)
{
	static const char *const outputs[] = {"boot.txt", "typed.txt",
	                                      "udp.txt",  "insns.txt",
	                                      "tcp.txt",  "rmmod.txt"};
	FILE *md;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-report DIR\n");
		return 2;
	}
	if (chdir(argv[1]) != 0) {
		perror("bench-report: DIR");
		return 1;
	}
	txt = fopen("report.txt", "w");
	md = fopen("report.md.tmp", "w");
	if (txt == NULL || md == NULL) {
		perror("bench-report: cannot write the report");
		return 1;
	}
	each_line("logs/*.log", "bench:", on_bench, NULL);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		each_line(outputs[i], "bench:", on_bench, NULL);
	fclose(txt);
	each_line("logs/devref-[ap]*.log", "bench: devref:", on_devref, NULL);
	each_line("logs/devref-contended-*.log",
	          "bench: devref-contended:", on_contended, NULL);
	each_line("logs/modcycle-*.log", "modcycle:", on_modcycle, NULL);
	each_line("logs/rmmod-idle-*.log", "rmmod: e1000: unloaded",
	          on_idle_rmmod, NULL);
	each_line("logs/rmmod-first-*.log", "rmmod: ", on_first_rmmod, NULL);
	each_line("boot.txt", "bench: boot", on_boot, NULL);
	each_line("typed.txt", "bench: typed:", on_typed, NULL);
	each_line("udp.txt", "bench: udp", on_udp, NULL);
	each_line("insns.txt", "bench: insns:", on_insns, NULL);
	each_line("tcp.txt", "bench: tcp:", on_tcp, NULL);
	each_line("rmmod.txt", "bench: rmmod-", on_rmmod, NULL);
	plots();
	report(md);
	if (fclose(md) != 0 || rename("report.md.tmp", "report.md") != 0) {
		perror("bench-report: report.md");
		return 1;
	}
	printf("make bench: report in %s/report.md\n", argv[1]);
	return 0;
}
