/*
 * pathcheck: every file a comment or a doc names must exist.  Comments
 * drift: a file is renamed or split and the comments that send a reader
 * to it stay.  Run from the tree's root, or give the root:
 *
 *   pathcheck [ROOT]     one line per missing path, exit 1
 *
 * (build/, .git and folders named fixture are not read: a fixture holds
 * mistakes on purpose, tests/pathcheck/fixture is pathcheck's own.)
 *
 * What is read: the comments of C, assembly, make and scenario files,
 * and the text of docs (*.md) outside code blocks (examples).  A name is a run of [A-Za-z0-9_.+/-]
 * ending in a source or doc extension (.c .h .S .md .mk .scn .ld .py
 * .profile .list .mutant).  A name with a '/' is a path from the root,
 * or from the naming file's folder; it is checked only when its first
 * folder is one of the root's (anything else, like include/linux/..., is
 * another project's).  A name without one must be the name of some file
 * in the tree.  Not checked: build/ (made by the build), names with a
 * placeholder in capitals (repro-PROFILE-SEED.scn), a pattern (*_fsm.c),
 * another project's file named as its ("Linux's kunit_parser.py"), and
 * the files tools make when they run (SPIN's pan.c, make bench's
 * report.md).
 *
 * Exit status: 0 clean, 1 missing paths, 2 usage or I/O error.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 4096
#define MAX_PATH  512
#define MAX_LINE  4096

static char files[MAX_FILES][MAX_PATH]; /* relative to the root */
static int nfiles;
static char root[MAX_PATH];
static int missing;

static const char *const exts[] = {".c",       ".h",    ".S",     ".md",
                                   ".mk",      ".scn",  ".ld",    ".py",
                                   ".profile", ".list", ".mutant"};

static bool
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

static bool
named_ext(const char *s)
{
	for (size_t i = 0; i < sizeof(exts) / sizeof(*exts); i++)
		if (has_suffix(s, exts[i]) && strlen(s) > strlen(exts[i]))
			return true;
	return false;
}

static int
collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(root);

	(void)st;
	while (*rel == '/')
		rel++;
	/* a fixture folder (tests/pathcheck/fixture) holds mistakes on
	 * purpose: it is a tree of its own */
	if (type == FTW_D && ftw->level > 0 &&
	    (strcmp(rel, ".git") == 0 || strcmp(rel, "build") == 0 ||
	     strcmp(path + ftw->base, "fixture") == 0))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F)
		return FTW_CONTINUE;
	if (nfiles == MAX_FILES) {
		fprintf(stderr, "pathcheck: more than %d files\n", MAX_FILES);
		return FTW_STOP;
	}
	snprintf(files[nfiles++], MAX_PATH, "%s", rel);
	return FTW_CONTINUE;
}

static bool
exists(const char *rel)
{
	char p[4 * MAX_PATH];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return stat(p, &st) == 0;
}

/* Is dir (its first folder) one of the root's? */
static bool
top_folder(const char *name)
{
	char first[MAX_PATH];
	size_t n = strcspn(name, "/");

	if (n >= sizeof(first))
		return false;
	memcpy(first, name, n);
	first[n] = '\0';
	if (strcmp(first, "..") == 0 || strcmp(first, ".") == 0)
		return true;
	for (int i = 0; i < nfiles; i++)
		if (strncmp(files[i], first, n) == 0 && files[i][n] == '/')
			return true;
	return false;
}

static bool
basename_known(const char *name)
{
	for (int i = 0; i < nfiles; i++) {
		const char *b = strrchr(files[i], '/');

		if (strcmp(b != NULL ? b + 1 : files[i], name) == 0)
			return true;
	}
	return false;
}

/* Files tools make when they run (SPIN's, make bench's): named in the
 * text, never in the tree. */
static const char *const made[] = {"pan.c", "report.md"};

/* Another project's file, named as its: "Linux's kernel/module/main.c". */
static const char *const others[] = {"Linux's ",   "lwIP's ",   "xv6's ",
                                     "OpenBSD's ", "9front's ", "QEMU's "};

static bool
anothers(const char *text, const char *at)
{
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
		size_t n = strlen(others[i]);

		if ((size_t)(at - text) >= n &&
		    strncmp(at - n, others[i], n) == 0)
			return true;
		/* through a quote: Linux's `kunit_parser.py` */
		if ((size_t)(at - text) >= n + 1 && at[-1] == '`' &&
		    strncmp(at - 1 - n, others[i], n) == 0)
			return true;
	}
	return false;
}

static bool
placeholder(const char *name)
{
	for (const char *p = name; p[0] != '\0' && p[1] != '\0'; p++)
		if (isupper((unsigned char)p[0]) &&
		    isupper((unsigned char)p[1]))
			return true;
	return false;
}

