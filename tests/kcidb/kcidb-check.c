/*
 * kcidb-check FILE...: validates KCIDB report data against what the
 * schema (kernelci/kcidb-io, v4.5 and v5) requires, before a lab submits
 * it: the version (major 4 or 5, a minor the major has), no top-level or
 * (v4) object member the schema does not define, every checkout, build,
 * test, issue and incident with its required fields, ids "origin:..."
 * whose origin is the object's own, origins ^[a-z0-9_]+$, no id twice,
 * each build's checkout_id and each test's build_id naming an object in
 * the same file, statuses from the enum, test paths of non-empty
 * [A-Za-z0-9_-] components joined by dots, durations and number.value
 * numbers, times in RFC 3339, URLs with a scheme, commit hashes of 40
 * hex digits.  It prints one line naming the first problem and exits 1
 * (2 when a file cannot be read); "ok" lines and 0 otherwise.  The
 * input is hostile: any text gives a message, never a crash.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness/util.h"
#include "tests/kcidb/kcidb.h"
#include "tests/lava/json.h"

enum kind {
	K_STR,
	K_ID,
	K_ORIGIN,
	K_BOOL,
	K_NUM,
	K_INT,
	K_TIME,
	K_URI,
	K_SHA1,
	K_GITURL,
	K_PATCHHASH,
	K_ARCH,
	K_STATUS,
	K_PATH,
	K_RESOURCES,
	K_STRLIST,
	K_OBJ,
	K_NUMBER,
	K_ENV,
	K_EXCERPT,
};

/* Which majors define a field: v4, v5 or both. */
#define V4   1
#define V5   2
#define VALL (V4 | V5)

struct field {
	const char *name;
	enum kind kind;
	bool required;
	int versions;
};

