/*
 * Unit tests: the capture audit's reading of tshark output (canned
 * lines), its tshark command line, and, end to end through the real
 * tshark, a crafted capture with a bad checksum and an out-of-order
 * segment that the audit must flag.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/ipv4/inet_csum.h"
#include "net/ipv4/proto_lib.h"
#include "tests/harness/audit.h"
#include "tests/harness/qemu.h"
#include "tests/harness/tap.h"

#include "tests/harness/unittest.h"

#define GUEST "52:54:00:12:34:56"
#define PEER  "02:4d:00:00:00:01"

/*
 * One line of tshark output: "field=value" pairs (NULL-terminated) set
 * those columns, the rest are empty.
 */
static char *
line(const char *first, ...)
{
	int n = audit_ncolumns();
	const char **cols = calloc((size_t)n, sizeof(char *));
	struct strbuf sb;
	va_list ap;

	va_start(ap, first);
	for (const char *kv = first; kv != NULL;
	     kv = va_arg(ap, const char *)) {
		const char *eq = strchr(kv, '=');
		char *name = xstrndup(kv, (size_t)(eq - kv));
		int c = audit_column(name);

		free(name);
		if (c >= 0)
			cols[c] = eq + 1;
	}
	va_end(ap);
	sb_init(&sb);
	for (int i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? "\t" : "", cols[i] ? cols[i] : "");
	free(cols);
	return sb.buf;
}

static void
feed(struct audit *a, char *l)
{
	audit_line(a, l);
	free(l);
}

static void
audit_columns(void)
{
	CHECK(audit_column("frame.number") == 0);
	CHECK(audit_column("eth.src") == 1);
	CHECK(audit_column("tcp.analysis.out_of_order") > 0);
	CHECK(audit_column("tcp.connection.rst") > 0);
	CHECK(audit_column("no.such.field") == -1);
	CHECK(audit_ncolumns() == audit_column("tcp.connection.rst") + 1 ||
	      audit_ncolumns() > audit_column("tcp.connection.rst"));
}

static void
audit_clean(void)
{
	struct audit a;

	audit_init(&a);
	feed(&a, line("frame.number=1", "eth.src=" GUEST, "ip.src=10.77.0.2",
	              "ip.dst=10.77.0.1", "ip.proto=6", "tcp.stream=0",
	              "tcp.srcport=4000", "tcp.dstport=80", "tcp.ack_raw=0",
	              "tcp.window_size=8192", "tcp.flags=0x0002",
	              "_ws.expert.severity=2097152",
	              "_ws.expert.message=Connection establish request (SYN)",
	              "tcp.connection.syn=1", NULL));
	/* The peer's frames are not judged, whatever tshark says. */
	feed(&a, line("frame.number=2", "eth.src=" PEER, "ip.proto=6",
	              "tcp.stream=0", "tcp.analysis.out_of_order=1",
	              "_ws.malformed=1", "_ws.expert.severity=8388608",
	              "_ws.expert.message=Malformed", NULL));
	feed(&a, line("frame.number=3", "eth.src=" GUEST, "ip.proto=6",
	              "tcp.stream=0", "tcp.ack_raw=501", "tcp.window_size=8192",
	              "tcp.flags=0x0010", NULL));
	feed(&a, line("frame.number=4", "eth.src=" GUEST, "ip.proto=6",
	              "tcp.stream=0", "tcp.ack_raw=601", "tcp.window_size=8092",
	              "tcp.flags=0x0018", NULL));
	CHECK(a.frames == 4 && a.guest_frames == 3);
	CHECK(a.problems == 0);
	CHECK(audit_describe(&a, true) == NULL);
	CHECK(audit_describe(&a, false) == NULL);
	CHECK(a.bad_line == NULL);
	audit_free(&a);
}

