/* KCIDB report data writer (see kcidb.h). */
#include "tests/kcidb/kcidb.h"
#include "tests/lava/json.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool
kcidb_origin_ok(const char *origin)
{
	if (origin == NULL || *origin == '\0')
		return false;
	for (const char *p = origin; *p; p++)
		if (!(islower((unsigned char)*p) ||
		      isdigit((unsigned char)*p) || *p == '_'))
			return false;
	return true;
}

const char *
kcidb_origin(const char *opt, char *err, size_t errlen)
{
	const char *o = opt, *from = "--kcidb-origin";

	if (o == NULL) {
		o = getenv("KCIDB_ORIGIN");
		from = "KCIDB_ORIGIN";
	}
	if (o == NULL)
		return KCIDB_DEFAULT_ORIGIN;
	if (!kcidb_origin_ok(o)) {
		snprintf(err, errlen,
		         "%s '%s': a KCIDB origin is lower-case letters, "
		         "digits and '_' (^[a-z0-9_]+$)",
		         from, o);
		return NULL;
	}
	return o;
}

/* One path component from n bytes of s (see kcidb_path_add). */
static void
add_component(struct strbuf *path, const char *s, size_t n)
{
	size_t start;
	bool pending = false; /* a run of replaced bytes not yet written */

	if (path->len > 0)
		sb_adds(path, ".");
	start = path->len;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (isalnum((unsigned char)c) || c == '_' || c == '-') {
			if (pending && path->len > start)
				sb_adds(path, "_");
			pending = false;
			sb_add(path, &c, 1);
		} else {
			pending = true;
		}
	}
	if (path->len == start)
		sb_adds(path, "_");
}

void
kcidb_path_add(struct strbuf *path, const char *dotted)
{
	const char *p = dotted;

	for (;;) {
		size_t n = strcspn(p, ".");

		add_component(path, p, n);
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
}

void
kcidb_path_add1(struct strbuf *path, const char *component)
{
	add_component(path, component, strlen(component));
}

/* Two digits at s as a number, or -1. */
static int
two(const char *s)
{
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

bool
kcidb_time_ok(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30,
	                            31, 31, 30, 31, 30, 31};
	int year, mon, day;

	if (strlen(s) < 20 || two(s) < 0 || two(s + 2) < 0 || s[4] != '-' ||
	    s[7] != '-' || strchr("Tt ", s[10]) == NULL || s[13] != ':' ||
	    s[16] != ':')
		return false;
	year = two(s) * 100 + two(s + 2);
	mon = two(s + 5);
	day = two(s + 8);
	if (mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] ||
	    (mon == 2 && day == 29 &&
	     !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))))
		return false;
	if (two(s + 11) < 0 || two(s + 11) > 23 || two(s + 14) < 0 ||
	    two(s + 14) > 59 || two(s + 17) < 0 || two(s + 17) > 60)
		return false;
	s += 19;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if ((*s == 'Z' || *s == 'z') && s[1] == '\0')
		return true;
	return (*s == '+' || *s == '-') && two(s + 1) >= 0 &&
	       two(s + 1) <= 23 && s[3] == ':' && two(s + 4) >= 0 &&
	       two(s + 4) <= 59 && s[6] == '\0';
}

void
kcidb_time(char *buf, size_t len, const struct timeval *tv)
{
	struct tm tm;
	time_t t = tv->tv_sec;
	char day[32];

	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ld+00:00", day, (long)tv->tv_usec);
}

/* A token that is a plain decimal number (no inf, nan or hex). */
static bool
is_number(const char *tok, double *v)
{
	const char *p = tok;
	char *end;

	if (*p == '-' || *p == '+')
		p++;
	if (*p == '.')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	for (p = tok; *p; p++)
		if (!isdigit((unsigned char)*p) && strchr("+-.eE", *p) == NULL)
			return false;
	errno = 0;
	*v = strtod(tok, &end);
	return *end == '\0' && errno == 0 && isfinite(*v);
}

bool
kcidb_bench_line(const char *line, char **group, char **label, double *value,
                 char **unit)
{
	static const char *const prefixes[] = {"### harness: host| ", "host| "};
	char *copy, *tok[64], *save = NULL, *colon;
	int n = 0;
	bool found = false;

	while (*line == ' ' || *line == '\t')
		line++;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts_with(line, prefixes[i]))
			line += strlen(prefixes[i]);
	if (!starts_with(line, "bench: "))
		return false;
	line += 7;
	colon = strstr(line, ": ");
	if (colon == NULL || colon == line || memchr(line, ' ', colon - line))
		return false;
	/* "bench: ERANGE: PAIRS 0 is out of range": an error, no figure. */
	if (line[0] == 'E' && colon - line > 1 &&
	    strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
	        (size_t)(colon - line))
		return false;
	copy = xstrdup(colon + 2);
	for (char *t = strtok_r(copy, " \t\r\n", &save); t && n < 64;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	for (int i = 0; i + 1 < n && !found; i++) {
		double v, dummy;
		size_t ul = strlen(tok[i + 1]);

		/* "12.5 ms," -- the unit loses the punctuation after it. */
		while (ul > 0 && strchr(",;:)", tok[i + 1][ul - 1]) != NULL)
			tok[i + 1][--ul] = '\0';
		if (!is_number(tok[i], &v) || ul == 0 ||
		    is_number(tok[i + 1], &dummy))
			continue;
		if (i == 0)
			break;
		struct strbuf sb;

		sb_init(&sb);
		for (int j = 0; j < i; j++)
			sb_addf(&sb, "%s%s", j ? " " : "", tok[j]);
		*group = xstrndup(line, (size_t)(colon - line));
		*label = sb.buf;
		*value = v;
		*unit = xstrdup(tok[i + 1]);
		found = true;
	}
	free(copy);
	return found;
}

