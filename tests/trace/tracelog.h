/*
 * The reference timeline as the kernel prints it (kernel/debug/trace.c:
 * `trace: begin` .. `trace: end` in a serial log), read into memory.
 * The log is hostile input: every line of the block is checked, and the
 * first malformed one is reported with its line number.
 */
#ifndef TRACE_TRACELOG_H
#define TRACE_TRACELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tr_kind {
	TR_DEV_HOLD,
	TR_DEV_PUT,
	TR_DEV_PHASE,
	TR_MOD_GET,
	TR_MOD_PUT,
	TR_MOD_PHASE,
	TR_SOCK_PHASE,
	TR_NKINDS
};

struct tr_event {
	uint64_t ns;
	unsigned seq, cpu, tid;
	enum tr_kind kind;
	char name[32];
	uint32_t obj, holder;
	char tag[32];
	int delta, count;
	char site[160];
};

struct tr_thread {
	unsigned tid;
	char name[32];
};

struct tr_count {
	bool dev; /* else a module */
	char name[32];
	uint32_t obj;
	int count;
};

struct tracelog {
	struct tr_event *ev;
	size_t nev;
	struct tr_thread *th;
	size_t nth;
	struct tr_count *cnt;
	size_t ncnt;
	unsigned events, lost, cpus; /* the begin line's figures */
	bool complete;               /* an end line was seen */
};

/* Read the last trace block of the log at path (sorted by time, then by
 * sequence).  0, or -1 with a one-line reason in err. */
int tracelog_read(const char *path, struct tracelog *t, char *err,
                  size_t errlen);
/* The same from an open stream (path names it in errors). */
int tracelog_read_file(FILE *f, const char *path, struct tracelog *t, char *err,
                       size_t errlen);
void tracelog_free(struct tracelog *t);

/* p with room for element n (of size bytes), *cap grown by doubling;
 * exits on out of memory. */
void *tr_grow(void *p, size_t *cap, size_t n, size_t size);

const char *tr_kind_name(enum tr_kind k);
bool tr_is_dev(enum tr_kind k);
bool tr_is_get(enum tr_kind k);
bool tr_is_put(enum tr_kind k);
bool tr_is_phase(enum tr_kind k);
/* "dev NAME", "mod NAME" or "tcp NAME": the object's track name. */
void tr_track(const struct tr_event *e, char *buf, size_t size);
const char *tr_thread_name(const struct tracelog *t, unsigned tid);

#endif
