/*
 * The serial console of one QEMU, seen as a stream of text.  Output is
 * logged as it arrives, '\r' and NUL bytes are dropped, and every complete
 * line is checked for a kernel panic and for `reject` patterns, whether or
 * not a directive ever looks at it.  Directives consume the text in order:
 * `expect` moves a cursor past its match, `ktap` past whole lines.
 */
#ifndef HARNESS_CONSOLE_H
#define HARNESS_CONSOLE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tests/harness/util.h"

#define PROMPT             "modref> "
#define PANIC_MARK         "KERNEL PANIC:"
#define CONSOLE_MAX_REJECT 16
#define PANIC_REPORT_LINES 40

struct console {
	int in_fd;  /* QEMU's stdin (serial input) */
	int out_fd; /* QEMU's stdout+stderr; -1 after EOF */
	FILE *log;
	struct strbuf text; /* unconsumed output, maybe some consumed too */
	size_t pos;         /* consumption cursor in text */
	size_t scanned;     /* text[0..scanned) lines were checked */
	bool start_bol;     /* text[0] is at the start of a line */
	bool log_bol;       /* the log's last byte was '\n' */

	bool panic;           /* a KERNEL PANIC line was seen */
	bool trace_open;      /* inside a trace dump (docs/trace.md) */
	struct strbuf report; /* the panic line and what followed */
	int report_lines;

	struct {
		const regex_t *re;
		const char *src;
	} reject[CONSOLE_MAX_REJECT];
	int nreject;
	char *rejected; /* why, once a reject pattern matched */
	char *sub; /* the first (group) of the last console_match, or NULL */

	/*
	 * Where the last failed console_match() for this regex and cursor
	 * stopped: complete lines before it need no second look, which keeps
	 * a long wait on a chatty guest linear instead of quadratic.
	 */
	const regex_t *search_re;
	size_t search_pos, search_at;
};

void console_init(struct console *c, int in_fd, int out_fd, FILE *log);
void console_free(struct console *c);
/* Connect the pipes of a QEMU started after console_init(). */
void console_attach(struct console *c, int in_fd, int out_fd);

/*
 * Wait up to timeout_ms for output and take what is there.  Returns 1 if
 * text arrived, 0 on timeout, -1 at end of file (QEMU has exited).
 */
int console_read(struct console *c, int timeout_ms);

/* Search unconsumed text line by line, consume through the match; the
 * text of the regex's first (group), if it took part, goes to c->sub. */
bool console_match(struct console *c, const regex_t *re);

/*
 * Take the next complete unconsumed line (without '\n') into a new string.
 * NULL if no complete line is buffered.
 */
char *console_line(struct console *c);

/* The unconsumed text of the current line, or "" (not a copy). */
const char *console_rest(struct console *c, size_t *len);

/* Treat what is left as complete lines (at end of file). */
void console_flush_partial(struct console *c);

/* Start checking re against every line not yet consumed, now and later. */
int console_reject(struct console *c, const regex_t *re, const char *src);

/* Write bytes to the serial input; -1 with a message in err on failure. */
int console_send(struct console *c, const char *buf, size_t n, char *err,
                 size_t errlen);

/* Write a harness note on a line of its own in the log. */
void console_note(struct console *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