/* First line of a command's output, or NULL if it failed or said nothing. */
static char *
cmd_line(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char buf[512];
	char *line = NULL;

	if (p == NULL)
		return NULL;
	if (fgets(buf, sizeof(buf), p) != NULL) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (buf[0] != '\0')
			line = xstrdup(buf);
	}
	if (pclose(p) != 0) {
		free(line);
		line = NULL;
	}
	return line;
}

static bool
is_sha1(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isdigit((unsigned char)s[n]) &&
		    !(s[n] >= 'a' && s[n] <= 'f'))
			return false;
	return n == 40;
}

/* The compiler named in the ELF's .comment ("GCC: (Debian 12.2.0) .."). */
static char *
elf_compiler(const char *kernel)
{
	static const char *const marks[] = {"GCC: (", "clang version "};
	size_t len = 0;
	char *img, *found = NULL;

	if (kernel == NULL || (img = read_file_n(kernel, &len)) == NULL)
		return NULL;
	for (size_t m = 0; m < 2 && found == NULL; m++) {
		size_t ml = strlen(marks[m]);

		for (size_t i = 0; i + ml <= len && found == NULL; i++) {
			size_t n = 0;

			if (memcmp(img + i, marks[m], ml) != 0)
				continue;
			while (i + n < len && n < 200 &&
			       isprint((unsigned char)img[i + n]))
				n++;
			found = xstrndup(img + i, n);
		}
	}
	free(img);
	return found;
}

static void
member(struct strbuf *sb, const char *key, const char *value)
{
	sb_adds(sb, ",\n      ");
	json_quote(sb, key);
	sb_adds(sb, ": ");
	json_quote(sb, value);
}

char *
kcidb_log_url(const char *path)
{
	const char *prefix = getenv("KCIDB_LOG_URL"), *base;
	char *abs;
	struct strbuf sb;

	if (prefix != NULL && *prefix != '\0') {
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		return xasprintf("%s%s%s", prefix,
		                 prefix[strlen(prefix) - 1] == '/' ? "" : "/",
		                 base);
	}
	abs = realpath(path, NULL);
	sb_init(&sb);
	sb_adds(&sb, "file://");
	if (abs == NULL && path[0] != '/') {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) != NULL)
			sb_addf(&sb, "%s/", cwd);
	}
	/* Percent-encode what a URI cannot hold as it is. */
	for (const char *p = abs ? abs : path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("/-._~+,=@:", c) != NULL)
			sb_add(&sb, p, 1);
		else
			sb_addf(&sb, "%%%02X", c);
	}
	free(abs);
	return sb.buf;
}

