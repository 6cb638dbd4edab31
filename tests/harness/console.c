/*
 * Console stream: reading, logging, panic/reject scanning and matching
 * (see console.h).
 */
#include "tests/harness/console.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
console_init(struct console *c, int in_fd, int out_fd, FILE *log)
{
	memset(c, 0, sizeof(*c));
	c->in_fd = in_fd;
	c->out_fd = out_fd;
	c->log = log;
	c->start_bol = true;
	c->log_bol = true;
	sb_init(&c->text);
	sb_init(&c->report);
	console_attach(c, in_fd, out_fd);
}

void
console_attach(struct console *c, int in_fd, int out_fd)
{
	c->in_fd = in_fd;
	c->out_fd = out_fd;
	/* A stalled guest must not block the harness past its deadlines. */
	if (in_fd >= 0)
		fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK);
}

void
console_free(struct console *c)
{
	sb_free(&c->text);
	sb_free(&c->report);
	free(c->rejected);
	c->rejected = NULL;
	free(c->sub);
	c->sub = NULL;
}

static void
check_line(struct console *c, const char *line)
{
	if (c->panic && c->report_lines < PANIC_REPORT_LINES) {
		sb_adds(&c->report, line);
		sb_adds(&c->report, "\n");
		c->report_lines++;
	} else if (!c->panic && strstr(line, PANIC_MARK) != NULL) {
		c->panic = true;
		sb_adds(&c->report, strstr(line, PANIC_MARK));
		sb_adds(&c->report, "\n");
		c->report_lines = 1;
	}
	if (strncmp(line, "trace: begin ", 13) == 0)
		c->trace_open = true;
	else if (strcmp(line, "trace: end") == 0)
		c->trace_open = false;
	for (int i = 0; i < c->nreject && c->rejected == NULL; i++)
		if (regexec(c->reject[i].re, line, 0, NULL, 0) == 0)
			c->rejected = xasprintf("reject /%s/ matched: %s",
			                        c->reject[i].src, line);
}

/* Check every complete line after `scanned`. */
static void
scan(struct console *c, bool include_partial)
{
	while (c->scanned < c->text.len) {
		char *start = c->text.buf + c->scanned;
		char *nl = memchr(start, '\n', c->text.len - c->scanned);
		char *line;

		if (nl == NULL && !include_partial)
			break;
		line = xstrndup(start, nl ? (size_t)(nl - start)
		                          : c->text.len - c->scanned);
		check_line(c, line);
		free(line);
		c->scanned = nl ? (size_t)(nl - c->text.buf) + 1 : c->text.len;
	}
}

/* Forget text that is both consumed and scanned, keeping memory bounded. */
static void
compact(struct console *c)
{
	size_t drop = c->pos < c->scanned ? c->pos : c->scanned;

	if (drop < 65536)
		return;
	c->start_bol = c->text.buf[drop - 1] == '\n';
	sb_consume(&c->text, drop);
	c->pos -= drop;
	c->scanned -= drop;
	if (c->search_re != NULL) {
		c->search_pos -= drop;
		c->search_at -= drop;
	}
}

static void
log_bytes(struct console *c, const char *buf, size_t n)
{
	if (c->log == NULL || n == 0)
		return;
	fwrite(buf, 1, n, c->log);
	fflush(c->log);
	c->log_bol = buf[n - 1] == '\n';
}

int
console_read(struct console *c, int timeout_ms)
{
	struct pollfd pfd = {.fd = c->out_fd, .events = POLLIN};
	char buf[4096], clean[4096];
	ssize_t n;
	size_t m = 0;

	if (c->out_fd < 0)
		return -1;
	if (poll(&pfd, 1, timeout_ms < 0 ? 0 : timeout_ms) <= 0)
		return 0;
	n = read(c->out_fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(c->out_fd);
		c->out_fd = -1;
		return -1;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] != '\r' && buf[i] != '\0')
			clean[m++] = buf[i];
	log_bytes(c, clean, m);
	sb_add(&c->text, clean, m);
	scan(c, false);
	compact(c);
	return 1;
}