static void
audit_flags(void)
{
	struct audit a;
	char *d;

	audit_init(&a);
	for (int i = 0; i < 3; i++)
		feed(&a,
		     line(i == 0 ? "frame.number=7" : "frame.number=9",
		          "eth.src=" GUEST, "ip.src=10.77.0.2",
		          "ip.dst=10.77.0.1", "ip.proto=6", "tcp.srcport=4000",
		          "tcp.dstport=80", "tcp.analysis.out_of_order=1",
		          "_ws.expert.severity=6291456",
		          "_ws.expert.message=This frame is a (suspected) "
		          "out-of-order segment",
		          NULL));
	/* Two bad checksums in one frame (an ICMP error's quote too). */
	feed(&a, line("frame.number=12", "eth.src=52:54:00:12:34:57",
	              "ip.src=10.78.0.2\x1f"
	              "10.78.0.1",
	              "ip.dst=10.78.0.1",
	              "ip.proto=1\x1f"
	              "17",
	              "ip.checksum_bad.expert=1\x1f"
	              "1",
	              "_ws.expert.severity=8388608\x1f"
	              "8388608",
	              "_ws.expert.message=Bad checksum\x1f"
	              "Bad checksum",
	              NULL));
	feed(&a, line("frame.number=13", "eth.src=" GUEST,
	              "tcp.analysis.spurious_retransmission=1",
	              "_ws.expert.severity=4194304",
	              "_ws.expert.message=spurious", NULL));
	CHECK(a.problems == 5); /* per frame and kind */
	d = audit_describe(&a, true);
	CHECK(d != NULL);
	CHECK_HAS(d, "out-of-order segment x3 (first: frame 7, "
	             "10.77.0.2:4000 -> 10.77.0.1:80)");
	CHECK_HAS(d, "bad IP checksum x1 (first: frame 12, 10.78.0.2 -> "
	             "10.78.0.1)");
	CHECK_HAS(d, "spurious retransmission x1 (first: frame 13, not IPv4)");
	/* Every warning was named by a rule: nothing "unnamed". */
	CHECK(strstr(d, "no rule names") == NULL);
	free(d);
	audit_free(&a);
}

static void
audit_allowed(void)
{
	struct audit a;
	char *d;

	audit_init(&a);
	feed(&a, line("frame.number=5", "eth.src=" GUEST, "ip.proto=6",
	              "tcp.stream=1", "tcp.ack_raw=1000", "tcp.window_size=0",
	              "tcp.flags=0x0010", "tcp.analysis.zero_window=1",
	              "_ws.expert.severity=6291456",
	              "_ws.expert.message=TCP Zero Window segment", NULL));
	feed(&a, line("frame.number=6", "eth.src=" GUEST, "ip.proto=6",
	              "tcp.stream=1", "tcp.flags=0x0014", "tcp.ack_raw=1000",
	              "tcp.window_size=0", "tcp.connection.rst=1",
	              "_ws.expert.severity=6291456",
	              "_ws.expert.message=Connection reset (RST)", NULL));
	CHECK(a.problems == 0);
	CHECK(audit_describe(&a, true) == NULL);
	d = audit_describe(&a, false);
	CHECK(d != NULL);
	CHECK_HAS(d, "zero window x1 (first: frame 5, not IPv4) [allowed: "
	             "flow control");
	CHECK_HAS(d, "reset x1 (first: frame 6");
	free(d);
	audit_free(&a);
}

static void
audit_unnamed(void)
{
	struct audit a;
	char *d;

	audit_init(&a);
	/* A warning no rule knows, next to one a rule allows. */
	feed(&a, line("frame.number=3", "eth.src=" GUEST,
	              "tcp.analysis.zero_window=1",
	              "_ws.expert.severity=6291456\x1f"
	              "6291456\x1f"
	              "4194304",
	              "_ws.expert.message=TCP Zero Window segment\x1f"
	              "Something odd\x1f"
	              "A note",
	              NULL));
	/* Notes and chats alone are fine. */
	feed(&a, line("frame.number=4", "eth.src=" GUEST,
	              "_ws.expert.severity=4194304\x1f"
	              "2097152",
	              "_ws.expert.message=A note\x1f"
	              "A chat",
	              NULL));
	CHECK(a.problems == 1);
	d = audit_describe(&a, true);
	CHECK(d != NULL);
	CHECK_HAS(d, "expert warning no rule names: TCP Zero Window segment; "
	             "Something odd x1 (first: frame 3");
	free(d);
	audit_free(&a);
}

