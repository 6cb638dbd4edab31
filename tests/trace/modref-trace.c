/*
 * modref-trace: the reference timeline a kernel printed (`trace dump`, a
 * panic, a failed stress run: kernel/debug/trace.c), turned into files a
 * trace viewer opens, checked, and asked the question it exists for.
 *
 *   modref-trace json LOG [OUT]      Chrome/Perfetto JSON (default stdout)
 *   modref-trace ftrace LOG [OUT]    ftrace text with atrace markers
 *   modref-trace check JSON [LOG]    the format's rules; with LOG, every
 *                                    counter ends at the kernel's count
 *   modref-trace outlive LOG         device references still held when
 *                                    the device's driver module was freed
 *                                    (exit 0 if any, 1 if none)
 *
 * docs/trace.md describes the formats.  Exit status 2: bad input, with
 * one line on stderr naming the problem.
 */
#include "tests/harness/util.h"
#include "tests/trace/perfetto.h"
#include "tests/trace/tracecheck.h"
#include "tests/trace/tracelog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
usage(void)
{
	fprintf(stderr, "usage: modref-trace json|ftrace LOG [OUT] | check "
	                "JSON [LOG] | outlive LOG\n");
	return 2;
}

static int
read_log(const char *path, struct tracelog *t)
{
	char err[512];

	if (tracelog_read(path, t, err, sizeof(err)) < 0) {
		fprintf(stderr, "modref-trace: %s\n", err);
		return -1;
	}
	if (!t->complete)
		fprintf(stderr,
		        "modref-trace: %s: the trace has no end line "
		        "(cut short); converting what is there\n",
		        path);
	return 0;
}

static int
convert(const char *log, const char *out_path, bool json)
{
	struct tracelog t;
	FILE *out = stdout;

	if (read_log(log, &t) < 0)
		return 2;
	if (out_path != NULL && (out = fopen(out_path, "w")) == NULL) {
		fprintf(stderr, "modref-trace: %s: %s\n", out_path,
		        strerror(errno));
		tracelog_free(&t);
		return 2;
	}
	if (json)
		perfetto_write_json(&t, out);
	else
		perfetto_write_ftrace(&t, out);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "modref-trace: %s: %s\n", out_path,
		        strerror(errno));
		tracelog_free(&t);
		return 2;
	}
	tracelog_free(&t);
	return 0;
}

static int
check(const char *json_path, const char *log)
{
	struct tracelog t, *counts = NULL;
	char err[512];
	size_t n;
	size_t len;
	char *text = read_file_n(json_path, &len);
	int r;

	if (text == NULL) {
		fprintf(stderr, "modref-trace: %s: %s\n", json_path,
		        strerror(errno));
		return 2;
	}
	if (strlen(text) != len) { /* a NUL inside: not JSON text */
		fprintf(stderr, "modref-trace: %s: a NUL byte: not JSON text\n",
		        json_path);
		free(text);
		return 2;
	}
	if (log != NULL) {
		if (read_log(log, &t) < 0) {
			free(text);
			return 2;
		}
		counts = &t;
	}
	r = tracecheck(text, counts, &n, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "modref-trace: %s: %s\n", json_path, err);
	else
		printf("modref-trace: %s: %zu events, format ok%s\n", json_path,
		       n,
		       counts ? ", counters end at the kernel's counts" : "");
	free(text);
	if (counts != NULL)
		tracelog_free(counts);
	return r < 0 ? 1 : 0;
}

/* The module a device belongs to: its register (or traced) phase names
 * the owner's object as the holder. */
static uint32_t
owner_of(const struct tracelog *t, uint32_t dev)
{
	uint32_t owner = 0;

	for (size_t i = 0; i < t->nev; i++)
		if (t->ev[i].kind == TR_DEV_PHASE && t->ev[i].obj == dev &&
		    (strcmp(t->ev[i].tag, "register") == 0 ||
		     strcmp(t->ev[i].tag, "traced") == 0))
			owner = t->ev[i].holder;
	return owner;
}

/* When the held reference (dev, holder) taken at event i was dropped:
 * the index of its put, or t->nev if never. */
static size_t
put_of(const struct tracelog *t, size_t i)
{
	for (size_t j = i + 1; j < t->nev; j++)
		if (t->ev[j].obj == t->ev[i].obj &&
		    t->ev[j].holder == t->ev[i].holder &&
		    (t->ev[j].kind == TR_DEV_PUT ||
		     t->ev[j].kind == TR_DEV_HOLD))
			return t->ev[j].kind == TR_DEV_PUT ? j : t->nev;
	return t->nev;
}

static double
secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* Each tracked device reference held across its owner's free. */
static int
outlive(const char *log)
{
	struct tracelog t;
	int found = 0;

	if (read_log(log, &t) < 0)
		return 2;
	for (size_t f = 0; f < t.nev; f++) {
		const struct tr_event *free_ev = &t.ev[f];

		if (free_ev->kind != TR_MOD_PHASE ||
		    strcmp(free_ev->tag, "free") != 0)
			continue;
		for (size_t i = 0; i < f; i++) {
			const struct tr_event *h = &t.ev[i];
			size_t p;

			if (h->kind != TR_DEV_HOLD || h->holder == 0 ||
			    owner_of(&t, h->obj) != free_ev->obj)
				continue;
			p = put_of(&t, i);
			if (p < f)
				continue;
			found++;
			printf("outlive: dev %s holder 0x%08x (%s) taken at "
			       "%.6f s by %s, ",
			       h->name, (unsigned)h->holder, h->tag,
			       secs(h->ns), h->site);
			if (p < t.nev)
				printf("dropped at %.6f s by %s; ",
				       secs(t.ev[p].ns), t.ev[p].site);
			else
				printf("still held at the end; ");
			printf("module %s freed at %.6f s\n", free_ev->name,
			       secs(free_ev->ns));
		}
	}
	if (found == 0)
		printf("outlive: no device reference outlived its driver\n");
	tracelog_free(&t);
	return found != 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "json") == 0 && argc <= 4)
		return convert(argv[2], argc == 4 ? argv[3] : NULL, true);
	if (strcmp(argv[1], "ftrace") == 0 && argc <= 4)
		return convert(argv[2], argc == 4 ? argv[3] : NULL, false);
	if (strcmp(argv[1], "check") == 0 && argc <= 4)
		return check(argv[2], argc == 4 ? argv[3] : NULL);
	if (strcmp(argv[1], "outlive") == 0 && argc == 3)
		return outlive(argv[2]);
	return usage();
}
