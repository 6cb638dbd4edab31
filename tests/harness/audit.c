/*
 * Capture audit (see audit.h): tshark's view of every frame the guest
 * sent, judged against audit_rules[].
 */
#include "tests/harness/audit.h"
#include "tests/harness/qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * What fails and what is benign.  An expert warning or error on a guest
 * frame that no rule here names fails the run as "expert warning".
 * Deliberately absent: checksum offload (modref computes every checksum
 * in software, or leaves TCP/UDP ones to QEMU's e1000, which fills them
 * in before the frame reaches the tap: a bad one is a bug) and the
 * virtio-net header (the
 * harness opens its taps without IFF_VNET_HDR, so captures hold plain
 * Ethernet frames).
 */
const struct audit_rule audit_rules[] = {
    {"_ws.malformed", AUDIT_SEV_ERROR, AUDIT_FAIL, "malformed frame", NULL},
    {"ip.checksum_bad.expert", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad IP checksum",
     NULL},
    {"tcp.checksum_bad.expert", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad TCP checksum",
     NULL},
    {"udp.checksum.bad", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad UDP checksum", NULL},
    {"icmp.checksum_bad", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad ICMP checksum",
     NULL},
    {"ip.bogus_ip_length", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad IP total length",
     NULL},
    {"ip.bogus_header_length", AUDIT_SEV_ERROR, AUDIT_FAIL,
     "bad IP header length", NULL},
    {"udp.length.bad", AUDIT_SEV_ERROR, AUDIT_FAIL, "bad UDP length", NULL},
    {"tcp.analysis.out_of_order", AUDIT_SEV_WARNING, AUDIT_FAIL,
     "out-of-order segment", NULL},
    {"tcp.analysis.spurious_retransmission", AUDIT_SEV_NOTE, AUDIT_FAIL,
     "spurious retransmission", NULL},
    {"tcp.analysis.lost_segment", AUDIT_SEV_WARNING, AUDIT_FAIL,
     "sequence gap (a segment never sent)", NULL},
    {"tcp.analysis.ack_lost_segment", AUDIT_SEV_WARNING, AUDIT_FAIL,
     "ACK of data the peer never sent", NULL},
    {"tcp.analysis.zero_window", AUDIT_SEV_WARNING, AUDIT_ALLOW, "zero window",
     "flow control: the guest's receive buffer is full while the peer "
     "sends in bulk"},
    {"tcp.analysis.window_full", AUDIT_SEV_WARNING, AUDIT_ALLOW, "window full",
     "flow control: the guest sends at full speed and fills the window "
     "the peer offered"},
    {"tcp.connection.rst", AUDIT_SEV_WARNING, AUDIT_ALLOW, "reset",
     "resets are behaviour under test: refused connects, rmmod -f, aborts"},
    {"arp.duplicate-address-detected", AUDIT_SEV_WARNING, AUDIT_FAIL,
     "duplicate IP address", NULL},
};
const int audit_nrules = (int)(sizeof(audit_rules) / sizeof(audit_rules[0]));

/* Columns before the rule fields, in this order. */
static const char *const fixed_cols[] = {"frame.number",
                                         "eth.src",
                                         "ip.src",
                                         "ip.dst",
                                         "ip.proto",
                                         "tcp.stream",
                                         "tcp.srcport",
                                         "tcp.dstport",
                                         "tcp.ack_raw",
                                         "tcp.window_size",
                                         "tcp.flags",
                                         "_ws.expert.severity",
                                         "_ws.expert.message",
                                         "tcp.seq_raw"};
enum {
	C_FRAME,
	C_MAC,
	C_IPSRC,
	C_IPDST,
	C_PROTO,
	C_STREAM,
	C_SPORT,
	C_DPORT,
	C_ACK,
	C_WIN,
	C_FLAGS,
	C_SEV,
	C_MSG,
	C_SEQ,
	C_RULES
};
#define NFIXED ((int)(sizeof(fixed_cols) / sizeof(fixed_cols[0])))
_Static_assert(NFIXED == C_RULES, "fixed_cols matches the column enum");

/* Multiple occurrences of a field in one frame are joined with this. */
#define AGG '\x1f'

#define TCP_SYN 0x002
#define TCP_RST 0x004
#define TCP_ACK 0x010

void
audit_init(struct audit *a)
{
	memset(a, 0, sizeof(*a));
}

void
audit_free(struct audit *a)
{
	for (int i = 0; i < a->nc; i++) {
		free(a->c[i].what);
		free(a->c[i].first_detail);
	}
	free(a->c);
	free(a->win);
	free(a->segs);
	free(a->bad_line);
	memset(a, 0, sizeof(*a));
}

bool
audit_known_field(const char *field)
{
	return audit_column(field) >= NFIXED ||
	       strcmp(field, AUDIT_WINDOW) == 0 ||
	       strcmp(field, AUDIT_UNNAMED) == 0;
}

int
audit_column(const char *field)
{
	for (int i = 0; i < NFIXED; i++)
		if (strcmp(fixed_cols[i], field) == 0)
			return i;
	for (int i = 0; i < audit_nrules; i++)
		if (strcmp(audit_rules[i].field, field) == 0)
			return NFIXED + i;
	return -1;
}

int
audit_ncolumns(void)
{
	return NFIXED + audit_nrules;
}

void
audit_tshark_argv(struct argv *out, const char *pcap)
{
	char agg[32];

	argv_init(out);
	argv_add(out, "tshark");
	argv_add(out, "-n");
	argv_add(out, "-r");
	argv_add(out, pcap);
	argv_add(out, "-o");
	argv_add(out, "ip.check_checksum:TRUE");
	argv_add(out, "-o");
	argv_add(out, "tcp.check_checksum:TRUE");
	argv_add(out, "-o");
	argv_add(out, "udp.check_checksum:TRUE");
	argv_add(out, "-o");
	argv_add(out, "tcp.analyze_sequence_numbers:TRUE");
	argv_add(out, "-T");
	argv_add(out, "fields");
	argv_add(out, "-E");
	argv_add(out, "separator=/t");
	argv_add(out, "-E");
	argv_add(out, "occurrence=a");
	snprintf(agg, sizeof(agg), "aggregator=%c", AGG);
	argv_add(out, "-E");
	argv_add(out, agg);
	for (int i = 0; i < NFIXED; i++) {
		argv_add(out, "-e");
		argv_add(out, fixed_cols[i]);
	}
	for (int i = 0; i < audit_nrules; i++) {
		argv_add(out, "-e");
		argv_add(out, audit_rules[i].field);
	}
}

/* The first occurrence of a multi-valued column, in buf. */
static const char *
first(const char *col, char *buf, size_t len)
{
	size_t n = strcspn(col, "\x1f");

	if (n >= len)
		n = len - 1;
	memcpy(buf, col, n);
	buf[n] = '\0';
	return buf;
}

/* How many times the field occurs in the frame (0 if empty). */
static int
occurrences(const char *col)
{
	int n;

	if (*col == '\0')
		return 0;
	n = 1;
	for (; *col; col++)
		n += *col == AGG;
	return n;
}

/* A failing finding the scenario allowed (audit-allow) is allowed. */
static void
count(struct audit *a, const char *field, const char *what, const char *reason,
      long frame, const char *detail)
{
	struct audit_count *c = NULL;

	for (int i = 0; i < a->nallow && reason == NULL; i++)
		if (strcmp(a->allow_field[i], field) == 0)
			reason = a->allow_reason[i];

	for (int i = 0; i < a->nc && c == NULL; i++)
		if (strcmp(a->c[i].what, what) == 0)
			c = &a->c[i];
	if (c == NULL) {
		a->c = xrealloc(a->c, (size_t)(a->nc + 1) * sizeof(*a->c));
		c = &a->c[a->nc++];
		*c = (struct audit_count){.what = xstrdup(what),
		                          .reason = reason,
		                          .first_frame = frame,
		                          .first_detail = xstrdup(detail)};
	}
	c->n++;
	if (reason == NULL)
		a->problems++;
}

bool
audit_parse_seg(const char *line, struct audit_seg *out)
{
	const char *p = strstr(line, "tcp: segment ");
	struct audit_seg g;
	unsigned long una = 0, seq, len;

	if (p == NULL)
		return false;
	p += strlen("tcp: segment ");
	memset(&g, 0, sizeof(g));
	if (starts_with(p, "not sent ("))
		g.unsent = true;
	else if (sscanf(p, "retransmitted (una %lu)", &una) != 1)
		return false;
	p = strstr(p, "): ");
	if (p == NULL ||
	    sscanf(p, "): %15[0-9.]:%u -> %15[0-9.]:%u seq %lu len %lu", g.src,
	           &g.sport, g.dst, &g.dport, &seq, &len) != 6 ||
	    seq > UINT32_MAX || len > UINT32_MAX || una > UINT32_MAX ||
	    g.sport > 65535 || g.dport > 65535)
		return false;
	g.seq = (uint32_t)seq;
	g.len = (uint32_t)len;
	g.una = (uint32_t)una;
	g.end = g.seq + g.len +
	        (strstr(p, " SYN") != NULL || strstr(p, " FIN") != NULL);
	*out = g;
	return true;
}

int
audit_read_segs(struct audit *a, const char *log)
{
	FILE *f = fopen(log, "r");
	char buf[512];
	struct audit_seg g;

	if (f == NULL)
		return -1;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		if (!audit_parse_seg(buf, &g))
			continue;
		a->segs = xrealloc(a->segs,
		                   (size_t)(a->nsegs + 1) * sizeof(*a->segs));
		a->segs[a->nsegs++] = g;
	}
	fclose(f);
	return 0;
}