static void
win(struct audit *a, int frame, const char *mac, const char *stream,
    unsigned long ack, unsigned long w, const char *flags)
{
	char *f = xasprintf("frame.number=%d", frame),
	     *m = xasprintf("eth.src=%s", mac),
	     *s = xasprintf("tcp.stream=%s", stream),
	     *k = xasprintf("tcp.ack_raw=%lu", ack),
	     *v = xasprintf("tcp.window_size=%lu", w),
	     *fl = xasprintf("tcp.flags=%s", flags);

	feed(a, line(f, m, "ip.proto=6", s, k, v, fl, NULL));
	free(f);
	free(m);
	free(s);
	free(k);
	free(v);
	free(fl);
}

static void
audit_window(void)
{
	struct audit a;
	char *d;

	audit_init(&a);
	win(&a, 1, GUEST, "0", 1000, 500, "0x0010");       /* edge 1500 */
	win(&a, 2, GUEST, "0", 1200, 300, "0x0010");       /* 1500: same */
	win(&a, 3, GUEST, "1", 10, 100, "0x0010");         /* another stream */
	win(&a, 4, PEER, "0", 0, 0, "0x0010");             /* the peer's */
	win(&a, 5, GUEST, "0", 1300, 100, "0x0014");       /* RST: ignored */
	win(&a, 6, GUEST, "0", 1400, 0, "0x0002");         /* no ACK: ignored */
	win(&a, 7, GUEST, "0", 4294967000UL, 0, "0x0010"); /* far back */
	CHECK(a.problems == 1);
	d = audit_describe(&a, true);
	CHECK(d != NULL);
	CHECK_HAS(d, "TCP window right edge moved back x1 (first: frame 7, "
	             "not IPv4, right edge 4294967000 < 1500 (ack 4294967000 "
	             "window 0))");
	free(d);
	audit_free(&a);
	/* Sequence space wraps: 2^32 - 100 then 50 is forward. */
	audit_init(&a);
	win(&a, 1, GUEST, "0", 4294967196UL, 50, "0x0010");
	win(&a, 2, GUEST, "0", 40, 60, "0x0010");
	CHECK(a.problems == 0);
	audit_free(&a);
}

static void
audit_scenario_allow(void)
{
	char *field[] = {"tcp.analysis.out_of_order", AUDIT_WINDOW},
	     *reason[] = {"known: issue 13", "known: follows"};
	struct audit a;
	char *d;

	audit_init(&a);
	a.allow_field = field;
	a.allow_reason = reason;
	a.nallow = 2;
	feed(&a,
	     line("frame.number=7", "eth.src=" GUEST,
	          "tcp.analysis.out_of_order=1", "_ws.expert.severity=6291456",
	          "_ws.expert.message=ooo", NULL));
	win(&a, 8, GUEST, "0", 1000, 500, "0x0010");
	win(&a, 9, GUEST, "0", 900, 100, "0x0010");
	/* Not named by the scenario: still a failure. */
	feed(&a, line("frame.number=10", "eth.src=" GUEST,
	              "tcp.analysis.spurious_retransmission=1", NULL));
	CHECK(a.problems == 1);
	d = audit_describe(&a, false);
	CHECK(d != NULL);
	CHECK_HAS(d, "out-of-order segment x1 (first: frame 7, not IPv4) "
	             "[allowed: known: issue 13]");
	CHECK_HAS(d, "TCP window right edge moved back x1 (first: frame 9,");
	free(d);
	d = audit_describe(&a, true);
	CHECK(d != NULL);
	CHECK_HAS(d, "spurious retransmission x1");
	CHECK(strstr(d, "out-of-order") == NULL);
	free(d);
	audit_free(&a);
	CHECK(audit_known_field("tcp.analysis.out_of_order"));
	CHECK(audit_known_field(AUDIT_UNNAMED));
	CHECK(!audit_known_field("frame.number"));
	CHECK(!audit_known_field("tcp.analysis.bogus"));
}

static void
audit_bad_output(void)
{
	struct audit a;

	audit_init(&a);
	audit_line(&a, "tshark: something went wrong");
	audit_line(&a, "12x\tfoo");
	CHECK(a.frames == 0);
	CHECK(a.bad_line != NULL);
	CHECK_STR(a.bad_line, "tshark: something went wrong");
	audit_free(&a);
}

