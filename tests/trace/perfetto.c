/*
 * The timeline in Chrome/Perfetto JSON and in ftrace text (perfetto.h).
 *
 * JSON (the Trace Event Format): one process per CPU ("CPU n"), its
 * threads named, each event an instant on the thread that caused it;
 * one process "references" with a counter track per device and module
 * (ph C, the count after each event), an async slice per tracked holder
 * from its get to its put (ph b/e, id the holder, so overlapping holders
 * get rows of their own) and one per object from its registration or
 * load to its free (category "lifetime").  A holder whose get precedes
 * the trace begins at the trace's first event; one still held at the end
 * ends at the last, both marked in args.
 *
 * ftrace: the same as atrace markers (tracing_mark_write: C| S| F| I|),
 * which Perfetto and systrace read.
 */
#include "tests/trace/perfetto.h"
#include "tests/harness/util.h"
#include "tests/lava/json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define REFS_PID 1000 /* the "references" process */

struct slice {
	char cat[48];
	char name[48];
	uint32_t id;
	bool open;
};

struct writer {
	const struct tracelog *t;
	FILE *out;
	bool json, first;
	struct slice *sl;
	size_t nsl, cap;
	uint64_t t0, tend;
	unsigned tid; /* ftrace: the thread of the event being written */
	unsigned cpu;
};

static void
put_str(FILE *out, const char *s)
{
	struct strbuf sb;

	sb_init(&sb);
	json_quote(&sb, s);
	fwrite(sb.buf, 1, sb.len, out);
	sb_free(&sb);
}

static void
sep(struct writer *w)
{
	fputs(w->first ? "\n" : ",\n", w->out);
	w->first = false;
}

static void
json_ts(struct writer *w, uint64_t ns)
{
	fprintf(w->out, "\"ts\":%" PRIu64 ".%03u", ns / 1000,
	        (unsigned)(ns % 1000));
}

static void
ftrace_line(struct writer *w, uint64_t ns, const char *marker)
{
	const char *task = tr_thread_name(w->t, w->tid);
	char tname[32];

	snprintf(tname, sizeof(tname), "%s", task != NULL ? task : "kernel");
	fprintf(w->out,
	        "%16.16s-%-5u [%03u] .... %5" PRIu64 ".%06u: "
	        "tracing_mark_write: %s\n",
	        tname, w->tid, w->cpu, ns / 1000000000u,
	        (unsigned)(ns % 1000000000u / 1000u), marker);
}

/* Are a and b the same once written as JSON strings?  Bytes that are no
 * UTF-8 each become U+FFFD there, so two names the dump spells apart
 * can be one to a reader of the JSON (the fuzzer's find). */
static bool
same_json(const char *a, const char *b)
{
	struct strbuf qa, qb;
	bool same;

	if (strcmp(a, b) == 0)
		return true;
	sb_init(&qa);
	sb_init(&qb);
	json_quote(&qa, a);
	json_quote(&qb, b);
	same = qa.len == qb.len && memcmp(qa.buf, qb.buf, qa.len) == 0;
	sb_free(&qa);
	sb_free(&qb);
	return same;
}

static struct slice *
find_slice(struct writer *w, const char *cat, uint32_t id)
{
	for (size_t i = 0; i < w->nsl; i++)
		if (w->sl[i].open && w->sl[i].id == id &&
		    same_json(w->sl[i].cat, cat))
			return &w->sl[i];
	return NULL;
}

static void
slice_edge(struct writer *w, struct slice *s, bool begin, uint64_t ns,
           const char *note)
{
	char m[160];

	if (w->json) {
		sep(w);
		fprintf(w->out, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":0,",
		        begin ? "b" : "e", REFS_PID);
		json_ts(w, ns);
		fputs(",\"cat\":", w->out);
		put_str(w->out, s->cat);
		fputs(",\"name\":", w->out);
		put_str(w->out, s->name);
		fprintf(w->out, ",\"id\":\"0x%08x\"", (unsigned)s->id);
		if (note != NULL)
			fprintf(w->out, ",\"args\":{\"%s\":true}", note);
		fputc('}', w->out);
		return;
	}
	snprintf(m, sizeof(m), "%c|1|%s %s|%u", begin ? 'S' : 'F', s->cat,
	         s->name, (unsigned)s->id);
	ftrace_line(w, ns, m);
}

