/*
 * layercheck: every #include of the kernel tree must point down (or
 * sideways inside its layer), never up.  Run from the tree's root, or
 * give the root:
 *
 *   layercheck [ROOT]        one line per upward include, exit 1
 *   layercheck --rules       print the layers and what each may include
 *
 * The layers and their arrows are the table below (docs/design.md has the
 * picture).  A file belongs to the layer of the longest directory prefix
 * that names one; an included path ("a/b.h" or <a/b.h>, from the root as
 * the build's -I. reads it; a quoted name without a '/' is next to the
 * including file) that names no layer is a system header and is not
 * checked.  A layer may include itself and every layer it reaches through
 * its "above" arrows; a ktest/ folder belongs to the layer it tests, so
 * it may include its layer and below.
 *
 * Exit status: 0 clean, 1 violations, 2 usage or I/O error.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYERS 16
#define MAX_PREFIX 12
#define MAX_ABOVE  4
#define MAX_PATH   512

struct layer {
	const char *name;
	const char *dirs[MAX_PREFIX]; /* with the trailing '/' */
	const char *above[MAX_ABOVE]; /* layers it sits on directly */
};

/* Bottom first.  Arrows point down: "above" lists what a layer uses. */
static const struct layer layers[] = {
    /* boot code and the core: includes nothing above it; the module
     * loader and everything else reach it only through hooks and
     * initcalls (kernel/module.h, kernel/initcall.h). */
    {"kernel",
     {"boot/", "kernel/arch/", "kernel/lib/", "kernel/locking/", "kernel/mm/",
      "kernel/sched/", "kernel/console/", "kernel/debug/", "kernel/"},
     {NULL}},
    /* The core's own suites, stress suites and benchmarks: the core never
     * includes them (the KTAP runner finds suites by their section). */
    {"kernel/tests",
     {"kernel/ktest/", "kernel/stress/", "kernel/bench/"},
     {"kernel"}},
    /* Its ktest/ suites use kernel/ktest's helpers. */
    {"modloader", {"modloader/"}, {"kernel/tests"}},
    /* The PCI core and driver autoload (which loads modules by alias). */
    {"pci", {"drivers/"}, {"modloader"}},
    /* The device layer: knows no driver and no protocol. */
    {"net/core", {"net/core/"}, {"modloader"}},
    /* NIC drivers: the bus and the device layer, never a protocol. */
    {"drivers/net", {"drivers/net/"}, {"pci", "net/core"}},
    {"net/ipv4", {"net/ipv4/"}, {"net/core"}},
    {"net/tcp", {"net/tcp/"}, {"net/ipv4"}},
    {"net/apps", {"net/apps/"}, {"net/ipv4"}},
    {"net/cmd", {"net/cmd/"}, {"net/apps"}},
    /* The network suites test the device layer and IPv4, and rmmod
     * against devices (module loader + device layer). */
    {"net/ktest", {"net/ktest/"}, {"net/ipv4"}},
    /* bench devref: the device layer's fast path, timed. */
    {"net/bench", {"net/bench/"}, {"net/ipv4"}},
    /* The lifetime stress drives everything. */
    {"lifetime",
     {"lifetime/"},
     {"drivers/net", "net/cmd", "net/tcp", "net/ktest"}},
    /* Test and example modules: anything a module may use. */
    {"modules", {"tests/modules/", "docs/examples/"}, {"lifetime"}},
};
#define NLAYERS ((int)(sizeof(layers) / sizeof(layers[0])))

/* The kernel tree's top directories: a source file or an included path
 * under one of them must be in a layer (a new directory needs a row
 * above), so nothing escapes the check by living somewhere new. */
static const char *const tree_roots[] = {"boot/",    "kernel/", "modloader/",
                                         "drivers/", "net/",    "lifetime/"};
#define NROOTS ((int)(sizeof(tree_roots) / sizeof(tree_roots[0])))

static bool reach[MAX_LAYERS][MAX_LAYERS]; /* reach[a][b]: a may include b */
static const char *root;
static size_t root_len;
static unsigned nfiles, nincludes, nviolations;
static int io_error;

static int
layer_by_name(const char *name)
{
	for (int i = 0; i < NLAYERS; i++)
		if (strcmp(layers[i].name, name) == 0)
			return i;
	fprintf(stderr, "layercheck: the table names no layer '%s'\n", name);
	exit(2);
}

/* reach = the reflexive, transitive closure of the "above" arrows. */
static void
close_arrows(void)
{
	for (int i = 0; i < NLAYERS; i++) {
		reach[i][i] = true;
		for (int j = 0; j < MAX_ABOVE && layers[i].above[j]; j++)
			reach[i][layer_by_name(layers[i].above[j])] = true;
	}
	for (int k = 0; k < NLAYERS; k++)
		for (int i = 0; i < NLAYERS; i++)
			for (int j = 0; j < NLAYERS; j++)
				if (reach[i][k] && reach[k][j])
					reach[i][j] = true;
	for (int i = 0; i < NLAYERS; i++)
		for (int j = 0; j < NLAYERS; j++)
			if (i != j && reach[i][j] && reach[j][i]) {
				fprintf(stderr,
				        "layercheck: layers %s and %s include "
				        "each other: the table has a cycle\n",
				        layers[i].name, layers[j].name);
				exit(2);
			}
}

/* The layer of a path from the root (longest matching prefix), or -1. */
static int
layer_of(const char *path)
{
	size_t best = 0;
	int layer = -1;

	for (int i = 0; i < NLAYERS; i++)
		for (int j = 0; j < MAX_PREFIX && layers[i].dirs[j]; j++) {
			size_t n = strlen(layers[i].dirs[j]);
			if (n > best &&
			    strncmp(path, layers[i].dirs[j], n) == 0) {
				best = n;
				layer = i;
			}
		}
	return layer;
}

