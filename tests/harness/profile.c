/*
 * QEMU launch profiles: parsing and validation (see profile.h).
 */
#include "tests/harness/profile.h"
#include "tests/harness/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nic_names[] = {"none", "e1000", "virtio", "both"};
static const char *const boot_names[] = {"direct", "iso"};
static const char *const net_names[] = {"user", "none", "dgram", "tap"};

const char *
nic_name(enum nic_kind k)
{
	return nic_names[k];
}

const char *
boot_name(enum boot_kind k)
{
	return boot_names[k];
}

const char *
net_name(enum net_kind k)
{
	return net_names[k];
}

void
profile_defaults(struct profile *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->smp = 2;
	snprintf(p->mem, sizeof(p->mem), "128M");
	p->nic = NIC_BOTH;
	p->boot = BOOT_DIRECT;
	p->net = NET_USER;
}

static int
pick(const char *const *names, int n, const char *value)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], value) == 0)
			return i;
	return -1;
}

/* "A.B.C.D/N" with N 8..30: a slirp network (QEMU puts its gateway at
 * .2 and hands out leases from .15). */
static int
valid_subnet(const char *v)
{
	unsigned a, b, c, d, n;
	char tail;

	if (strlen(v) >= sizeof(((struct profile *)0)->subnet[0]) ||
	    sscanf(v, "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &n, &tail) != 5)
		return 0;
	return a < 256 && b < 256 && c < 256 && d < 256 && n >= 8 && n <= 30;
}

/* QEMU accepts more, but these are the sizes a person means. */
static int
valid_mem(const char *v)
{
	size_t n = strlen(v);
	const char *p = v;

	if (n == 0 || n >= sizeof(((struct profile *)0)->mem))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == v)
		return 0;
	return *p == '\0' || (strchr("MG", *p) != NULL && p[1] == '\0');
}

int
profile_set(struct profile *p, const char *key, const char *value, char *err,
            size_t errlen)
{
	int k;

	if (strcmp(key, "smp") == 0) {
		char *end;
		long n = strtol(value, &end, 10);

		if (*value == '\0' || *end != '\0' || n < 1 || n > 8) {
			snprintf(err, errlen, "smp: '%s' is not 1..8", value);
			return -1;
		}
		p->smp = (int)n;
	} else if (strcmp(key, "mem") == 0) {
		if (!valid_mem(value)) {
			snprintf(err, errlen,
			         "mem: '%s' is not a size like 128M or 1G",
			         value);
			return -1;
		}
		snprintf(p->mem, sizeof(p->mem), "%s", value);
	} else if (strcmp(key, "nic") == 0) {
		if ((k = pick(nic_names, 4, value)) < 0) {
			snprintf(err, errlen,
			         "nic: '%s' is not e1000|virtio|both|none",
			         value);
			return -1;
		}
		p->nic = (enum nic_kind)k;
	} else if (strcmp(key, "boot") == 0) {
		if ((k = pick(boot_names, 2, value)) < 0) {
			snprintf(err, errlen, "boot: '%s' is not direct|iso",
			         value);
			return -1;
		}
		p->boot = (enum boot_kind)k;
	} else if (strcmp(key, "net") == 0) {
		if ((k = pick(net_names, 4, value)) < 0) {
			snprintf(err, errlen,
			         "net: '%s' is not user|none|dgram|tap", value);
			return -1;
		}
		p->net = (enum net_kind)k;
	} else if (strcmp(key, "subnet0") == 0 || strcmp(key, "subnet1") == 0) {
		if (!valid_subnet(value)) {
			snprintf(err, errlen,
			         "%s: '%s' is not a network like 10.0.3.0/24",
			         key, value);
			return -1;
		}
		snprintf(p->subnet[key[6] - '0'], sizeof(p->subnet[0]), "%s",
		         value);
	} else if (strcmp(key, "rr") == 0) {
		if (strcmp(value, "record") != 0 &&
		    strcmp(value, "replay") != 0) {
			snprintf(err, errlen, "rr: '%s' is not record|replay",
			         value);
			return -1;
		}
		snprintf(p->rr, sizeof(p->rr), "%s", value);
	} else if (strcmp(key, "rrfile") == 0) {
		if (*value == '\0' || strlen(value) >= sizeof(p->rrfile) ||
		    strpbrk(value, ", ") != NULL) {
			snprintf(err, errlen,
			         "rrfile: '%s' is empty, too long or has a "
			         "',' or blank",
			         value);
			return -1;
		}
		snprintf(p->rrfile, sizeof(p->rrfile), "%s", value);
	} else {
		snprintf(err, errlen,
		         "unknown key '%s' (smp, mem, nic, boot, net, "
		         "subnet0, subnet1, rr, rrfile)",
		         key);
		return -1;
	}
	return 0;
}

int
profile_parse(struct profile *p, const char *file, const char *text, char *err,
              size_t errlen)
{
	char *copy = xstrdup(text), *save = NULL, *line;
	int lineno = 0, rc = 0;
	char msg[256];

	/* strtok_r would merge empty lines and break line numbers. */
	for (line = copy; line != NULL; line = save) {
		char *key, *value;

		save = strchr(line, '\n');
		if (save != NULL)
			*save++ = '\0';
		lineno++;
		if (strchr(line, '#') != NULL)
			*strchr(line, '#') = '\0';
		key = trim(line);
		if (*key == '\0')
			continue;
		value = key + strcspn(key, " \t");
		if (*value != '\0')
			*value++ = '\0';
		value = trim(value);
		if (*value == '\0' || strpbrk(value, " \t") != NULL) {
			snprintf(err, errlen, "%s:%d: '%s' needs one value",
			         file, lineno, key);
			rc = -1;
			break;
		}
		if (profile_set(p, key, value, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "%s:%d: %s", file, lineno, msg);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && (p->rr[0] != '\0') != (p->rrfile[0] != '\0')) {
		snprintf(err, errlen, "%s: rr and rrfile go together", file);
		rc = -1;
	} else if (rc == 0 && p->rr[0] != '\0' && p->smp != 1) {
		snprintf(err, errlen,
		         "%s: rr needs smp 1 (QEMU records one CPU)", file);
		rc = -1;
	}
	free(copy);
	return rc;
}

int
profile_load(struct profile *p, const char *dir, const char *name, char *err,
             size_t errlen)
{
	char *path, *text, *base;
	int rc;

	if (strchr(name, '/') != NULL)
		path = xstrdup(name);
	else
		path = xasprintf("%s/%s.profile", dir, name);
	/* The profile's name is the file's base name, for run names. */
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	profile_defaults(p, base);
	if (strlen(p->name) > 8 &&
	    strcmp(p->name + strlen(p->name) - 8, ".profile") == 0)
		p->name[strlen(p->name) - 8] = '\0';
	text = read_file(path);
	if (text == NULL) {
		snprintf(err, errlen, "%s: cannot read profile: %s", path,
		         strerror(errno));
		free(path);
		return -1;
	}
	rc = profile_parse(p, path, text, err, errlen);
	free(text);
	free(path);
	return rc;
}