static void
slice_begin(struct writer *w, const char *cat, const char *name, uint32_t id,
            uint64_t ns, const char *note)
{
	struct slice *s = find_slice(w, cat, id);

	if (s != NULL) { /* taken again while held: close the first */
		slice_edge(w, s, false, ns, "held_again");
		s->open = false;
	}
	w->sl = tr_grow(w->sl, &w->cap, w->nsl, sizeof(*w->sl));
	s = &w->sl[w->nsl++];
	snprintf(s->cat, sizeof(s->cat), "%s", cat);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->id = id;
	s->open = true;
	slice_edge(w, s, true, ns, note);
}

static bool
seen_slice(struct writer *w, const char *cat, uint32_t id)
{
	for (size_t i = 0; i < w->nsl; i++)
		if (w->sl[i].id == id && same_json(w->sl[i].cat, cat))
			return true;
	return false;
}

static void
slice_end(struct writer *w, const char *cat, const char *name, uint32_t id,
          uint64_t ns)
{
	struct slice *s = find_slice(w, cat, id);

	/* A put without its get: taken before the trace began, or (the
	 * holder held before, in the trace) a get the ring lost. */
	if (s == NULL) {
		bool again = seen_slice(w, cat, id);
		slice_begin(w, cat, name, id, again ? ns : w->t0,
		            again ? "get_not_traced" : "before_trace");
	}
	s = find_slice(w, cat, id);
	slice_edge(w, s, false, ns, NULL);
	s->open = false;
}

static void
counter(struct writer *w, const char *track, int value, uint64_t ns)
{
	char m[96];

	if (w->json) {
		sep(w);
		fprintf(w->out, "{\"ph\":\"C\",\"pid\":%d,\"tid\":0,",
		        REFS_PID);
		json_ts(w, ns);
		fputs(",\"name\":", w->out);
		put_str(w->out, track);
		fprintf(w->out, ",\"args\":{\"refcnt\":%d}}", value);
		return;
	}
	snprintf(m, sizeof(m), "C|1|%s|%d", track, value);
	ftrace_line(w, ns, m);
}

static void
instant(struct writer *w, const struct tr_event *e, const char *track)
{
	char m[160];

	if (w->json) {
		sep(w);
		fprintf(w->out,
		        "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,",
		        e->cpu + 1, e->tid);
		json_ts(w, e->ns);
		fputs(",\"cat\":", w->out);
		put_str(w->out, tr_kind_name(e->kind));
		snprintf(m, sizeof(m), "%s %s %s", tr_kind_name(e->kind), track,
		         e->tag);
		fputs(",\"name\":", w->out);
		put_str(w->out, m);
		fprintf(w->out, ",\"args\":{\"seq\":%u,", e->seq);
		fprintf(w->out, "\"holder\":\"0x%08x\",\"count\":%d,\"site\":",
		        (unsigned)e->holder, e->count);
		put_str(w->out, e->site);
		fputs("}}", w->out);
		return;
	}
	snprintf(m, sizeof(m), "I|1|%s %s %s", tr_kind_name(e->kind), track,
	         e->tag);
	ftrace_line(w, e->ns, m);
}

static bool
is_phase(const struct tr_event *e, const char *a, const char *b)
{
	return tr_is_phase(e->kind) && (strcmp(e->tag, a) == 0 ||
	                                (b != NULL && strcmp(e->tag, b) == 0));
}