/*
 * The guest's word for a finding on its own segment (see audit_seg):
 * a sequence gap needs a segment of that connection it did not send
 * that ends where the gap does (the frame after the hole starts at its
 * end); a spurious retransmission needs that very segment retransmitted
 * while SND.UNA had not passed it.  Anything else stays a failure.
 */
static const char *
explained(const struct audit *a, const char *field, char **cols)
{
	char src[64], dst[64], b[32];
	bool gap = strcmp(field, "tcp.analysis.lost_segment") == 0;
	unsigned long sport, dport, seq;

	if ((!gap &&
	     strcmp(field, "tcp.analysis.spurious_retransmission") != 0) ||
	    *cols[C_SEQ] == '\0' || *cols[C_SPORT] == '\0')
		return NULL;
	first(cols[C_IPSRC], src, sizeof(src));
	first(cols[C_IPDST], dst, sizeof(dst));
	sport = strtoul(cols[C_SPORT], NULL, 10);
	dport = strtoul(cols[C_DPORT], NULL, 10);
	seq = strtoul(first(cols[C_SEQ], b, sizeof(b)), NULL, 10);
	for (int i = 0; i < a->nsegs; i++) {
		const struct audit_seg *g = &a->segs[i];

		if (g->unsent != gap || g->sport != sport ||
		    g->dport != dport || strcmp(g->src, src) != 0 ||
		    strcmp(g->dst, dst) != 0)
			continue;
		if (gap && g->end == (uint32_t)seq)
			return "the guest printed 'tcp: segment not sent' for "
			       "a segment before it: TCP retransmits it";
		if (!gap && g->seq == (uint32_t)seq &&
		    (int32_t)(g->seq - g->una) >= 0)
			return "the guest printed 'tcp: segment "
			       "retransmitted (una ...)' for it: no ACK for it "
			       "had reached its TCP (lost while its NIC was "
			       "down, or late)";
	}
	return NULL;
}

