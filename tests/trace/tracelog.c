/*
 * Reading the kernel's trace dump (tracelog.h).  The format is the one
 * kernel/debug/trace.c documents; a block starts at `trace: begin` and
 * ends at `trace: end`.  Lines of other output between them (a message
 * another CPU printed during a dump) are not trace lines and are skipped;
 * a line that starts like a trace line but does not parse is an error.
 */
#include "tests/trace/tracelog.h"
#include "tests/harness/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 4096

static const char *const kind_names[TR_NKINDS] = {
    "dev-hold", "dev-put",   "dev-phase", "mod-get",
    "mod-put",  "mod-phase", "sock-phase"};

const char *
tr_kind_name(enum tr_kind k)
{
	return k < TR_NKINDS ? kind_names[k] : "?";
}

bool
tr_is_dev(enum tr_kind k)
{
	return k == TR_DEV_HOLD || k == TR_DEV_PUT || k == TR_DEV_PHASE;
}

bool
tr_is_get(enum tr_kind k)
{
	return k == TR_DEV_HOLD || k == TR_MOD_GET;
}

bool
tr_is_put(enum tr_kind k)
{
	return k == TR_DEV_PUT || k == TR_MOD_PUT;
}

bool
tr_is_phase(enum tr_kind k)
{
	return k == TR_DEV_PHASE || k == TR_MOD_PHASE || k == TR_SOCK_PHASE;
}

void
tr_track(const struct tr_event *e, char *buf, size_t size)
{
	const char *what = tr_is_dev(e->kind)         ? "dev"
	                   : e->kind == TR_SOCK_PHASE ? "tcp"
	                                              : "mod";

	snprintf(buf, size, "%s %s", what, e->name);
}

const char *
tr_thread_name(const struct tracelog *t, unsigned tid)
{
	for (size_t i = 0; i < t->nth; i++)
		if (t->th[i].tid == tid)
			return t->th[i].name;
	return NULL;
}

void
tracelog_free(struct tracelog *t)
{
	free(t->ev);
	free(t->th);
	free(t->cnt);
	memset(t, 0, sizeof(*t));
}

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void *
tr_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap != 0 ? *cap * 2 : 256;
	return xrealloc(p, *cap * size);
}

/* A word of at most size-1 bytes, or false. */
static bool
word(char **s, char *out, size_t size)
{
	char *w = strtok_r(NULL, " ", s);

	if (w == NULL || strlen(w) >= size)
		return false;
	strcpy(out, w);
	return true;
}

static bool
num(char **s, long long lo, long long hi, int base, long long *v)
{
	char *w = strtok_r(NULL, " ", s), *end;

	if (w == NULL)
		return false;
	errno = 0;
	*v = strtoll(w, &end, base);
	return errno == 0 && *end == '\0' && end != w && *v >= lo && *v <= hi;
}

static bool
parse_event(char *rest, struct tr_event *e)
{
	char kind[16], *s = rest;
	long long v[8];

	/* strtok_r needs a first call with the string */
	if (strtok_r(s, " ", &s) == NULL) /* "e" */
		return false;
	if (!num(&s, 1, UINT32_MAX, 10, &v[0]))
		return false;
	{
		char *w = strtok_r(NULL, " ", &s), *end;
		if (w == NULL || strlen(w) > 20)
			return false;
		errno = 0;
		e->ns = strtoull(w, &end, 10);
		if (errno != 0 || *end != '\0' || end == w)
			return false;
	}
	if (!num(&s, 0, 255, 10, &v[1]) || !num(&s, 0, 65535, 10, &v[2]) ||
	    !word(&s, kind, sizeof(kind)) ||
	    !word(&s, e->name, sizeof(e->name)) ||
	    !num(&s, 0, UINT32_MAX, 16, &v[3]) ||
	    !num(&s, 0, UINT32_MAX, 16, &v[4]) ||
	    !word(&s, e->tag, sizeof(e->tag)) ||
	    !num(&s, -1000000, 1000000, 10, &v[5]) ||
	    !num(&s, -1000000000, 1000000000, 10, &v[6]))
		return false;
	e->seq = (unsigned)v[0];
	e->cpu = (unsigned)v[1];
	e->tid = (unsigned)v[2];
	e->obj = (uint32_t)v[3];
	e->holder = (uint32_t)v[4];
	e->delta = (int)v[5];
	e->count = (int)v[6];
	e->kind = TR_NKINDS;
	for (int k = 0; k < TR_NKINDS; k++)
		if (strcmp(kind, kind_names[k]) == 0)
			e->kind = (enum tr_kind)k;
	if (e->kind == TR_NKINDS)
		return false;
	/* the site: the rest of the line, spaces and all */
	while (*s == ' ')
		s++;
	if (*s == '\0' || strlen(s) >= sizeof(e->site))
		return false;
	strcpy(e->site, s);
	return true;
}