void
kcidb_begin(struct kcidb *k, const char *origin, const char *kernel)
{
	const char *env_commit = getenv("KCIDB_GIT_COMMIT");
	const char *env_url = getenv("KCIDB_GIT_URL");
	const char *env_cc = getenv("KCIDB_COMPILER");
	char *commit, *name = NULL, *url, *branch = NULL, *cc, *kurl = NULL;
	char stamp[32];
	struct timeval now;
	struct tm tm;
	bool have_kernel = kernel != NULL && access(kernel, R_OK) == 0;

	memset(k, 0, sizeof(*k));
	k->origin = xstrdup(origin);
	commit = env_commit ? xstrdup(env_commit)
	                    : cmd_line("git rev-parse HEAD 2>/dev/null");
	if (commit == NULL || !is_sha1(commit)) {
		free(commit);
		commit = NULL;
	}
	if (env_commit == NULL && commit != NULL) {
		name = cmd_line("git describe --always --dirty 2>/dev/null");
		branch =
		    cmd_line("git rev-parse --abbrev-ref HEAD 2>/dev/null");
	}
	url = env_url ? xstrdup(env_url)
	              : cmd_line("git config --get remote.origin.url "
	                         "2>/dev/null");
	/* The schema takes https:// or git:// repositories only. */
	if (url != NULL && !starts_with(url, "https://") &&
	    !starts_with(url, "git://")) {
		free(url);
		url = NULL;
	}
	cc = env_cc ? xstrdup(env_cc) : elf_compiler(kernel);

	k->checkout_id =
	    xasprintf("%s:%s", origin, commit ? commit : "unknown");
	k->build_id = xasprintf("%s:i386", k->checkout_id);
	gettimeofday(&now, NULL);
	gmtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	k->test_prefix =
	    xasprintf("%s:%s-%ld", k->build_id, stamp, (long)getpid());

	sb_init(&k->checkout);
	sb_adds(&k->checkout, "    {\n      \"id\": ");
	json_quote(&k->checkout, k->checkout_id);
	member(&k->checkout, "origin", origin);
	member(&k->checkout, "tree_name", "modref");
	if (commit != NULL)
		member(&k->checkout, "git_commit_hash", commit);
	if (name != NULL)
		member(&k->checkout, "git_commit_name", name);
	if (branch != NULL && strcmp(branch, "HEAD") != 0)
		member(&k->checkout, "git_repository_branch", branch);
	if (url != NULL)
		member(&k->checkout, "git_repository_url", url);
	sb_adds(&k->checkout, ",\n      \"valid\": true\n    }");

	sb_init(&k->build);
	sb_adds(&k->build, "    {\n      \"id\": ");
	json_quote(&k->build, k->build_id);
	member(&k->build, "origin", origin);
	member(&k->build, "checkout_id", k->checkout_id);
	member(&k->build, "architecture", "i386");
	member(&k->build, "config_name", "modref");
	if (cc != NULL)
		member(&k->build, "compiler", cc);
	if (have_kernel) {
		const char *base = strrchr(kernel, '/');

		kurl = kcidb_log_url(kernel);
		sb_adds(&k->build, ",\n      \"output_files\": [{\"name\": ");
		json_quote(&k->build, base ? base + 1 : kernel);
		sb_adds(&k->build, ", \"url\": ");
		json_quote(&k->build, kurl);
		sb_adds(&k->build, "}]");
	}
	if (kernel != NULL)
		sb_addf(&k->build, ",\n      \"valid\": %s",
		        have_kernel ? "true" : "false");
	sb_adds(&k->build, "\n    }");
	sb_init(&k->tests);
	free(commit);
	free(name);
	free(url);
	free(branch);
	free(cc);
	free(kurl);
}

void
kcidb_add_test(struct kcidb *k, const struct kcidb_test *t)
{
	struct strbuf *sb = &k->tests;
	char *id = xasprintf("%s.%d", k->test_prefix, ++k->ntests);

	sb_adds(sb, k->ntests > 1 ? ",\n    {\n      \"id\": "
	                          : "    {\n      \"id\": ");
	json_quote(sb, id);
	free(id);
	member(sb, "origin", k->origin);
	member(sb, "build_id", k->build_id);
	member(sb, "path", t->path);
	member(sb, "status", t->status);
	if (t->start_time != NULL)
		member(sb, "start_time", t->start_time);
	if (t->duration >= 0 && isfinite(t->duration))
		sb_addf(sb, ",\n      \"duration\": %.3f", t->duration);
	if (t->log_url != NULL)
		member(sb, "log_url", t->log_url);
	if (t->comment != NULL && *t->comment != '\0')
		member(sb, "comment", t->comment);
	if (t->has_number && isfinite(t->value)) {
		sb_addf(sb, ",\n      \"number\": {\"value\": %.15g", t->value);
		if (t->unit != NULL) {
			sb_adds(sb, ", \"unit\": ");
			json_quote(sb, t->unit);
		}
		sb_adds(sb, "}");
	}
	if (t->misc != NULL && t->misc[0] != NULL) {
		sb_adds(sb, ",\n      \"misc\": {");
		for (int i = 0; t->misc[i] && t->misc[i + 1]; i += 2) {
			sb_adds(sb, i ? ", " : "");
			json_quote(sb, t->misc[i]);
			sb_adds(sb, ": ");
			json_quote(sb, t->misc[i + 1]);
		}
		sb_adds(sb, "}");
	}
	sb_adds(sb, "\n    }");
}

int
kcidb_write(struct kcidb *k, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int rc = 0;

	if (f == NULL)
		return -1;
	fprintf(f,
	        "{\n  \"version\": {\"major\": %d, \"minor\": %d},\n"
	        "  \"checkouts\": [\n%s\n  ],\n  \"builds\": [\n%s\n  ],\n"
	        "  \"tests\": [\n%s%s  ]\n}\n",
	        KCIDB_MAJOR, KCIDB_MINOR, k->checkout.buf, k->build.buf,
	        k->tests.buf, k->ntests ? "\n" : "");
	if (fflush(f) != 0 || ferror(f))
		rc = -1;
	if (f != stdout && fclose(f) != 0)
		rc = -1;
	return rc;
}

void
kcidb_free(struct kcidb *k)
{
	free(k->origin);
	free(k->checkout_id);
	free(k->build_id);
	free(k->test_prefix);
	sb_free(&k->checkout);
	sb_free(&k->build);
	sb_free(&k->tests);
}