/* Split line at tabs into exactly n columns (missing ones are empty). */
static int
split_cols(char *line, char **cols, int n)
{
	int k = 0;

	cols[k++] = line;
	for (char *p = line; *p && k < n; p++) {
		if (*p == '\t') {
			*p = '\0';
			cols[k++] = p + 1;
		}
	}
	if (strchr(cols[k - 1], '\t') != NULL)
		return -1; /* more columns than asked for */
	for (int i = k; i < n; i++)
		cols[i] = "";
	return k;
}

static bool
is_guest(const char *mac)
{
	for (int i = 0; i < 2; i++)
		if (strcasecmp(mac, guest_macs[i]) == 0)
			return true;
	return false;
}

/* The right edge of the receive window may never move back (RFC 9293
 * 3.8.6: a receiver should not shrink the window). */
static void
check_window(struct audit *a, char **cols, long frame, const char *detail)
{
	char b[32];
	long stream;
	unsigned long flags, ack, win;
	uint32_t edge;
	struct audit_win *w = NULL;
	char *msg;

	if (strcmp(first(cols[C_PROTO], b, sizeof(b)), "6") != 0 ||
	    *cols[C_STREAM] == '\0' || *cols[C_ACK] == '\0' ||
	    *cols[C_WIN] == '\0')
		return;
	stream = strtol(first(cols[C_STREAM], b, sizeof(b)), NULL, 10);
	flags = strtoul(first(cols[C_FLAGS], b, sizeof(b)), NULL, 0);
	ack = strtoul(first(cols[C_ACK], b, sizeof(b)), NULL, 10);
	win = strtoul(first(cols[C_WIN], b, sizeof(b)), NULL, 10);
	if (!(flags & TCP_ACK) || (flags & TCP_RST))
		return;
	edge = (uint32_t)(ack + win);
	for (int i = 0; i < a->nwin && w == NULL; i++)
		if (a->win[i].stream == stream)
			w = &a->win[i];
	if (w == NULL) {
		a->win = xrealloc(a->win, (size_t)(a->nwin + 1) * sizeof(*w));
		a->win[a->nwin++] = (struct audit_win){stream, edge};
		return;
	}
	if ((int32_t)(edge - w->edge) >= 0) {
		w->edge = edge;
		return;
	}
	msg =
	    xasprintf("%s, right edge %u < %u (ack %lu window %lu%s)", detail,
	              edge, w->edge, ack, win, flags & TCP_SYN ? ", SYN" : "");
	count(a, AUDIT_WINDOW, "TCP window right edge moved back", NULL, frame,
	      msg);
	free(msg);
}

