/*
 * KTAP v1 parser (see ktap.h).  Case names are built bottom-up: a leaf
 * result records its own name, and when the suite's result line arrives
 * at the parent's indentation every case made inside it gets the suite
 * name as a prefix.  That way "# Subtest:" lines are optional, as they are
 * in older KUnit output.
 */
#include "tests/harness/ktap.h"
#include "tests/harness/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ktap_init(struct ktap *k)
{
	memset(k, 0, sizeof(*k));
}

void
ktap_free(struct ktap *k)
{
	for (int i = 0; i < k->depth; i++) {
		free(k->lv[i].name);
		free(k->lv[i].pending);
	}
	for (int i = 0; i < k->ncases; i++) {
		free(k->cases[i].name);
		free(k->cases[i].reason);
	}
	for (int i = 0; i < k->nsuites; i++)
		free(k->suites[i]);
	free(k->cases);
	free(k->suites);
	memset(k, 0, sizeof(*k));
}

static int
add_case(struct ktap *k, const char *name, enum ktap_status st,
         const char *reason)
{
	struct ktap_case *c;

	k->cases = xrealloc(k->cases, (size_t)(k->ncases + 1) * sizeof(*c));
	c = &k->cases[k->ncases];
	c->name = xstrdup(name);
	c->status = st;
	c->reason = xstrdup(reason ? reason : "");
	return k->ncases++;
}

static void
append_line(char **dst, const char *line)
{
	char *old = *dst;

	*dst = old && *old ? xasprintf("%s; %s", old, line) : xstrdup(line);
	free(old);
}

static void
push(struct ktap *k, int indent)
{
	struct ktap_level *l;

	if (k->depth == KTAP_MAX_DEPTH)
		return;
	l = &k->lv[k->depth++];
	memset(l, 0, sizeof(*l));
	l->indent = indent;
	l->plan = -1;
	l->first_case = k->ncases;
	l->last_case = -1;
}

static struct ktap_level *
top(struct ktap *k)
{
	return k->depth ? &k->lv[k->depth - 1] : NULL;
}

static void
remember_suite(struct ktap *k, const char *name)
{
	k->suites =
	    xrealloc(k->suites, (size_t)(k->nsuites + 1) * sizeof(char *));
	k->suites[k->nsuites++] = xstrdup(name);
}

static bool
failed_in(const struct ktap *k, int from)
{
	for (int i = from; i < k->ncases; i++)
		if (k->cases[i].status == KTAP_FAIL)
			return true;
	return false;
}

static void
prefix_cases(struct ktap *k, int from, const char *suite)
{
	for (int i = from; i < k->ncases; i++) {
		char *n = xasprintf("%s.%s", suite, k->cases[i].name);

		free(k->cases[i].name);
		k->cases[i].name = n;
	}
}

/* Add a crashed case for every planned test that never reported. */
static void
add_missing(struct ktap *k, struct ktap_level *l, int open_child,
            const char *why)
{
	char *reason =
	    xasprintf("crashed: no result line%s%s%s", why ? " (" : "",
	              why ? why : "", why ? ")" : "");

	if (l->plan < 0 && l->nresults == 0 && k->ncases == l->first_case &&
	    !open_child) {
		add_case(k, "(no plan)", KTAP_FAIL, reason);
	}
	for (int n = l->nresults + 1 + open_child; n <= l->plan; n++) {
		char name[32];

		snprintf(name, sizeof(name), "#%d", n);
		add_case(k, name, KTAP_FAIL, reason);
	}
	free(reason);
}

/*
 * A level ends without its result line; its cases still get a name, from
 * "# Subtest:" or the test number the parent would have given it.
 */
static void
close_truncated(struct ktap *k, const char *why)
{
	struct ktap_level *l = top(k), *parent;
	char *name;

	add_missing(k, l, 0, why);
	k->depth--;
	parent = top(k);
	name = l->name ? xstrdup(l->name)
	               : xasprintf("#%d", parent ? parent->nresults + 1 : 1);
	if (parent != NULL) {
		remember_suite(k, name);
		prefix_cases(k, l->first_case, name);
	}
	free(name);
	free(l->name);
	free(l->pending);
	l->name = l->pending = NULL;
}