static void
check_name(const char *file, int line, const char *name)
{
	char rel[2 * MAX_PATH + 2];
	const char *slash = strrchr(file, '/');

	if (strncmp(name, "build/", 6) == 0 || placeholder(name))
		return;
	for (size_t i = 0; i < sizeof(made) / sizeof(*made); i++)
		if (strcmp(name, made[i]) == 0)
			return;
	if (strchr(name, '/') == NULL) {
		if (basename_known(name))
			return;
	} else {
		if (name[0] == '/' || !top_folder(name))
			return;
		if (exists(name))
			return;
		snprintf(rel, sizeof(rel), "%.*s/%s",
		         slash != NULL ? (int)(slash - file) : 0, file, name);
		if (slash != NULL && exists(rel))
			return;
	}
	printf("%s:%d: names %s, which does not exist\n", file, line, name);
	missing++;
}

static bool
name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '/' || c == '-' ||
	       c == '+';
}

/* The names in text (one line's comment part). */
static void
scan_text(const char *file, int line, const char *text)
{
	const char *p = text;

	while (*p != '\0') {
		char name[MAX_PATH];
		size_t n = 0;

		const char *start;

		while (*p != '\0' && !name_char((unsigned char)*p))
			p++;
		start = p;
		/* a URL's path is another site's */
		if (p >= text + 3 && strncmp(p - 3, "://", 3) == 0) {
			while (*p != '\0' && !isspace((unsigned char)*p))
				p++;
			continue;
		}
		while (name_char((unsigned char)*p)) {
			if (n + 1 < sizeof(name))
				name[n++] = *p;
			p++;
		}
		name[n] = '\0';
		while (n > 0 && (name[n - 1] == '.' || name[n - 1] == '-'))
			name[--n] = '\0'; /* a sentence's full stop */
		/* *_proto.c is a pattern; another project's file is its */
		if (n > 0 && named_ext(name) &&
		    !(start > text && start[-1] == '*') &&
		    !anothers(text, start))
			check_name(file, line, name);
	}
}

enum kind { K_NONE, K_C, K_HASH, K_DOC };

static enum kind
kind_of(const char *f)
{
	const char *b = strrchr(f, '/');

	b = b != NULL ? b + 1 : f;
	if (has_suffix(f, ".c") || has_suffix(f, ".h") || has_suffix(f, ".S") ||
	    has_suffix(f, ".ld"))
		return K_C;
	if (has_suffix(f, ".md"))
		return K_DOC;
	if (has_suffix(f, ".mk") || has_suffix(f, ".scn") ||
	    has_suffix(f, ".py") || has_suffix(f, ".profile") ||
	    has_suffix(f, ".list") || strcmp(b, "Makefile") == 0)
		return K_HASH;
	return K_NONE;
}

/* C: the text of comments only (a string is data, not a pointer for a
 * reader); a comment may run over lines. */
static void
scan_c_line(const char *file, int line, const char *s, bool *in_comment)
{
	char text[MAX_LINE];
	size_t n = 0;
	bool in_string = false;

	for (const char *p = s; *p != '\0'; p++) {
		if (*in_comment) {
			if (p[0] == '*' && p[1] == '/') {
				*in_comment = false;
				p++;
				text[n < sizeof(text) - 1 ? n++ : n] = ' ';
				continue;
			}
			if (n < sizeof(text) - 1)
				text[n++] = *p;
			continue;
		}
		if (in_string) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				in_string = false;
			continue;
		}
		if (*p == '"') {
			in_string = true;
		} else if (p[0] == '/' && p[1] == '*') {
			*in_comment = true;
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			snprintf(text + n, sizeof(text) - n, " %s", p + 2);
			n = strlen(text);
			break;
		}
	}
	text[n] = '\0';
	scan_text(file, line, text);
}

static int
scan_file(const char *rel)
{
	char path[2 * MAX_PATH + 2], line[MAX_LINE];
	enum kind k = kind_of(rel);
	bool in_comment = false; /* or, in a doc, in a fenced block */
	int lineno = 0;
	FILE *f;

	if (k == K_NONE)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *hash;

		lineno++;
		if (k == K_C)
			scan_c_line(rel, lineno, line, &in_comment);
		else if (k == K_DOC && strncmp(line, "```", 3) == 0)
			in_comment = !in_comment; /* a fenced block */
		else if (k == K_DOC && !in_comment &&
		         strncmp(line, "    ", 4) != 0)
			scan_text(rel, lineno, line);
		else if (k == K_HASH && (hash = strchr(line, '#')) != NULL)
			scan_text(rel, lineno, hash + 1);
	}
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: pathcheck [ROOT]\n");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", argc == 2 ? argv[1] : ".");
	if (nftw(root, collect, 32, FTW_PHYS | FTW_ACTIONRETVAL) != 0) {
		fprintf(stderr, "pathcheck: %s: cannot walk it\n", root);
		return 2;
	}
	for (int i = 0; i < nfiles; i++)
		if (scan_file(files[i]) != 0)
			return 2;
	return missing != 0 ? 1 : 0;
}