static int
by_time(const void *a, const void *b)
{
	const struct tr_event *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct reader {
	struct tracelog *t;
	size_t cap_ev, cap_th, cap_cnt;
	bool in;
	unsigned lineno;
};

/* One line inside a block (after "trace: "). */
static bool
block_line(struct reader *r, char *rest)
{
	struct tracelog *t = r->t;
	char what[8], name[32];
	long long n, obj;
	char *s = rest;

	if (strncmp(rest, "e ", 2) == 0) {
		t->ev = tr_grow(t->ev, &r->cap_ev, t->nev, sizeof(*t->ev));
		memset(&t->ev[t->nev], 0, sizeof(t->ev[0]));
		if (!parse_event(rest, &t->ev[t->nev]))
			return false;
		t->nev++;
		return true;
	}
	if (strncmp(rest, "thread ", 7) == 0) {
		strtok_r(s, " ", &s);
		t->th = tr_grow(t->th, &r->cap_th, t->nth, sizeof(*t->th));
		if (!num(&s, 0, 65535, 10, &n) ||
		    !word(&s, t->th[t->nth].name, sizeof(t->th[0].name)) ||
		    strtok_r(NULL, " ", &s) != NULL)
			return false;
		t->th[t->nth++].tid = (unsigned)n;
		return true;
	}
	if (strncmp(rest, "count ", 6) == 0) {
		strtok_r(s, " ", &s);
		t->cnt = tr_grow(t->cnt, &r->cap_cnt, t->ncnt, sizeof(*t->cnt));
		if (!word(&s, what, sizeof(what)) ||
		    (strcmp(what, "dev") != 0 && strcmp(what, "mod") != 0) ||
		    !word(&s, name, sizeof(name)) ||
		    !num(&s, 0, UINT32_MAX, 16, &obj) ||
		    !num(&s, -1000000000, 1000000000, 10, &n) ||
		    strtok_r(NULL, " ", &s) != NULL)
			return false;
		t->cnt[t->ncnt].dev = what[0] == 'd';
		strcpy(t->cnt[t->ncnt].name, name);
		t->cnt[t->ncnt].obj = (uint32_t)obj;
		t->cnt[t->ncnt++].count = (int)n;
		return true;
	}
	return false;
}

static void
begin_block(struct reader *r, const char *rest)
{
	struct tracelog *t = r->t;
	unsigned ev, lost, cpus;

	/* a later block replaces an earlier one */
	t->nev = t->nth = t->ncnt = 0;
	t->complete = false;
	if (sscanf(rest, "begin events=%u lost=%u cpus=%u", &ev, &lost,
	           &cpus) == 3) {
		t->events = ev;
		t->lost = lost;
		t->cpus = cpus;
	}
	r->in = true;
}

int
tracelog_read(const char *path, struct tracelog *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int r;

	if (f == NULL) {
		memset(t, 0, sizeof(*t));
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	}
	r = tracelog_read_file(f, path, t, err, errlen);
	fclose(f);
	return r;
}

int
tracelog_read_file(FILE *f, const char *path, struct tracelog *t, char *err,
                   size_t errlen)
{
	struct reader r = {.t = t};
	char line[LINE_MAX_LEN], copy[LINE_MAX_LEN]; /* parsing cuts it */
	bool seen = false;

	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);
		char *p;

		r.lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			tracelog_free(t);
			return fail(err, errlen,
			            "%s: line %u: longer than %d bytes", path,
			            r.lineno, LINE_MAX_LEN - 2);
		}
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = strstr(line, "trace: ");
		if (p == NULL || p != line)
			continue;
		p += 7;
		if (strncmp(p, "begin ", 6) == 0) {
			begin_block(&r, p);
			seen = true;
		} else if (r.in && strcmp(p, "end") == 0) {
			r.in = false;
			t->complete = true;
		} else if (r.in && !block_line(&r, strcpy(copy, p))) {
			tracelog_free(t);
			return fail(err, errlen,
			            "%s: line %u: malformed trace line '%.80s'",
			            path, r.lineno, line);
		}
	}
	if (!seen) {
		tracelog_free(t);
		return fail(err, errlen,
		            "%s: no trace (no 'trace: begin' line)", path);
	}
	if (t->nev > 1)
		qsort(t->ev, t->nev, sizeof(*t->ev), by_time);
	return 0;
}