/* Expert warnings and errors that no rule accounts for. */
static void
check_unnamed(struct audit *a, char **cols, int named, long frame,
              const char *detail)
{
	char *sev = xstrdup(cols[C_SEV]), *msg = xstrdup(cols[C_MSG]);
	char *s_save = NULL, *m_save = NULL, *s, *m;
	int serious = 0;
	struct strbuf which;

	sb_init(&which);
	/* Severities and messages come in the same order. */
	for (s = strtok_r(sev, "\x1f", &s_save),
	    m = strtok_r(msg, "\x1f", &m_save);
	     s != NULL; s = strtok_r(NULL, "\x1f", &s_save),
	    m = m ? strtok_r(NULL, "\x1f", &m_save) : NULL) {
		if (strtol(s, NULL, 0) < AUDIT_SEV_WARNING)
			continue;
		serious++;
		sb_addf(&which, "%s%s", which.len ? "; " : "", m ? m : "?");
	}
	if (serious > named) {
		char *what =
		    xasprintf("expert warning no rule names: %s", which.buf);

		count(a, AUDIT_UNNAMED, what, NULL, frame, detail);
		free(what);
	}
	sb_free(&which);
	free(sev);
	free(msg);
}

void
audit_line(struct audit *a, const char *text)
{
	int ncols = NFIXED + audit_nrules, named = 0;
	char **cols = xcalloc((size_t)ncols, sizeof(char *));
	char *line = xstrdup(text), *end, b1[64], b2[64], *detail;
	char *what = NULL;
	const char *why;
	long frame;

	if (split_cols(line, cols, ncols) < 0 ||
	    (frame = strtol(cols[C_FRAME], &end, 10)) <= 0 || *end != '\0') {
		if (a->bad_line == NULL)
			a->bad_line = xstrdup(text);
		free(cols);
		free(line);
		return;
	}
	a->frames++;
	if (!is_guest(cols[C_MAC])) {
		free(cols);
		free(line);
		return;
	}
	a->guest_frames++;
	if (*cols[C_SPORT] != '\0')
		detail = xasprintf(
		    "%s:%s -> %s:%s", first(cols[C_IPSRC], b1, sizeof(b1)),
		    cols[C_SPORT], first(cols[C_IPDST], b2, sizeof(b2)),
		    cols[C_DPORT]);
	else if (*cols[C_IPSRC] != '\0')
		detail =
		    xasprintf("%s -> %s", first(cols[C_IPSRC], b1, sizeof(b1)),
		              first(cols[C_IPDST], b2, sizeof(b2)));
	else
		detail = xstrdup("not IPv4");
	for (int i = 0; i < audit_nrules; i++) {
		const struct audit_rule *r = &audit_rules[i];
		int n = occurrences(cols[C_RULES + i]);

		if (n == 0)
			continue;
		if (r->severity >= AUDIT_SEV_WARNING)
			named += n;
		why = r->verdict == AUDIT_ALLOW ? r->reason : NULL;
		if (why == NULL && (why = explained(a, r->field, cols)) != NULL)
			what = xasprintf("%s, explained by the guest", r->what);
		count(a, r->field, what ? what : r->what, why, frame, detail);
		free(what);
		what = NULL;
	}
	check_unnamed(a, cols, named, frame, detail);
	check_window(a, cols, frame, detail);
	free(detail);
	free(cols);
	free(line);
}