void
ktap_finish(struct ktap *k, const char *why)
{
	if (!k->started || k->done)
		return;
	while (k->depth > 1) {
		struct ktap_level *parent = &k->lv[k->depth - 2];

		close_truncated(k, why);
		/* The open child was one of the parent's planned tests. */
		parent->nresults++;
	}
	if (k->depth == 1) {
		add_missing(k, top(k), 0, why);
		free(top(k)->name);
		free(top(k)->pending);
		top(k)->name = top(k)->pending = NULL;
		k->depth = 0;
	}
	k->done = true;
}

/* "ok N name # directive" / "not ok N name # directive". */
static bool
parse_result(const char *s, bool *ok, int *num, char **name, char **dir)
{
	const char *p = s, *hash;
	char *end;

	if (starts_with(p, "ok ") || strcmp(p, "ok") == 0) {
		*ok = true;
		p += 2;
	} else if (starts_with(p, "not ok ") || strcmp(p, "not ok") == 0) {
		*ok = false;
		p += 6;
	} else {
		return false;
	}
	while (*p == ' ')
		p++;
	*num = (int)strtol(p, &end, 10);
	if (end == p)
		return false;
	p = end;
	while (*p == ' ' || *p == '-')
		p++;
	hash = strstr(p, " #");
	if (hash == NULL && *p == '#')
		hash = p - 1;
	*name = xstrndup(p, hash ? (size_t)(hash - p) : strlen(p));
	trim(*name);
	*dir = NULL;
	if (hash != NULL) {
		while (*hash == ' ' || *hash == '#')
			hash++;
		*dir = xstrdup(hash);
		trim(*dir);
	}
	return true;
}

static void
leaf_result(struct ktap *k, struct ktap_level *l, bool ok, const char *name,
            const char *dir)
{
	enum ktap_status st = ok ? KTAP_PASS : KTAP_FAIL;
	const char *reason = ok ? "" : l->pending;

	if (dir && strncasecmp(dir, "SKIP", 4) == 0) {
		st = KTAP_SKIP;
		reason = trim((char *)dir + 4);
	} else if (!ok && (reason == NULL || *reason == '\0')) {
		/* Empty for now: diagnostics may follow the result line. */
		reason = dir ? dir : "";
	}
	l->last_case = add_case(k, name, st, reason);
	free(l->pending);
	l->pending = NULL;
}

/* The result line of a suite whose level has just been closed. */
static void
suite_result(struct ktap *k, struct ktap_level *child, bool ok,
             const char *name, const char *dir)
{
	bool skip = dir && strncasecmp(dir, "SKIP", 4) == 0;
	bool has_cases = k->ncases > child->first_case;
	const char *suite = *name ? name : (child->name ? child->name : "?");

	remember_suite(k, suite);
	if (!ok && !skip && !failed_in(k, child->first_case))
		add_case(k, "(suite)", KTAP_FAIL,
		         child->pending
		             ? child->pending
		             : (dir ? dir : "suite reported not ok"));
	else if (skip && !has_cases)
		add_case(k, "(suite)", KTAP_SKIP, trim((char *)dir + 4));
	prefix_cases(k, child->first_case, suite);
}

