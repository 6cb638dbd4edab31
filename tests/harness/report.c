/*
 * Run reports and their pipe format (see report.h).  The format is
 *   P <tab> pass|fail|skip <tab> name <tab> reason
 *   D <tab> diagnostic line            (belongs to the P line above)
 * Tabs and newlines inside fields become spaces: TAP is line based anyway.
 */
#include "tests/harness/report.h"
#include "tests/harness/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const status_names[] = {"pass", "fail", "skip"};

void
report_init(struct report *r)
{
	r->p = NULL;
	r->n = 0;
}

void
report_free(struct report *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->p[i].name);
		free(r->p[i].reason);
		for (int j = 0; j < r->p[i].ndiag; j++)
			free(r->p[i].diag[j]);
		free(r->p[i].diag);
	}
	free(r->p);
	report_init(r);
}

static char *
flat(const char *s)
{
	char *c = xstrdup(s ? s : "");

	for (char *p = c; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return c;
}

void
report_add(struct report *r, enum point_status st, const char *name,
           const char *reason)
{
	struct point *p;

	r->p = xrealloc(r->p, (size_t)(r->n + 1) * sizeof(*p));
	p = &r->p[r->n++];
	memset(p, 0, sizeof(*p));
	p->status = st;
	p->name = flat(name);
	p->reason = flat(reason);
}

void
report_diag(struct report *r, const char *line)
{
	struct point *p;

	if (r->n == 0)
		return;
	p = &r->p[r->n - 1];
	p->diag = xrealloc(p->diag, (size_t)(p->ndiag + 1) * sizeof(char *));
	p->diag[p->ndiag++] = flat(line);
}

static int
write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
report_write(int fd, const struct report *r)
{
	struct strbuf sb;
	int rc;

	sb_init(&sb);
	for (int i = 0; i < r->n; i++) {
		sb_addf(&sb, "P\t%s\t%s\t%s\n", status_names[r->p[i].status],
		        r->p[i].name, r->p[i].reason);
		for (int j = 0; j < r->p[i].ndiag; j++)
			sb_addf(&sb, "D\t%s\n", r->p[i].diag[j]);
	}
	rc = write_all(fd, sb.buf, sb.len);
	sb_free(&sb);
	return rc;
}

int
report_parse_line(struct report *r, char *line)
{
	char *f[4] = {0};
	int n = 0;

	for (char *p = line; n < 4; n++) {
		f[n] = p;
		p = strchr(p, '\t');
		if (p == NULL) {
			n++;
			break;
		}
		*p++ = '\0';
	}
	if (n == 2 && strcmp(f[0], "D") == 0) {
		report_diag(r, f[1]);
		return 0;
	}
	if (n != 4 || strcmp(f[0], "P") != 0)
		return -1;
	for (int st = PT_PASS; st <= PT_SKIP; st++)
		if (strcmp(f[1], status_names[st]) == 0) {
			report_add(r, (enum point_status)st, f[2], f[3]);
			return 0;
		}
	return -1;
}