static void
one_event(struct writer *w, const struct tr_event *e)
{
	char track[48];

	tr_track(e, track, sizeof(track));
	w->tid = e->tid;
	w->cpu = e->cpu;
	instant(w, e, track);
	if (e->kind == TR_SOCK_PHASE)
		return;
	if (e->holder != 0 && tr_is_get(e->kind))
		slice_begin(w, track, e->tag, e->holder, e->ns, NULL);
	else if (e->holder != 0 && tr_is_put(e->kind))
		slice_end(w, track, e->tag, e->holder, e->ns);
	if (is_phase(e, "register", e->kind == TR_MOD_PHASE ? "load" : NULL) ||
	    (is_phase(e, "traced", NULL) &&
	     find_slice(w, "lifetime", e->obj) == NULL))
		slice_begin(w, "lifetime", track, e->obj, e->ns,
		            strcmp(e->tag, "traced") == 0 ? "before_trace"
		                                          : NULL);
	counter(w, track, e->count, e->ns);
	if (is_phase(e, "free", NULL) && find_slice(w, "lifetime", e->obj))
		slice_end(w, "lifetime", track, e->obj, e->ns);
}

static void
metadata(struct writer *w)
{
	bool cpu_seen[256] = {false};

	sep(w);
	fprintf(w->out,
	        "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":"
	        "\"process_name\",\"args\":{\"name\":\"references\"}}",
	        REFS_PID);
	for (size_t i = 0; i < w->t->nev; i++) {
		const struct tr_event *e = &w->t->ev[i];
		const char *tn = tr_thread_name(w->t, e->tid);
		bool again = false;

		if (!cpu_seen[e->cpu & 255]) {
			cpu_seen[e->cpu & 255] = true;
			sep(w);
			fprintf(w->out,
			        "{\"ph\":\"M\",\"pid\":%u,\"tid\":0,"
			        "\"name\":\"process_name\",\"args\":{"
			        "\"name\":\"CPU %u\"}}",
			        e->cpu + 1, e->cpu);
		}
		for (size_t j = 0; j < i && !again; j++)
			again = w->t->ev[j].cpu == e->cpu &&
			        w->t->ev[j].tid == e->tid;
		if (again)
			continue;
		sep(w);
		fprintf(w->out,
		        "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":"
		        "\"thread_name\",\"args\":{\"name\":",
		        e->cpu + 1, e->tid);
		if (tn != NULL) {
			put_str(w->out, tn);
		} else {
			char n[24];
			snprintf(n, sizeof(n), "tid %u", e->tid);
			put_str(w->out, n);
		}
		fputs("}}", w->out);
	}
}

static void
walk(struct writer *w)
{
	w->t0 = w->t->nev ? w->t->ev[0].ns : 0;
	w->tend = w->t->nev ? w->t->ev[w->t->nev - 1].ns : 0;
	for (size_t i = 0; i < w->t->nev; i++)
		one_event(w, &w->t->ev[i]);
	w->tid = 0;
	for (size_t i = 0; i < w->nsl; i++)
		if (w->sl[i].open) {
			slice_edge(w, &w->sl[i], false, w->tend, "open_at_end");
			w->sl[i].open = false;
		}
	free(w->sl);
}

void
perfetto_write_json(const struct tracelog *t, FILE *out)
{
	struct writer w = {.t = t, .out = out, .json = true, .first = true};

	fprintf(out,
	        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":"
	        "\"modref\",\"events\":%u,\"lost\":%u,\"complete\":%s},"
	        "\n\"traceEvents\":[",
	        t->events, t->lost, t->complete ? "true" : "false");
	metadata(&w);
	walk(&w);
	fputs("\n]}\n", out);
}

void
perfetto_write_ftrace(const struct tracelog *t, FILE *out)
{
	struct writer w = {.t = t, .out = out, .json = false};

	fprintf(out,
	        "# tracer: nop\n#\n# entries-in-buffer/entries-written: "
	        "%zu/%u   #P:%u\n#\n"
	        "#           TASK-PID     CPU#  ||||   TIMESTAMP  "
	        "FUNCTION\n"
	        "#              | |         |   ||||      |         |\n",
	        t->nev, t->events + t->lost, t->cpus);
	walk(&w);
}