static void
on_result(struct ktap *k, int indent, const char *s)
{
	struct ktap_level *l, closed = {0};
	bool ok, have_child = false;
	char *name, *dir;
	int num;

	if (!parse_result(s, &ok, &num, &name, &dir))
		return;
	/* Levels two deep or more end without their own result line. */
	while (k->depth > 1 && k->lv[k->depth - 2].indent > indent) {
		close_truncated(k, NULL);
		top(k)->nresults++;
	}
	/* A result left of the current level is that level's suite result. */
	if (k->depth > 1 && top(k)->indent > indent) {
		add_missing(k, top(k), 0, NULL);
		closed = *top(k);
		have_child = true;
		k->depth--;
	}
	l = top(k);
	if (!have_child && l->indent < indent) {
		/* A result deeper than any header: an implicit nested level. */
		push(k, indent);
		l = top(k);
	}
	if (have_child) {
		suite_result(k, &closed, ok, name, dir);
		free(closed.name);
		free(closed.pending);
	} else {
		if (*name == '\0') {
			free(name);
			name = xasprintf("#%d", num);
		}
		leaf_result(k, l, ok, name, dir);
	}
	l->nresults++;
	free(name);
	free(dir);
	if (k->depth == 1 && l->plan >= 0 && l->nresults >= l->plan) {
		k->done = true;
		free(l->name);
		free(l->pending);
		l->name = l->pending = NULL;
		k->depth = 0;
	}
}

/* Diagnostics go to the deepest level at or above their indentation. */
static void
on_diag(struct ktap *k, int indent, char *text)
{
	struct ktap_level *l = top(k);
	int i = k->depth - 1;

	while (i > 0 && k->lv[i].indent > indent)
		i--;
	l = &k->lv[i];
	if (starts_with(text, "Subtest:")) {
		if (l->indent < indent) {
			push(k, indent);
			l = top(k);
		}
		free(l->name);
		l->name = xstrdup(trim(text + 8));
		return;
	}
	/* "# case: message" right after that case's result belongs to it. */
	if (l->last_case >= 0) {
		struct ktap_case *c = &k->cases[l->last_case];
		const char *base = strrchr(c->name, '.');

		base = base ? base + 1 : c->name;
		if (starts_with(text, base) && text[strlen(base)] == ':') {
			append_line(&c->reason, text);
			return;
		}
	}
	append_line(&l->pending, text);
}

static bool
is_version(const char *s)
{
	return starts_with(s, "KTAP version ") ||
	       starts_with(s, "TAP version ");
}

static bool
parse_plan(const char *s, int *n)
{
	char *end;

	if (!starts_with(s, "1.."))
		return false;
	*n = (int)strtol(s + 3, &end, 10);
	return end != s + 3 && (*end == '\0' || *end == ' ');
}

static bool
feed(struct ktap *k, int indent, char *s)
{
	int n;

	if (!k->started) {
		if (is_version(s)) {
			k->started = true;
			push(k, indent);
		}
		return false;
	}
	if (indent < k->lv[0].indent) {
		/* Left of the document: a log line or the next prompt. */
		return false;
	}
	if (is_version(s)) {
		if (indent > top(k)->indent)
			push(k, indent);
	} else if (parse_plan(s, &n)) {
		if (indent > top(k)->indent)
			push(k, indent);
		if (top(k)->indent == indent)
			top(k)->plan = n;
	} else if (starts_with(s, "ok ") || starts_with(s, "not ok ")) {
		on_result(k, indent, s);
	} else if (s[0] == '#') {
		on_diag(k, indent, trim(s + 1));
	}
	if (k->depth == 1 && top(k)->plan == 0) {
		k->done = true;
		k->depth = 0;
	}
	return k->done;
}

bool
ktap_feed(struct ktap *k, const char *line)
{
	char *copy, *s;
	int indent = 0;

	if (k->done)
		return true;
	/* A private copy, so trimming never writes to the caller's text. */
	copy = xstrdup(line);
	s = trim(copy);
	for (const char *p = line; *p == ' ' || *p == '\t'; p++)
		indent += *p == '\t' ? 8 : 1;
	k->done = feed(k, indent, s);
	free(copy);
	return k->done;
}

bool
ktap_has_suite(const struct ktap *k, const char *name)
{
	for (int i = 0; i < k->nsuites; i++)
		if (strcmp(k->suites[i], name) == 0)
			return true;
	return false;
}

int
ktap_count(const struct ktap *k, enum ktap_status st)
{
	int n = 0;

	for (int i = 0; i < k->ncases; i++)
		n += k->cases[i].status == st;
	return n;
}
