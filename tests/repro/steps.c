/*
 * A scenario cut into a header and steps for make repro's trials, and
 * the harness's verdict on a run (steps.h).
 */
#include <errno.h>
#include <string.h>

#include "tests/repro/repro.h"
#include "tests/repro/steps.h"

bool
starts(const char *line, const char *word)
{
	size_t n = strlen(word);

	return strncmp(line, word, n) == 0 &&
	       (line[n] == ' ' || line[n] == '\0' || line[n] == '\n');
}

static bool
append(char *dst, size_t size, const char *line)
{
	size_t n = strlen(dst);

	if (n + strlen(line) + 2 > size)
		return false;
	snprintf(dst + n, size - n, "%s\n", line);
	return true;
}

/* What boots the guest and watches it throughout: kept in every trial. */
static bool
header_line(const char *line)
{
	static const char *const words[] = {"cmdline",     "modules", "limit",
	                                    "reject",      "hostfwd", "tftp",
	                                    "audit-allow", "gdbstub", "pcap"};

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (starts(line, words[i]))
			return true;
	return false;
}

/* What begins a step. */
static bool
starter_line(const char *line)
{
	static const char *const words[] = {
	    "send", "sendraw", "ctrl-c", "host", "host-ktap", "peer", "sleep"};

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (starts(line, words[i]))
			return true;
	return false;
}

int
steps_read(struct steps *s, const char *path, bool (*stop)(const char *line),
           bool *stopped)
{
	char line[LINE];
	FILE *f = fopen(path, "r");
	int no = 0;

	memset(s, 0, sizeof(*s));
	if (stopped != NULL)
		*stopped = false;
	if (f == NULL) {
		fprintf(stderr, "repro: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		no++;
		chomp(line);
		if (line[0] == '#' || line[0] == '\0' ||
		    starts(line, "profiles"))
			continue;
		if (stop != NULL && stop(line)) {
			if (stopped != NULL)
				*stopped = true;
			break;
		}
		/* a reject after the first step is positional: it watches
		 * from there on, so it stays there */
		if (header_line(line) &&
		    !(starts(line, "reject") && s->n > 0)) {
			if (!append(s->header, sizeof(s->header), line))
				goto too_long;
		} else if (starter_line(line) || s->n == 0) {
			if (s->n == MAXSTEPS)
				goto too_long;
			s->text[s->n][0] = '\0';
			s->keep[s->n] = true;
			s->first[s->n] = s->last[s->n] = no;
			if (!append(s->text[s->n++], STEPLINES, line))
				goto too_long;
		} else {
			s->last[s->n - 1] = no;
			if (!append(s->text[s->n - 1], STEPLINES, line))
				goto too_long;
		}
	}
	fclose(f);
	return 0;
too_long:
	fclose(f);
	fprintf(stderr,
	        "repro: %s: more than %d steps, or an overlong step or "
	        "header\n",
	        path, MAXSTEPS);
	return -1;
}

/* A check that waits for something to happen in its time (a poll, an
 * expect with its own timeout), which a bare step keeps if bare_waits. */
static bool
wait_line(const char *l)
{
	return starts(l, "poll") ||
	       (starts(l, "expect") && strncmp(l + 6, " -t ", 4) == 0);
}

void
steps_write(const struct steps *s, FILE *f, const char *profile,
            const char *extra, int upto)
{
	bool added = false;

	fprintf(f, "profiles %s\n", profile);
	if (extra[0] != '\0' && strstr(s->header, "cmdline ") == NULL)
		fprintf(f, "cmdline%s\n", extra);
	for (const char *l = s->header; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		int len = (int)(nl - l);

		if (!added && strncmp(l, "cmdline ", 8) == 0) {
			fprintf(f, "%.*s%s\n", len, l, extra);
			added = true;
		} else {
			fprintf(f, "%.*s\n", len, l);
		}
		l = nl + 1;
	}
	for (int i = 0; i < s->n && i < upto; i++) {
		if (s->keep[i] && !s->bare[i]) {
			fputs(s->text[i], f);
			continue;
		}
		for (const char *l = s->text[i]; *l != '\0';) {
			const char *nl = strchr(l, '\n');

			if (starts(l, "timeout") || starts(l, "reject") ||
			    (s->keep[i] &&
			     (starter_line(l) || starts(l, "prompt") ||
			      (s->bare_waits && wait_line(l)))))
				fprintf(f, "%.*s\n", (int)(nl - l), l);
			l = nl + 1;
		}
	}
}

void
steps_leave_out(struct steps *s, bool (*trial)(const char *why))
{
	for (int i = s->n - 1; i >= 1; i--) {
		s->keep[i] = false;
		if (!trial("without a setup step"))
			s->keep[i] = true;
	}
}

int
steps_sends(const struct steps *s, int upto)
{
	int n = 0;

	for (int i = 0; i < s->n && i < upto; i++)
		for (const char *l = s->text[i]; s->keep[i] && *l != '\0';) {
			n += starts(l, "send") || starts(l, "sendraw");
			l = strchr(l, '\n') + 1;
		}
	return n;
}

void
write_reject(FILE *f, const char *line)
{
	fputs("reject ", f);
	for (; *line != '\0'; line++) {
		if (strchr(".[]()*+?{}|^$\\", *line) != NULL)
			fputc('\\', f);
		fputc(*line, f);
	}
	fputc('\n', f);
}

/* Each word of BUF (up to a blank or a quote) that names a run's own
 * file, its capture or its serial log (`${PCAPn}`, `${LOG}` expanded in
 * a host command: the logs' directory and the run's name differ from
 * one run to the next), becomes "FILE". */
static void
mask_run_files(char *buf)
{
	static const char *const kinds[] = {".pcap", ".log"};

	for (char *w = buf; *w != '\0';) {
		size_t n = strcspn(w, " '\"");

		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t kl = strlen(kinds[k]);

			if (n > kl && memchr(w, '/', n) != NULL &&
			    strncmp(w + n - kl, kinds[k], kl) == 0) {
				memcpy(w, "FILE", 4);
				memmove(w + 4, w + n, strlen(w + n) + 1);
				n = 4;
				break;
			}
		}
		w += n;
		if (*w != '\0')
			w++;
	}
}