char *
audit_describe(const struct audit *a, bool failures)
{
	struct strbuf sb;

	sb_init(&sb);
	for (int i = 0; i < a->nc; i++) {
		const struct audit_count *c = &a->c[i];

		if ((c->reason == NULL) != failures)
			continue;
		sb_addf(&sb, "%s%s x%d (first: frame %ld, %s)",
		        sb.len ? "; " : "", c->what, c->n, c->first_frame,
		        c->first_detail);
		if (!failures)
			sb_addf(&sb, " [allowed: %s]", c->reason);
	}
	if (sb.len == 0) {
		sb_free(&sb);
		return NULL;
	}
	return sb.buf;
}

/* Feed complete lines from buf to the audit; tshark's stderr (merged)
 * does not start with a frame number and goes to errs. */
static void
take_lines(struct audit *a, struct strbuf *buf, struct strbuf *errs, bool eof)
{
	char *nl;

	while ((nl = memchr(buf->buf, '\n', buf->len)) != NULL ||
	       (eof && buf->len > 0)) {
		size_t n = nl ? (size_t)(nl - buf->buf) : buf->len;
		char *line = xstrndup(buf->buf, n);

		if (line[0] >= '0' && line[0] <= '9')
			audit_line(a, line);
		else if (*line != '\0' && !starts_with(line, "Running as user"))
			sb_addf(errs, "%s%s", errs->len ? " / " : "", line);
		free(line);
		sb_consume(buf, nl ? n + 1 : n);
	}
}

int
audit_pcap(const char *pcap, struct audit *a, char *err, size_t errlen)
{
	struct argv av;
	struct strbuf buf, errs;
	int p[2], wstatus = 0, rc = 0;
	int64_t until = now_ms() + 300000;
	pid_t pid;

	if (access(pcap, R_OK) < 0) {
		snprintf(err, errlen, "%s: %s", pcap, strerror(errno));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	audit_tshark_argv(&av, pcap);
	for (int i = 0; i < a->ndata_ports; i++) {
		argv_add(&av, "-d");
		argv_addf(&av, "tcp.port==%s,data", a->data_ports[i]);
		argv_add(&av, "-d");
		argv_addf(&av, "udp.port==%s,data", a->data_ports[i]);
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(av.v[0], av.v);
		fprintf(stderr,
		        "cannot run tshark: %s (make deps installs "
		        "it)\n",
		        strerror(errno));
		_exit(127);
	}
	argv_free(&av);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	sb_init(&buf);
	sb_init(&errs);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		char chunk[8192];
		ssize_t n;

		if (now_ms() > until) {
			kill(pid, SIGKILL);
			sb_adds(&errs, "tshark took more than 300 s");
			break;
		}
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		n = read(p[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sb_add(&buf, chunk, (size_t)n);
		take_lines(a, &buf, &errs, false);
	}
	take_lines(a, &buf, &errs, true);
	close(p[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	/* QEMU is killed at the end of a run and may leave the last frame
	 * half written; everything before it was read. */
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
		if (errs.len == 0 ||
		    strstr(errs.buf, "cut short in the middle of a packet") ==
		        NULL) {
			snprintf(err, errlen, "tshark -r %s: %s", pcap,
			         errs.len ? errs.buf : "failed");
			rc = -1;
		}
	}
	if (rc == 0 && a->bad_line != NULL) {
		snprintf(err, errlen, "tshark -r %s: unexpected output '%.80s'",
		         pcap, a->bad_line);
		rc = -1;
	}
	sb_free(&buf);
	sb_free(&errs);
	return rc;
}