void
console_flush_partial(struct console *c)
{
	scan(c, true);
}

bool
console_match(struct console *c, const regex_t *re)
{
	size_t at = c->pos;

	if (c->search_re == re && c->search_pos == c->pos)
		at = c->search_at;
	while (at < c->text.len) {
		char *start = c->text.buf + at;
		char *nl = memchr(start, '\n', c->text.len - at);
		size_t len = nl ? (size_t)(nl - start) : c->text.len - at;
		bool bol = at == 0 ? c->start_bol : c->text.buf[at - 1] == '\n';
		char *line = xstrndup(start, len);
		regmatch_t m[2];
		int rc = regexec(re, line, 2, m, bol ? 0 : REG_NOTBOL);

		if (rc == 0) {
			free(c->sub);
			c->sub =
			    re->re_nsub >= 1 && m[1].rm_so >= 0
			        ? xstrndup(line + m[1].rm_so,
			                   (size_t)(m[1].rm_eo - m[1].rm_so))
			        : NULL;
		}
		free(line);
		if (rc == 0) {
			c->pos = at + (size_t)m[0].rm_eo;
			/* A match to the end of a line also takes its newline.
			 */
			if (nl != NULL && (size_t)m[0].rm_eo == len)
				c->pos++;
			c->search_re = NULL;
			return true;
		}
		if (nl == NULL)
			break;
		at += len + 1;
		c->search_re = re;
		c->search_pos = c->pos;
		c->search_at = at;
	}
	return false;
}

char *
console_line(struct console *c)
{
	char *start = c->text.buf + c->pos;
	char *nl = memchr(start, '\n', c->text.len - c->pos);
	char *line;

	if (nl == NULL)
		return NULL;
	line = xstrndup(start, (size_t)(nl - start));
	c->pos += (size_t)(nl - start) + 1;
	return line;
}

const char *
console_rest(struct console *c, size_t *len)
{
	*len = c->text.len - c->pos;
	return c->text.buf + c->pos;
}

int
console_reject(struct console *c, const regex_t *re, const char *src)
{
	size_t at = c->pos;

	if (c->nreject == CONSOLE_MAX_REJECT)
		return -1;
	c->reject[c->nreject].re = re;
	c->reject[c->nreject].src = src;
	c->nreject++;
	/* Lines already received but not consumed count as "from now on". */
	while (at < c->scanned && c->rejected == NULL) {
		char *start = c->text.buf + at;
		char *nl = memchr(start, '\n', c->scanned - at);
		size_t len = nl ? (size_t)(nl - start) : c->scanned - at;
		char *line = xstrndup(start, len);

		if (regexec(re, line, 0, NULL, 0) == 0)
			c->rejected =
			    xasprintf("reject /%s/ matched: %s", src, line);
		free(line);
		at += len + 1;
	}
	return 0;
}

int
console_send(struct console *c, const char *buf, size_t n, char *err,
             size_t errlen)
{
	int64_t deadline = now_ms() + 10000;

	while (n > 0) {
		ssize_t w = write(c->in_fd, buf, n);

		if (w > 0) {
			buf += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EPIPE) {
			snprintf(err, errlen, "QEMU closed its serial input");
			return -1;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "serial input: %s",
			         strerror(errno));
			return -1;
		}
		if (now_ms() > deadline) {
			snprintf(err, errlen,
			         "serial input blocked for 10s (is the kernel "
			         "reading its UART?)");
			return -1;
		}
		/* Keep draining output so QEMU is never stuck on both pipes. */
		console_read(c, 50);
	}
	return 0;
}

void
console_note(struct console *c, const char *fmt, ...)
{
	va_list ap;

	if (c->log == NULL)
		return;
	if (!c->log_bol)
		fputc('\n', c->log);
	fputs("### harness: ", c->log);
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
	fputc('\n', c->log);
	fflush(c->log);
	c->log_bol = true;
}
