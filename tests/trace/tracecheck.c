/*
 * The trace checker (tracecheck.h), over the JSON reader of
 * tests/lava/json.h.  Tracks: instants and complete slices by (pid, tid),
 * counters by (pid, name), async slices by (pid, cat, id).
 */
#include "tests/trace/tracecheck.h"
#include "tests/lava/json.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct track {
	char key[160];
	double last_ts;
	int open;          /* async: begins not yet ended */
	double last_value; /* counter */
};

struct checker {
	struct track *tr;
	size_t ntr, cap;
	char *err;
	size_t errlen;
	size_t index; /* of the event being checked */
};

static int
bad(struct checker *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "traceEvents[%zu]: %s", c->index, msg);
	return -1;
}

static struct track *
track(struct checker *c, const char *key)
{
	for (size_t i = 0; i < c->ntr; i++)
		if (strcmp(c->tr[i].key, key) == 0)
			return &c->tr[i];
	c->tr = tr_grow(c->tr, &c->cap, c->ntr, sizeof(*c->tr));
	memset(&c->tr[c->ntr], 0, sizeof(c->tr[0]));
	snprintf(c->tr[c->ntr].key, sizeof(c->tr[0].key), "%s", key);
	c->tr[c->ntr].last_ts = -1;
	return &c->tr[c->ntr++];
}

static bool
number(const struct json *j, double *v)
{
	char *end;

	if (j == NULL || j->type != J_NUM)
		return false;
	*v = strtod(j->str, &end);
	return *end == '\0';
}

static const char *
id_of(const struct json *ev)
{
	const struct json *id = json_get(ev, "id");

	if (id == NULL)
		return NULL;
	return id->type == J_STR || id->type == J_NUM ? id->str : NULL;
}

/* One event; ph is known to be a string. */
static int
check_event(struct checker *c, const struct json *ev, const char *ph)
{
	char key[160];
	double ts, pid, tid = 0, v;
	const char *name = json_str(ev, "name");
	struct track *t;

	if (!number(json_get(ev, "pid"), &pid))
		return bad(c, "no numeric pid");
	if (json_get(ev, "tid") != NULL && !number(json_get(ev, "tid"), &tid))
		return bad(c, "tid is not a number");
	if (strcmp(ph, "M") == 0) {
		if (name == NULL || json_get(ev, "args") == NULL)
			return bad(c, "metadata without name or args");
		return 0;
	}
	if (!number(json_get(ev, "ts"), &ts) || ts < 0)
		return bad(c, "no timestamp (ts) or a negative one");
	if (name == NULL)
		return bad(c, "ph %s without a name", ph);
	if (strcmp(ph, "C") == 0) {
		const struct json *args = json_get(ev, "args"), *a;
		if (args == NULL || args->type != J_OBJ || args->child == NULL)
			return bad(c, "counter '%s' without args", name);
		for (a = args->child; a != NULL; a = a->next)
			if (!number(a, &v))
				return bad(c,
				           "counter '%s': '%s' is not a number",
				           name, a->key);
		snprintf(key, sizeof(key), "C %.0f %s", pid, name);
	} else if (strcmp(ph, "b") == 0 || strcmp(ph, "e") == 0) {
		const char *cat = json_str(ev, "cat"), *id = id_of(ev);
		if (cat == NULL || id == NULL)
			return bad(c, "async '%s' without cat or id", name);
		snprintf(key, sizeof(key), "A %.0f %s %s", pid, cat, id);
	} else if (strcmp(ph, "i") == 0 || strcmp(ph, "I") == 0 ||
	           strcmp(ph, "X") == 0 || strcmp(ph, "B") == 0 ||
	           strcmp(ph, "E") == 0) {
		snprintf(key, sizeof(key), "T %.0f %.0f", pid, tid);
	} else {
		return bad(c, "unknown phase '%s'", ph);
	}
	t = track(c, key);
	if (ts < t->last_ts)
		return bad(c,
		           "timestamp %.3f before the track's previous %.3f "
		           "(%s)",
		           ts, t->last_ts, key);
	t->last_ts = ts;
	if (strcmp(ph, "b") == 0 && t->open++ != 0)
		return bad(c, "async begin while the same id is open (%s)",
		           key);
	if (strcmp(ph, "e") == 0 && t->open-- == 0)
		return bad(c, "async end without a begin (%s)", key);
	if (strcmp(ph, "C") == 0)
		number(json_get(ev, "args")->child, &t->last_value);
	return 0;
}

/* Every b ended; each counter of the kernel's counts ends there. */
static int
check_end(struct checker *c, const struct tracelog *counts)
{
	for (size_t i = 0; i < c->ntr; i++)
		if (c->tr[i].open != 0) {
			snprintf(c->err, c->errlen,
			         "async begin without an end (%s)",
			         c->tr[i].key);
			return -1;
		}
	for (size_t i = 0; counts != NULL && i < counts->ncnt; i++) {
		const struct tr_count *n = &counts->cnt[i];
		char key[160];
		struct track *t;

		snprintf(key, sizeof(key), "C 1000 %s %s",
		         n->dev ? "dev" : "mod", n->name);
		t = track(c, key);
		if (t->last_ts < 0)
			continue; /* no event of it in the trace */
		if ((int)t->last_value != n->count) {
			snprintf(
			    c->err, c->errlen,
			    "counter '%s' ends at %d, the kernel counted %d",
			    key + 7, (int)t->last_value, n->count);
			return -1;
		}
	}
	return 0;
}

int
tracecheck(const char *text, const struct tracelog *counts, size_t *nevents,
           char *err, size_t errlen)
{
	struct checker c = {.err = err, .errlen = errlen};
	struct json *root = json_parse(text, err, errlen);
	const struct json *evs, *ev;
	int r = 0;

	*nevents = 0;
	if (root == NULL)
		return -1;
	evs = json_get(root, "traceEvents");
	if (root->type != J_OBJ || evs == NULL || evs->type != J_ARR) {
		snprintf(err, errlen, "no traceEvents array");
		json_free(root);
		return -1;
	}
	for (ev = evs->child; ev != NULL && r == 0; ev = ev->next, c.index++) {
		const char *ph = ev->type == J_OBJ ? json_str(ev, "ph") : NULL;
		r = ph == NULL ? bad(&c, "not an object with a ph string")
		               : check_event(&c, ev, ph);
	}
	*nevents = c.index;
	if (r == 0 && c.index == 0) {
		snprintf(err, errlen, "traceEvents is empty");
		r = -1;
	}
	if (r == 0)
		r = check_end(&c, counts);
	free(c.tr);
	json_free(root);
	return r;
}