/* The FAIL message made comparable between runs: the directive's line
 * number, what follows a ';' (the last output, the hang dump note), an
 * audit's capture file and counts go; a run's own files (mask_run_files)
 * become "FILE", hex and decimal numbers '#'.  *line gets the line
 * number, or 0. */
void
fail_normalise(const char *msg, char *out, size_t size, int *line)
{
	char buf[LINE], *p;
	int len = 0;

	*line = 0;
	if (sscanf(msg, "line %d: %n", line, &len) == 1 && len > 0)
		msg += len;
	snprintf(buf, sizeof(buf), "%s", msg);
	if ((p = strchr(buf, ';')) != NULL)
		*p = '\0';
	if (strncmp(buf, "audit: ", 7) == 0 &&
	    (p = strstr(buf + 7, ": ")) != NULL) {
		/* "audit: FILE.pcap: PROBLEM xN (first: ...)" */
		char *x = strstr(p, " (first: ");

		if (x != NULL)
			*x = '\0';
		memmove(buf + 7, p + 2, strlen(p + 2) + 1);
	}
	mask_run_files(buf);
	mask_numbers(buf, out, size);
}

void
mask_numbers(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = in; *p != '\0' && n + 2 < size;) {
		if (p[0] == '0' && p[1] == 'x') {
			p += 2;
			while ((*p >= '0' && *p <= '9') ||
			       (*p >= 'a' && *p <= 'f'))
				p++;
			out[n++] = '#';
		} else if (*p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			out[n++] = '#';
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
}

/* The message of f's next "### harness: FAIL: " line, in line; NULL at
 * the end (or no file). */
static const char *
next_fail(FILE *f, char *line, size_t size)
{
	while (f != NULL && fgets(line, (int)size, f) != NULL) {
		chomp(line);
		if (strncmp(line, "### harness: FAIL: ", 19) == 0)
			return line + 19;
	}
	return NULL;
}

/* The first "### harness: FAIL: " of a log, or false. */
bool
first_fail(const char *log, char *out, size_t size)
{
	char line[LINE];
	FILE *f = fopen(log, "r");
	const char *msg = next_fail(f, line, sizeof(line));

	if (msg != NULL)
		snprintf(out, size, "%s", msg);
	if (f != NULL)
		fclose(f);
	return msg != NULL;
}

bool
audit_finding_in(const char *log, const char *sig)
{
	char line[LINE], one[LINE], norm[LINE];
	bool found = false;
	FILE *f = fopen(log, "r");
	const char *msg;
	int no;

	while (!found && (msg = next_fail(f, line, sizeof(line))) != NULL) {
		const char *file_end, *p;

		if (strncmp(msg, "audit: ", 7) != 0 ||
		    (file_end = strstr(msg + 7, ": ")) == NULL)
			continue;
		/* "audit: FILE: PROBLEM xN (first: ...); PROBLEM ..." */
		for (p = file_end + 2; !found && *p != '\0';) {
			size_t n = strcspn(p, ";");

			snprintf(one, sizeof(one), "%.*s%.*s",
			         (int)(file_end + 2 - msg), msg, (int)n, p);
			fail_normalise(one, norm, sizeof(norm), &no);
			found = strcmp(norm, sig) == 0;
			p += n;
			p += strspn(p, "; ");
		}
	}
	if (f != NULL)
		fclose(f);
	return found;
}