static bool
in_tree(const char *path)
{
	for (int i = 0; i < NROOTS; i++)
		if (strncmp(path, tree_roots[i], strlen(tree_roots[i])) == 0)
			return true;
	return false;
}

/* The included path of one line, from the root, in out; false if the
 * line is no #include of a named file. */
static bool
parse_include(const char *line, const char *file, char *out, size_t size)
{
	const char *p = line, *end;
	char close;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '#')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "include", 7) != 0)
		return false;
	p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '<')
		close = '>';
	else if (*p == '"')
		close = '"';
	else
		return false; /* #include MACRO */
	end = strchr(++p, close);
	if (end == NULL || end == p)
		return false;
	n = (size_t)(end - p);
	if (close == '"' && memchr(p, '/', n) == NULL) {
		/* Next to the including file. */
		const char *slash = strrchr(file, '/');
		size_t dir = slash != NULL ? (size_t)(slash - file) + 1 : 0;
		if (dir + n >= size)
			return false;
		memcpy(out, file, dir);
		memcpy(out + dir, p, n);
		out[dir + n] = '\0';
		return true;
	}
	if (n >= size)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static void
check_file(const char *path, const char *rel)
{
	char line[1024], inc[MAX_PATH];
	int from = layer_of(rel), to;
	unsigned lineno = 0;
	FILE *f;

	if (from < 0) {
		if (in_tree(rel)) {
			nfiles++;
			nviolations++;
			printf(
			    "layercheck: %s: in no layer (give its directory "
			    "a row in scripts/layercheck.c)\n",
			    rel);
		}
		return;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		perror(path);
		io_error = 1;
		return;
	}
	nfiles++;
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (!parse_include(line, rel, inc, sizeof(inc)))
			continue;
		to = layer_of(inc);
		if (to < 0 && in_tree(inc)) {
			nviolations++;
			printf("layercheck: %s:%u: includes %s, in no layer\n",
			       rel, lineno, inc);
			continue;
		}
		if (to < 0)
			continue; /* a system header */
		nincludes++;
		if (reach[from][to])
			continue;
		nviolations++;
		printf("layercheck: %s:%u: %s includes %s from %s, a layer "
		       "above it\n",
		       rel, lineno, layers[from].name, inc, layers[to].name);
	}
	fclose(f);
}

static bool
is_source(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot != NULL &&
	       (strcmp(dot, ".c") == 0 || strcmp(dot, ".h") == 0 ||
	        strcmp(dot, ".S") == 0);
}

static int
visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + root_len;

	(void)st;
	(void)ftw;
	while (*rel == '/')
		rel++;
	if (type == FTW_F && is_source(rel))
		check_file(path, rel);
	else if (type == FTW_DNR || type == FTW_NS) {
		fprintf(stderr, "layercheck: cannot read %s\n", path);
		io_error = 1;
	}
	return 0;
}

/* Is dir inside another layer's directory (drivers/net/ in drivers/)? */
static bool
nested(const char *dir)
{
	for (int i = 0; i < NLAYERS; i++)
		for (int j = 0; j < MAX_PREFIX && layers[i].dirs[j]; j++) {
			size_t n = strlen(layers[i].dirs[j]);
			if (n < strlen(dir) &&
			    strncmp(dir, layers[i].dirs[j], n) == 0)
				return true;
		}
	return false;
}

static void
print_rules(void)
{
	for (int i = 0; i < NLAYERS; i++) {
		printf("%-12s", layers[i].name);
		for (int j = 0; j < MAX_PREFIX && layers[i].dirs[j]; j++)
			printf(" %s", layers[i].dirs[j]);
		printf("\n%12s may include:", "");
		for (int j = 0; j < NLAYERS; j++)
			if (reach[i][j] && j != i)
				printf(" %s", layers[j].name);
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	char dir[MAX_PATH];

	close_arrows();
	if (argc == 2 && strcmp(argv[1], "--rules") == 0) {
		print_rules();
		return 0;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr,
		        "usage: layercheck [ROOT] | layercheck --rules\n");
		return 2;
	}
	root = argc == 2 ? argv[1] : ".";
	root_len = strlen(root);
	/* The kernel tree and the layers' directories, each once: build/
	 * and the host tools are not part of the kernel tree. */
	for (int i = 0; i < NROOTS; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, tree_roots[i]);
		nftw(dir, visit, 16, FTW_PHYS); /* absent in a fixture: fine */
	}
	for (int i = 0; i < NLAYERS; i++)
		for (int j = 0; j < MAX_PREFIX && layers[i].dirs[j]; j++) {
			if (nested(layers[i].dirs[j]) ||
			    in_tree(layers[i].dirs[j]))
				continue; /* walked already */
			snprintf(dir, sizeof(dir), "%s/%s", root,
			         layers[i].dirs[j]);
			if (nftw(dir, visit, 16, FTW_PHYS) != 0)
				continue; /* a tree without that layer */
		}
	if (io_error)
		return 2;
	if (nfiles == 0) {
		fprintf(stderr, "layercheck: no kernel source under %s\n",
		        root);
		return 2;
	}
	if (nviolations != 0) {
		printf("layercheck: %u violation(s) in %u files\n", nviolations,
		       nfiles);
		return 1;
	}
	printf("layercheck: %u files, %u includes between layers, none "
	       "upward\n",
	       nfiles, nincludes);
	return 0;
}