static const struct field checkout_fields[] = {
    {"_timestamp", K_TIME, false, VALL},
    {"id", K_ID, true, VALL},
    {"origin", K_ORIGIN, true, VALL},
    {"tree_name", K_STR, false, VALL},
    {"git_repository_url", K_GITURL, false, VALL},
    {"git_commit_hash", K_SHA1, false, VALL},
    {"git_commit_name", K_STR, false, VALL},
    {"git_commit_tags", K_STRLIST, false, V5},
    {"git_commit_message", K_STR, false, V5},
    {"git_repository_branch", K_STR, false, VALL},
    {"git_repository_branch_tip", K_BOOL, false, V5},
    {"patchset_files", K_RESOURCES, false, VALL},
    {"patchset_hash", K_PATCHHASH, false, VALL},
    {"message_id", K_STR, false, VALL},
    {"comment", K_STR, false, VALL},
    {"start_time", K_TIME, false, VALL},
    {"contacts", K_STRLIST, false, VALL},
    {"log_url", K_URI, false, VALL},
    {"log_excerpt", K_EXCERPT, false, VALL},
    {"valid", K_BOOL, false, VALL},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

static const struct field build_fields[] = {
    {"_timestamp", K_TIME, false, VALL},
    {"checkout_id", K_ID, true, VALL},
    {"id", K_ID, true, VALL},
    {"origin", K_ORIGIN, true, VALL},
    {"comment", K_STR, false, VALL},
    {"start_time", K_TIME, false, VALL},
    {"duration", K_NUM, false, VALL},
    {"architecture", K_ARCH, false, VALL},
    {"command", K_STR, false, VALL},
    {"compiler", K_STR, false, VALL},
    {"input_files", K_RESOURCES, false, VALL},
    {"output_files", K_RESOURCES, false, VALL},
    {"config_name", K_STR, false, VALL},
    {"config_url", K_URI, false, VALL},
    {"log_url", K_URI, false, VALL},
    {"log_excerpt", K_EXCERPT, false, VALL},
    {"valid", K_BOOL, false, V4},
    {"status", K_STATUS, false, V5},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

static const struct field test_fields[] = {
    {"_timestamp", K_TIME, false, VALL},
    {"build_id", K_ID, true, VALL},
    {"id", K_ID, true, VALL},
    {"origin", K_ORIGIN, true, VALL},
    {"environment", K_ENV, false, VALL},
    {"path", K_PATH, false, VALL},
    {"comment", K_STR, false, VALL},
    {"log_url", K_URI, false, VALL},
    {"log_excerpt", K_EXCERPT, false, VALL},
    {"status", K_STATUS, false, VALL},
    {"number", K_NUMBER, false, VALL},
    {"waived", K_BOOL, false, VALL},
    {"start_time", K_TIME, false, VALL},
    {"duration", K_NUM, false, VALL},
    {"output_files", K_RESOURCES, false, VALL},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

static const struct field issue_fields[] = {
    {"_timestamp", K_TIME, false, VALL},
    {"id", K_ID, true, VALL},
    {"version", K_INT, true, VALL},
    {"origin", K_ORIGIN, true, VALL},
    {"report_url", K_URI, false, VALL},
    {"report_subject", K_STR, false, VALL},
    {"culprit", K_OBJ, false, VALL},
    {"build_valid", K_BOOL, false, VALL},
    {"test_status", K_STATUS, false, VALL},
    {"comment", K_STR, false, VALL},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

static const struct field incident_fields[] = {
    {"_timestamp", K_TIME, false, VALL},
    {"id", K_ID, true, VALL},
    {"origin", K_ORIGIN, true, VALL},
    {"issue_id", K_ID, true, VALL},
    {"issue_version", K_INT, true, VALL},
    {"build_id", K_ID, false, VALL},
    {"test_id", K_ID, false, VALL},
    {"present", K_BOOL, false, VALL},
    {"comment", K_STR, false, VALL},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

struct list {
	const char *name; /* top-level key */
	const struct field *fields;
};

static const struct list lists[] = {
    {"checkouts", checkout_fields}, {"builds", build_fields},
    {"tests", test_fields},         {"issues", issue_fields},
    {"incidents", incident_fields},
};
#define NLISTS ((int)(sizeof(lists) / sizeof(lists[0])))

static const char *const statuses[] = {"FAIL", "ERROR", "MISS",
                                       "PASS", "DONE",  "SKIP"};

/* The newest minor of each major in kernelci/kcidb-io's schema/. */
static int
max_minor(long major)
{
	return major == 4 ? 5 : major == 5 ? 3 : -1;
}

static const char *g_file;
static char g_where[256]; /* "tests[3] (id)" of the object being checked */

static void __attribute__((format(printf, 1, 2), noreturn))
bad(const char *fmt, ...)
{
	va_list ap;

	printf("kcidb-check: %s: ", g_file);
	if (g_where[0] != '\0')
		printf("%s: ", g_where);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static const char *
type_name(enum json_type t)
{
	static const char *const names[] = {"null",     "a boolean",
	                                    "a number", "a string",
	                                    "an array", "an object"};

	return names[t];
}

static void
want_type(const struct json *v, const char *name, enum json_type t)
{
	if (v->type != t)
		bad("%s is %s, not %s", name, type_name(v->type), type_name(t));
}

static bool
origin_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) ||
		      isdigit((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

static bool
hex_only(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) &&
		    !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return strlen(s) == n;
}

/* A URI as far as the schema's "format: uri" goes: scheme ':' rest. */
static bool
uri_ok(const char *s)
{
	const char *p = s;

	if (!isalpha((unsigned char)*p))
		return false;
	while (*p != '\0' &&
	       (isalnum((unsigned char)*p) || strchr("+.-", *p) != NULL))
		p++;
	if (*p != ':' || p[1] == '\0')
		return false;
	for (p++; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '"' ||
		    *p == '<' || *p == '>' || *p == '\\')
			return false;
	return true;
}

/* Non-empty [A-Za-z0-9_-] components joined by dots, or "". */
static const char *
path_problem(const char *s)
{
	size_t comp = 0;

	if (*s == '\0')
		return NULL;
	for (const char *p = s;; p++) {
		if (*p == '.' || *p == '\0') {
			if (comp == 0)
				return "has an empty component (a leading, "
				       "trailing or doubled dot)";
			if (*p == '\0')
				return NULL;
			comp = 0;
		} else if (isalnum((unsigned char)*p) || *p == '_' ||
		           *p == '-') {
			comp++;
		} else {
			return "has a character outside [A-Za-z0-9_-] in a "
			       "component";
		}
	}
}

static size_t
utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void check_value(const struct json *v, const char *name, enum kind kind,
                        const char *obj_origin);

/*
 * obj's members against fields; nested objects (number, environment,
 * resources) name theirs as "what.member".  The origin is checked
 * first: an id is judged against it.
 */
static void
check_members(const struct json *obj, const char *what,
              const struct field *fields, const char *obj_origin, int vbit,
              bool closed, bool nested)
{
	want_type(obj, what, J_OBJ);
	for (const struct field *f = fields; f->name; f++) {
		const struct json *v = json_get(obj, f->name);

		if (f->required && v == NULL)
			bad("missing required field '%s%s%s'",
			    nested ? what : "", nested ? "." : "", f->name);
		if (v != NULL && !(f->versions & vbit))
			bad("field '%s' is not in this schema version",
			    f->name);
	}
	for (int pass = 0; pass < 2; pass++)
		for (const struct json *c = obj->child; c; c = c->next) {
			const struct field *f = fields;
			char name[128];

			if ((strcmp(c->key, "origin") == 0) != (pass == 0))
				continue;
			while (f->name && strcmp(f->name, c->key) != 0)
				f++;
			snprintf(name, sizeof(name), "%s%s%s",
			         nested ? what : "", nested ? "." : "", c->key);
			if (f->name == NULL) {
				if (closed)
					bad("unknown field '%s'", name);
				continue;
			}
			check_value(c, name, f->kind, obj_origin);
		}
}

static const struct field number_fields[] = {{"value", K_NUM, true, VALL},
                                             {"unit", K_STR, false, VALL},
                                             {"prefix", K_STR, false, VALL},
                                             {NULL, K_STR, false, 0}};

static const struct field env_fields[] = {
    {"compatible", K_STRLIST, false, VALL},
    {"comment", K_STR, false, VALL},
    {"misc", K_OBJ, false, VALL},
    {NULL, K_STR, false, 0}};

static const struct field resource_fields[] = {{"name", K_STR, true, VALL},
                                               {"url", K_URI, true, VALL},
                                               {NULL, K_STR, false, 0}};

static void
check_value(const struct json *v, const char *name, enum kind kind,
            const char *obj_origin)
{
	const char *s = v->str;

	switch (kind) {
	case K_BOOL:
		want_type(v, name, J_BOOL);
		return;
	case K_NUM:
		want_type(v, name, J_NUM);
		return;
	case K_INT:
		want_type(v, name, J_NUM);
		if (strpbrk(s, ".eE") != NULL || s[0] == '-')
			bad("%s %s is not a non-negative integer", name, s);
		return;
	case K_OBJ:
		want_type(v, name, J_OBJ);
		return;
	case K_NUMBER: {
		const struct json *p = json_get(v, "prefix");

		check_members(v, name, number_fields, NULL, VALL, true, true);
		if (p != NULL && strcmp(p->str, "metric") != 0 &&
		    strcmp(p->str, "binary") != 0)
			bad("%s.prefix '%s' is not metric or binary", name,
			    p->str);
		return;
	}
	case K_ENV:
		check_members(v, name, env_fields, NULL, VALL, true, true);
		return;
	case K_RESOURCES:
	case K_STRLIST:
		want_type(v, name, J_ARR);
		for (const struct json *e = v->child; e; e = e->next) {
			if (kind == K_STRLIST) {
				want_type(e, name, J_STR);
				continue;
			}
			check_members(e, name, resource_fields, NULL, VALL,
			              true, true);
			if (strchr(json_str(e, "name"), '/') != NULL ||
			    *json_str(e, "name") == '\0')
				bad("%s name '%s' is empty or has a '/'", name,
				    json_str(e, "name"));
		}
		return;
	default:
		break;
	}
	want_type(v, name, J_STR);
	switch (kind) {
	case K_ID: {
		const char *colon = strchr(s, ':');

		if (colon == NULL || !origin_ok(s, (size_t)(colon - s)))
			bad("%s '%s' is not ORIGIN:... with ORIGIN matching "
			    "^[a-z0-9_]+$",
			    name, s);
		if (obj_origin != NULL && strcmp(name, "id") == 0 &&
		    (strncmp(s, obj_origin, (size_t)(colon - s)) != 0 ||
		     strlen(obj_origin) != (size_t)(colon - s)))
			bad("id '%s' does not start with its origin '%s:'", s,
			    obj_origin);
		return;
	}
	case K_ORIGIN:
		if (!origin_ok(s, strlen(s)))
			bad("origin '%s' does not match ^[a-z0-9_]+$", s);
		return;
	case K_TIME:
		if (!kcidb_time_ok(s))
			bad("%s '%s' is not an RFC 3339 date-time", name, s);
		return;
	case K_URI:
		if (!uri_ok(s))
			bad("%s '%s' is not a URI", name, s);
		return;
	case K_SHA1:
		if (!hex_only(s, 40))
			bad("%s '%s' is not 40 lower-case hex digits", name, s);
		return;
	case K_PATCHHASH:
		if (*s != '\0' && !hex_only(s, 64))
			bad("%s '%s' is not empty or 64 lower-case hex digits",
			    name, s);
		return;
	case K_GITURL:
		if (!starts_with(s, "https://") && !starts_with(s, "git://"))
			bad("%s '%s' is not an https:// or git:// URL", name,
			    s);
		return;
	case K_ARCH:
		for (const char *p = s; *p; p++)
			if (!islower((unsigned char)*p) &&
			    !isdigit((unsigned char)*p) && *p != '_')
				bad("%s '%s' does not match ^[a-z0-9_]*$", name,
				    s);
		return;
	case K_STATUS:
		for (size_t i = 0; i < sizeof(statuses) / sizeof(*statuses);
		     i++)
			if (strcmp(s, statuses[i]) == 0)
				return;
		bad("%s '%s' is not one of FAIL, ERROR, MISS, PASS, DONE, "
		    "SKIP",
		    name, s);
	case K_PATH: {
		const char *why = path_problem(s);

		if (why != NULL)
			bad("path '%s' %s", s, why);
		return;
	}
	case K_EXCERPT:
		if (utf8_chars(s) > 16384)
			bad("%s is longer than 16384 characters", name);
		return;
	default:
		return;
	}
}

static void
where(const char *list, int i, const struct json *obj)
{
	const char *id = json_str(obj, "id");

	snprintf(g_where, sizeof(g_where), id ? "%s[%d] (%s)" : "%s[%d]", list,
	         i, id);
}

/* The array under key, or NULL if the document has none. */
static const struct json *
array(const struct json *doc, const char *key)
{
	const struct json *a = json_get(doc, key);

	if (a != NULL)
		want_type(a, key, J_ARR);
	return a;
}

/* id among the objects of array a; skip is the object itself. */
static bool
has_id(const struct json *a, const char *id, const struct json *skip)
{
	for (const struct json *o = a ? a->child : NULL; o; o = o->next) {
		const char *oid = json_str(o, "id");

		if (o != skip && oid != NULL && strcmp(oid, id) == 0)
			return true;
	}
	return false;
}

static void
refs(const struct json *doc, const char *list, const char *key,
     const char *target, const char *what)
{
	const struct json *a = json_get(doc, list), *t = json_get(doc, target);
	int i = 0;

	for (const struct json *o = a ? a->child : NULL; o; o = o->next, i++) {
		const char *ref = json_str(o, key);

		where(list, i, o);
		if (ref != NULL && !has_id(t, ref, NULL))
			bad("%s '%s' names no %s in this file", key, ref, what);
	}
}

static int
check_file(const char *path)
{
	size_t len;
	char *text = read_file_n(path, &len), err[256];
	struct json *doc;
	const struct json *ver, *major, *minor;
	long maj, min = 0;
	int vbit, counts[NLISTS] = {0};

	g_file = path;
	g_where[0] = '\0';
	if (text == NULL) {
		printf("kcidb-check: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (strlen(text) != len)
		bad("a NUL byte at offset %zu", strlen(text));
	doc = json_parse_strict(text, err, sizeof(err));
	free(text);
	if (doc == NULL)
		bad("%s", err);
	want_type(doc, "the document", J_OBJ);
	for (const struct json *c = doc->child; c; c = c->next) {
		int k = 0;

		while (k < NLISTS && strcmp(lists[k].name, c->key) != 0)
			k++;
		if (k == NLISTS && strcmp(c->key, "version") != 0)
			bad("unknown top-level field '%s'", c->key);
	}
	if ((ver = json_get(doc, "version")) == NULL)
		bad("missing required field 'version'");
	want_type(ver, "version", J_OBJ);
	for (const struct json *c = ver->child; c; c = c->next)
		if (strcmp(c->key, "major") != 0 &&
		    strcmp(c->key, "minor") != 0)
			bad("unknown field 'version.%s'", c->key);
	if ((major = json_get(ver, "major")) == NULL)
		bad("missing required field 'version.major'");
	check_value(major, "version.major", K_INT, NULL);
	maj = strtol(major->str, NULL, 10);
	if (max_minor(maj) < 0)
		bad("version.major %s: only 4 and 5 are known", major->str);
	if ((minor = json_get(ver, "minor")) != NULL) {
		check_value(minor, "version.minor", K_INT, NULL);
		min = strtol(minor->str, NULL, 10);
		if (min > max_minor(maj))
			bad("version %ld.%ld: major %ld has minors 0..%d", maj,
			    min, maj, max_minor(maj));
	}
	vbit = maj == 4 ? V4 : V5;
	for (int k = 0; k < NLISTS; k++) {
		const struct json *a = array(doc, lists[k].name);
		int i = 0;

		for (const struct json *o = a ? a->child : NULL; o;
		     o = o->next, i++) {
			const char *origin, *id;

			snprintf(g_where, sizeof(g_where), "%s[%d]",
			         lists[k].name, i);
			want_type(o, "the entry", J_OBJ);
			where(lists[k].name, i, o);
			origin = json_str(o, "origin");
			/* v5 may have fields this checker does not know. */
			check_members(o, lists[k].name, lists[k].fields, origin,
			              vbit, vbit == V4, false);
			id = json_str(o, "id");
			if (has_id(a, id, o))
				bad("id '%s' appears twice in %s", id,
				    lists[k].name);
		}
		counts[k] = i;
	}
	refs(doc, "builds", "checkout_id", "checkouts", "checkout");
	refs(doc, "tests", "build_id", "builds", "build");
	g_where[0] = '\0';
	printf("kcidb-check: %s: ok: version %ld.%ld, %d checkout(s), %d "
	       "build(s), %d test(s)\n",
	       path, maj, min, counts[0], counts[1], counts[2]);
	json_free(doc);
	return 0;
}

int
main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: kcidb-check FILE...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		int r = check_file(argv[i]);

		if (r > rc)
			rc = r;
	}
	return rc;
}