static void
audit_argv(void)
{
	struct argv av;
	char *s;

	audit_tshark_argv(&av, "x.pcap");
	s = argv_join(&av);
	CHECK_HAS(s, "tshark -n -r x.pcap -o ip.check_checksum:TRUE -o "
	             "tcp.check_checksum:TRUE -o udp.check_checksum:TRUE ");
	CHECK_HAS(s, " -T fields ");
	CHECK_HAS(s, " -e frame.number -e eth.src ");
	CHECK_HAS(s, " -e tcp.analysis.out_of_order ");
	free(s);
	argv_free(&av);
}

/* ---- a crafted capture through the real tshark --------------------------- */

struct pcap {
	struct strbuf sb;
	uint32_t t;
};

/* A TCP segment guest (10.77.0.2:4000, from_guest) <-> peer
 * (10.77.0.1:80); bad_tcp/bad_ip spoil a checksum. */
static void
tcp_frame(struct pcap *pc, bool from_guest, uint32_t seq, uint32_t ack,
          uint8_t flags, uint16_t win, size_t len, bool bad_tcp, bool bad_ip)
{
	static const uint8_t gmac[6] = {0x52, 0x54, 0, 0x12, 0x34, 0x56},
	                     pmac[6] = {2, 0x4d, 0, 0, 0, 1};
	uint8_t f[14 + 20 + 20 + 200] = {0}, *ip = f + 14, *tcp = ip + 20;
	uint32_t hdr[4];
	uint32_t gip = 0x0a4d0002, pip = 0x0a4d0001;
	uint32_t src = from_guest ? gip : pip, dst = from_guest ? pip : gip;
	size_t n = 14 + 20 + 20 + len;

	memcpy(f, from_guest ? pmac : gmac, 6);
	memcpy(f + 6, from_guest ? gmac : pmac, 6);
	put_be16(f + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(40 + len));
	ip[8] = 64;
	ip[9] = 6;
	put_be32(ip + 12, src);
	put_be32(ip + 16, dst);
	put_be16(ip + 10,
	         (uint16_t)(inet_csum(ip, 20) ^ (bad_ip ? 0x0f0f : 0)));
	put_be16(tcp, from_guest ? 4000 : 80);
	put_be16(tcp + 2, from_guest ? 80 : 4000);
	put_be32(tcp + 4, seq);
	put_be32(tcp + 8, ack);
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	put_be16(tcp + 14, win);
	memset(tcp + 20, 'x', len);
	put_be16(
	    tcp + 16,
	    (uint16_t)(inet_csum_fold(inet_csum_add(
	                   inet_csum_pseudo(src, dst, 6, (uint16_t)(20 + len)),
	                   tcp, 20 + len)) ^
	               (bad_tcp ? 0x1234 : 0)));
	/* pcap record header, little-endian like the file header. */
	pc->t += 1000;
	hdr[0] = 1;
	hdr[1] = pc->t;
	hdr[2] = (uint32_t)n;
	hdr[3] = (uint32_t)n;
	sb_add(&pc->sb, (const char *)hdr, sizeof(hdr));
	sb_add(&pc->sb, (const char *)f, n);
}

