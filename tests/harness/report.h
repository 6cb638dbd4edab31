/*
 * The results of one run: TAP points with reasons and diagnostic lines.
 * A run executes in a child process, so a report is written to a pipe as
 * tab-separated lines and read back by the scheduler in main.c.
 */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H

#include <stdbool.h>

enum point_status { PT_PASS, PT_FAIL, PT_SKIP };

struct point {
	enum point_status status;
	char *name;
	char *reason; /* "" when none */
	char **diag;  /* extra lines printed after the point as "# ..." */
	int ndiag;
};

struct report {
	struct point *p;
	int n;
};

void report_init(struct report *r);
void report_free(struct report *r);
void report_add(struct report *r, enum point_status st, const char *name,
                const char *reason);
/* Attach a diagnostic line to the latest point. */
void report_diag(struct report *r, const char *line);

/* Serialise to fd; returns -1 on a write error. */
int report_write(int fd, const struct report *r);
/* Parse one serialised line into r; returns -1 if it is malformed. */
int report_parse_line(struct report *r, char *line);

#endif
