/*
 * Capture audit: every pcap a run takes is read by tshark (checksum
 * validation on, TCP sequence analysis on) and each frame the guest sent
 * is judged.  A malformed frame, a bad checksum, an out-of-order segment,
 * a spurious retransmission, a sequence gap, an ACK of unseen data, a TCP
 * window whose right edge moves back, or any other expert warning that no
 * rule names fails the run; the known-benign ones (a zero window under
 * flow control, resets under test) are named in audit_rules[] with a
 * reason each.  Frames the peer sent (slirp, the Linux peer, a fuzzer)
 * are not judged: they are not modref's.
 *
 * The parser is pure (audit_line() takes one line of tshark's `-T fields`
 * output) so unit tests can feed it canned lines; audit_pcap() runs tshark.
 */
#ifndef HARNESS_AUDIT_H
#define HARNESS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/harness/util.h"

/* tshark's expert severities (_ws.expert.severity). */
#define AUDIT_SEV_CHAT    0x00200000
#define AUDIT_SEV_NOTE    0x00400000
#define AUDIT_SEV_WARNING 0x00600000
#define AUDIT_SEV_ERROR   0x00800000

enum audit_verdict { AUDIT_FAIL, AUDIT_ALLOW };

struct audit_rule {
	const char *field; /* tshark field, present when the item fires */
	int severity;      /* its expert severity, 0 if not an expert item */
	enum audit_verdict verdict;
	const char *what;   /* in messages */
	const char *reason; /* AUDIT_ALLOW: why it is benign */
};

extern const struct audit_rule audit_rules[];
extern const int audit_nrules;

/* One kind of finding: how often and where first. */
struct audit_count {
	char *what;         /* "out-of-order segment" */
	const char *reason; /* allowed: the rule's reason; NULL: a failure */
	int n;
	long first_frame;
	char *first_detail; /* "10.77.0.2:4000 -> 10.77.0.1:5001 ..." */
};

/*
 * What the guest said of one of its TCP segments, from tcp.ko's console
 * lines "tcp: segment not sent (ERR): A:P -> B:Q seq S len L" and
 * "tcp: segment retransmitted (una U): A:P -> B:Q seq S len L": the
 * evidence that explains a sequence gap (the segment never reached the
 * wire) or a spurious retransmission (no ACK for it had reached the
 * guest's TCP) on that very segment.
 */
struct audit_seg {
	char src[16], dst[16]; /* dotted quads, as tshark prints them */
	unsigned sport, dport;
	uint32_t seq, len, una;
	uint32_t end; /* seq + len, + 1 for a SYN or FIN */
	bool unsent;  /* else retransmitted */
};

struct audit_win {
	long stream;
	uint32_t edge; /* highest ack + window the guest advertised */
};

/* Names of the audit's own checks, for audit-allow. */
#define AUDIT_WINDOW  "audit.window_edge_back"
#define AUDIT_UNNAMED "audit.unnamed_expert"

struct audit {
	/* A scenario's audit-allow lines: these fields' findings are allowed
	 * with the scenario's reason instead of failing. */
	char *const *allow_field;
	char *const *allow_reason;
	int nallow;
	int frames, guest_frames;
	int problems; /* failing findings */
	struct audit_count *c;
	int nc;
	struct audit_win *win;
	int nwin;
	struct audit_seg *segs; /* the guest's, from its serial log */
	int nsegs;
	/* The run's host ports (hostfwd, its test servers): their payload
	 * is test data, never a protocol tshark registered that port for
	 * (a random port can be one, e.g. 44321, PCP's) */
	char (*data_ports)[16];
	int ndata_ports;
	char *bad_line; /* the first line that did not parse */
};

void audit_init(struct audit *a);
void audit_free(struct audit *a);

/* One console line: true (and *out) if it is one of tcp.ko's segment
 * lines; anything malformed is not. */
bool audit_parse_seg(const char *line, struct audit_seg *out);

/* Every segment line of a serial log into a->segs; -1 if it cannot be
 * read. */
int audit_read_segs(struct audit *a, const char *log);

/* Judge one line of tshark output (columns as audit_tshark_argv asks). */
void audit_line(struct audit *a, const char *line);

/* Is field a rule's field or one of the audit's own checks? */
bool audit_known_field(const char *field);

/* The column of a tshark field in audit_line's input, -1 if none. */
int audit_column(const char *field);
int audit_ncolumns(void);

/* tshark's argv for reading pcap (pure). */
void audit_tshark_argv(struct argv *out, const char *pcap);

/*
 * Run tshark over pcap and feed audit_line.  Returns 0, or -1 with the
 * reason in err when tshark could not read the file (not installed,
 * not a capture).  A capture cut short in its last frame (QEMU killed
 * mid-write) is read up to there.
 */
int audit_pcap(const char *pcap, struct audit *a, char *err, size_t errlen);

/* "out-of-order segment x3 (first: frame 12, 10.77...)", one per kind;
 * failing kinds when failures is true, else the allowed ones.  NULL if
 * there are none. */
char *audit_describe(const struct audit *a, bool failures);

#endif