static void
audit_crafted_pcap(void)
{
	const uint32_t file_hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	char path[] = "/tmp/modref-audit-XXXXXX", err[512], *d;
	struct pcap pc = {.t = 0};
	struct audit a;
	int fd, rc;

	sb_init(&pc.sb);
	sb_add(&pc.sb, (const char *)file_hdr, sizeof(file_hdr));
	tcp_frame(&pc, true, 100, 0, 0x02, 8192, 0, false, false);
	tcp_frame(&pc, false, 500, 101, 0x12, 8192, 0, false, false);
	tcp_frame(&pc, true, 101, 501, 0x10, 8192, 0, false, false);
	/* 101..200 and 201..300 leave in the wrong order. */
	tcp_frame(&pc, true, 201, 501, 0x18, 8192, 100, false, false);
	tcp_frame(&pc, true, 101, 501, 0x18, 8192, 100, false, false);
	tcp_frame(&pc, false, 501, 301, 0x10, 8192, 0, false, false);
	/* A bad TCP checksum, then a bad IP checksum. */
	tcp_frame(&pc, true, 301, 501, 0x18, 8192, 50, true, false);
	tcp_frame(&pc, true, 351, 501, 0x18, 8192, 50, false, true);
	/* The peer's own bad checksum is not modref's problem. */
	tcp_frame(&pc, false, 501, 401, 0x18, 8192, 10, true, false);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	rc = (int)write(fd, pc.sb.buf, pc.sb.len);
	close(fd);
	sb_free(&pc.sb);
	CHECK(rc > 0);
	audit_init(&a);
	rc = audit_pcap(path, &a, err, sizeof(err));
	unlink(path);
	if (rc < 0) {
		snprintf(ut_failure, sizeof(ut_failure), "audit_pcap: %.400s",
		         err);
		audit_free(&a);
		return;
	}
	d = audit_describe(&a, true);
	CHECK(a.frames == 9 && a.guest_frames == 6);
	CHECK(d != NULL);
	CHECK_HAS(d, "out-of-order segment x1 (first: frame 5, 10.77.0.2:4000 "
	             "-> 10.77.0.1:80)");
	CHECK_HAS(d, "bad TCP checksum x1 (first: frame 7,");
	CHECK_HAS(d, "bad IP checksum x1 (first: frame 8,");
	/* Frame 9 (the peer's bad checksum) is in no finding. */
	CHECK(strstr(d, "frame 9") == NULL);
	free(d);
	audit_free(&a);
	/* Nothing to read is an error, not a pass. */
	audit_init(&a);
	CHECK(audit_pcap("/nonexistent.pcap", &a, err, sizeof(err)) < 0);
	audit_free(&a);
}

/* ---- tap names --------------------------------------------------------- */

/* tcp.ko's segment lines parse, anything near them does not. */
static void
audit_seg_lines(void)
{
	struct audit_seg g;

	CHECK(audit_parse_seg("[   12.581] WARN: tcp: segment not sent "
	                      "(ENETDOWN): 10.0.2.15:7 -> 10.0.2.2:51026 seq "
	                      "3776335709 len 28",
	                      &g));
	CHECK(g.unsent && g.sport == 7 && g.dport == 51026 &&
	      g.seq == 3776335709u && g.len == 28 && g.end == 3776335737u);
	CHECK_STR(g.src, "10.0.2.15");
	CHECK_STR(g.dst, "10.0.2.2");
	CHECK(audit_parse_seg("WARN: tcp: segment retransmitted (una 100): "
	                      "10.0.2.15:7 -> 10.0.2.2:9 seq 100 len 0 FIN",
	                      &g));
	CHECK(!g.unsent && g.una == 100 && g.seq == 100 && g.len == 0 &&
	      g.end == 101);
	CHECK(!audit_parse_seg("tcp: segment lost: 1.2.3.4:1 -> 1.2.3.5:2 "
	                       "seq 1 len 1",
	                       &g));
	CHECK(!audit_parse_seg("tcp: segment not sent (X): 1.2.3.4:1 -> "
	                       "1.2.3.5:70000 seq 1 len 1",
	                       &g));
	CHECK(!audit_parse_seg("tcp: segment not sent (X): 1.2.3.4:1 -> "
	                       "1.2.3.5:2 seq 99999999999 len 1",
	                       &g));
	CHECK(!audit_parse_seg("tcp: segment retransmitted (una x): 1.2.3.4:1 "
	                       "-> 1.2.3.5:2 seq 1 len 1",
	                       &g));
}

/* A frame of 10.0.2.15:7 -> 10.0.2.2:5000 with seq_raw seq and the
 * expert item field. */
static char *
finding(long frame, const char *field, const char *seq, int sport)
{
	char f[32], fld[64], sp[32];
	/* tshark's severity of each: a gap warns, a spurious one notes */
	const char *sev = strstr(field, "lost") ? "_ws.expert.severity=6291456"
	                                        : "_ws.expert.severity=4194304";

	snprintf(f, sizeof(f), "frame.number=%ld", frame);
	snprintf(fld, sizeof(fld), "%s=1", field);
	snprintf(sp, sizeof(sp), "tcp.srcport=%d", sport);
	return line(f, "eth.src=" GUEST, "ip.src=10.0.2.15", "ip.dst=10.0.2.2",
	            "ip.proto=6", "tcp.stream=3", sp, "tcp.dstport=5000",
	            "tcp.flags=0x0010", "tcp.ack_raw=1", "tcp.window_size=100",
	            seq, fld, sev, "_ws.expert.message=x", NULL);
}

/* A sequence gap or a spurious retransmission passes only where the
 * guest's own line names that segment; every near miss fails. */
static void
audit_explained(void)
{
	static const struct audit_seg segs[] = {
	    {"10.0.2.15", "10.0.2.2", 7, 5000, 1000, 28, 0, 1028, true},
	    {"10.0.2.15", "10.0.2.2", 7, 5000, 2000, 28, 2000, 2028, false},
	    {"10.0.2.15", "10.0.2.2", 7, 5000, 3000, 28, 3028, 3028, false},
	};
	static const char *const gap = "tcp.analysis.lost_segment",
	                         *spur = "tcp.analysis.spurious_retransmission";
	struct audit a;
	char *d;

	audit_init(&a);
	a.segs = malloc(sizeof(segs));
	memcpy(a.segs, segs, sizeof(segs));
	a.nsegs = 3;
	feed(&a, finding(1, gap, "tcp.seq_raw=1028", 7));  /* explained */
	feed(&a, finding(2, spur, "tcp.seq_raw=2000", 7)); /* explained */
	CHECK(a.problems == 0);
	d = audit_describe(&a, false);
	CHECK_HAS(d, "sequence gap (a segment never sent), explained by the "
	             "guest x1");
	CHECK_HAS(d, "spurious retransmission, explained by the guest x1");
	free(d);
	feed(&a, finding(3, gap, "tcp.seq_raw=1056", 7));  /* not its end */
	feed(&a, finding(4, gap, "tcp.seq_raw=1028", 8));  /* other port */
	feed(&a, finding(5, spur, "tcp.seq_raw=2028", 7)); /* other seq */
	feed(&a, finding(6, spur, "tcp.seq_raw=3000", 7)); /* acked by una */
	feed(&a, finding(7, gap, "tcp.seq_raw=2028", 7));  /* a rexmit's end */
	CHECK(a.problems == 5);
	d = audit_describe(&a, true);
	CHECK_HAS(d, "sequence gap (a segment never sent) x3 (first: frame 3");
	CHECK_HAS(d, "spurious retransmission x2 (first: frame 5");
	free(d);
	audit_free(&a);
}

static void
tap_names_unique(void)
{
	struct tapnet t;

	tap_names(&t, 3);
	CHECK_STR(t.ns, "modref-tap3");
	CHECK_STR(t.ifname[0], "mrtap3-0");
	CHECK_STR(t.ifname[1], "mrtap3-1");
	CHECK_STR(t.peer[0], "10.77.3.1");
	CHECK_STR(t.guest[0], "10.77.3.2");
	CHECK_STR(t.peer[1], "10.78.3.1");
	CHECK_STR(t.guest[1], "10.78.3.2");
	CHECK(t.fd[0] == -1 && t.fd[1] == -1);
	/* The largest index still fits an interface name (15 chars). */
	tap_names(&t, 255);
	CHECK(strlen(t.ifname[1]) < 16);
	CHECK_STR(t.guest[1], "10.78.255.2");
}

static const struct tcase audit_cases[] = {
    T(audit_columns),        T(audit_clean),     T(audit_flags),
    T(audit_allowed),        T(audit_unnamed),   T(audit_window),
    T(audit_bad_output),     T(audit_argv),      T(audit_crafted_pcap),
    T(audit_scenario_allow), T(audit_seg_lines), T(audit_explained),
};
const struct suite audit_suite = {"audit", audit_cases, N(audit_cases)};

static const struct tcase tap_cases[] = {T(tap_names_unique)};
const struct suite tap_suite = {"tap", tap_cases, N(tap_cases)};
