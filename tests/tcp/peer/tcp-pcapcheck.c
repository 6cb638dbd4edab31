/*
 * Reads a NIC capture (pcap, Ethernet, as QEMU's filter-dump writes it)
 * and checks what one host (the guest, by IPv4 address) sent over TCP.
 *
 *   tcp-pcapcheck order PCAP ADDR [MIN_DATA]
 *       Every TCP connection ADDR opened or accepted, in wire order:
 *        - no segment overtook an earlier one.  The sender's stream is
 *          contiguous, so a data segment that starts past the highest
 *          sequence number sent so far opens a hole.  When the hole's
 *          bytes come later, it is a segment that was overtaken unless
 *          it is a real retransmission: one that follows another
 *          retransmission (an RTO goes back to SND.UNA first) or at
 *          least 3 segments from the peer (duplicate ACKs, fast
 *          retransmit), as when a frame was lost before the wire;
 *        - the ACK field never goes back;
 *        - the right edge of the window (ACK + WIN) never goes back
 *          (RSTs, whose window is 0, aside).
 *       With MIN_DATA, fails unless at least that many data segments
 *       were seen (proof that the capture covers the transfer).
 *   tcp-pcapcheck rst PCAP ADDR PORT
 *       ADDR sent a RST on a connection with remote port PORT, and its
 *       sequence number is exactly the last ACK the peer sent on that
 *       connection (the peer's RCV.NXT), so the peer accepts it
 *       (RFC 9293 3.10.7.4, RFC 5961 3.2) rather than challenging it.
 *   tcp-pcapcheck arp PCAP ADDR
 *       Someone asked for ADDR's hardware address (an ARP request for
 *       it is in the capture): the guest is trying to reach it.
 *
 * Prints one line per problem and a summary; exit 0 when every check
 * passed, 1 when one failed, 2 on bad usage or an unreadable capture.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCONN  256
#define MAXHOLES 32
#define SNAPMAX  262144

/* Bytes not sent yet although later ones were. */
struct hole {
	uint32_t start, end;
	unsigned peer_segs, retrans; /* counts when it opened */
};

struct conn {
	uint32_t laddr, raddr;
	uint16_t lport, rport;
	/* What ADDR sent. */
	int have_seq, have_ack;
	uint32_t max_end, ack, edge;
	unsigned data, retrans, lost, overtaken, ack_back, edge_back;
	struct hole holes[MAXHOLES];
	unsigned nholes;
	/* What the peer sent: how many segments, its last ACK. */
	unsigned peer_segs;
	int have_peer_ack;
	uint32_t peer_ack;
	/* Resets ADDR sent, and whether the last one was exact. */
	unsigned rsts, rst_exact;
};

static struct conn conns[MAXCONN];
static unsigned nconn;
static unsigned arp_requests; /* for ADDR */
static unsigned frame_no;

static int
seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static struct conn *
find(uint32_t la, uint16_t lp, uint32_t ra, uint16_t rp)
{
	for (unsigned i = 0; i < nconn; i++)
		if (conns[i].laddr == la && conns[i].lport == lp &&
		    conns[i].raddr == ra && conns[i].rport == rp)
			return &conns[i];
	if (nconn == MAXCONN)
		return NULL;
	conns[nconn] =
	    (struct conn){.laddr = la, .lport = lp, .raddr = ra, .rport = rp};
	return &conns[nconn++];
}

static char *
ep(char *buf, uint32_t a, uint16_t p)
{
	struct in_addr ia = {htonl(a)};

	sprintf(buf, "%s:%u", inet_ntoa(ia), p);
	return buf;
}

static void __attribute__((format(printf, 2, 3)))
problem(const struct conn *c, const char *fmt, ...)
{
	char l[32], r[32];
	va_list ap;

	printf("frame %u: %s -> %s: ", frame_no, ep(l, c->laddr, c->lport),
	       ep(r, c->raddr, c->rport));
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void
hole_open(struct conn *c, uint32_t start, uint32_t end)
{
	if (c->nholes == MAXHOLES) {
		printf("frame %u: more than %d holes, giving up\n", frame_no,
		       MAXHOLES);
		exit(2);
	}
	c->holes[c->nholes++] =
	    (struct hole){start, end, c->peer_segs, c->retrans};
}

/* [seq, end) was sent before (at least partly): fill what it covers of
 * the holes; 1 if it was the first transmission of some hole's bytes. */
static int
hole_fill(struct conn *c, uint32_t seq, uint32_t end, struct hole *which)
{
	int hit = 0;

	for (unsigned i = 0; i < c->nholes; i++) {
		struct hole *h = &c->holes[i];

		if (!seq_lt(seq, h->end) || !seq_lt(h->start, end))
			continue;
		if (!hit)
			*which = *h;
		hit = 1;
		if (!seq_lt(h->start, seq) && !seq_lt(end, h->end)) {
			*h = c->holes[--c->nholes]; /* covered */
			i--;
		} else if (!seq_lt(h->start, seq)) {
			h->start = end; /* front covered */
		} else if (!seq_lt(end, h->end)) {
			h->end = seq; /* back covered */
		} else { /* middle: keep the front, open the back */
			uint32_t back = h->end;

			h->end = seq;
			hole_open(c, end, back);
			c->holes[c->nholes - 1].peer_segs = which->peer_segs;
			c->holes[c->nholes - 1].retrans = which->retrans;
		}
	}
	return hit;
}

static void
data_order(struct conn *c, uint32_t seq, uint32_t end)
{
	struct hole h;

	if (seq_lt(c->max_end, seq)) {
		hole_open(c, c->max_end, seq);
		return;
	}
	if (!seq_lt(seq, c->max_end))
		return; /* in sequence */
	if (!hole_fill(c, seq, end, &h)) {
		c->retrans++;
		return;
	}
	if (c->retrans == h.retrans && c->peer_segs - h.peer_segs < 3) {
		c->overtaken++;
		problem(c, "overtaken: seq %u sent after data from %u", seq,
		        h.end);
	} else {
		c->lost++; /* lost before the wire, then retransmitted */
		c->retrans++;
	}
}

/* A segment from ADDR. */
static void
sent(struct conn *c, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
     uint32_t len)
{
	uint32_t end = seq + len + !!(flags & 0x02) + !!(flags & 0x01);

	if (flags & 0x04) {
		c->rsts++;
		c->rst_exact = c->have_peer_ack && seq == c->peer_ack;
	}
	if (len > 0)
		c->data++;
	if (flags & 0x02) { /* SYN: a stream (maybe a new incarnation) */
		c->have_seq = 1;
		c->have_ack = 0;
		c->nholes = 0;
		c->max_end = end;
	} else if (c->have_seq && len > 0) {
		data_order(c, seq, end);
	}
	if (c->have_seq && seq_lt(c->max_end, end))
		c->max_end = end;
	if (!(flags & 0x10) || (flags & 0x04))
		return;
	if (c->have_ack && seq_lt(ack, c->ack)) {
		c->ack_back++;
		problem(c, "ACK went back to %u from %u", ack, c->ack);
	}
	if (c->have_ack && seq_lt(ack + win, c->edge)) {
		c->edge_back++;
		problem(c, "window right edge went back to %u from %u",
		        ack + win, c->edge);
	}
	if (!c->have_ack || seq_lt(c->ack, ack))
		c->ack = ack;
	if (!c->have_ack || seq_lt(c->edge, ack + win))
		c->edge = ack + win;
	c->have_ack = 1;
}

static void
frame(const uint8_t *f, uint32_t n, uint32_t addr)
{
	const uint8_t *ip, *tcp;
	uint32_t ihl, tlen, doff, src, dst;
	struct conn *c;

	/* ARP for IPv4 over Ethernet (RFC 826): the request's target. */
	if (n >= 14 + 28 && be16(f + 12) == 0x0806 && be16(f + 14) == 1 &&
	    be16(f + 16) == 0x0800 && be16(f + 20) == 1 &&
	    be32(f + 14 + 24) == addr)
		arp_requests++;
	if (n < 14 + 20 || be16(f + 12) != 0x0800)
		return;
	ip = f + 14;
	ihl = (ip[0] & 15) * 4u;
	tlen = be16(ip + 2);
	if ((ip[0] >> 4) != 4 || ip[9] != 6 || ihl < 20 || tlen > n - 14 ||
	    tlen < ihl + 20 || (be16(ip + 6) & 0x3fff) != 0)
		return;
	tcp = ip + ihl;
	doff = (tcp[12] >> 4) * 4u;
	if (doff < 20 || doff > tlen - ihl)
		return;
	src = be32(ip + 12);
	dst = be32(ip + 16);
	if (src == addr) {
		c = find(src, be16(tcp), dst, be16(tcp + 2));
		if (c != NULL)
			sent(c, be32(tcp + 4), be32(tcp + 8), tcp[13],
			     be16(tcp + 14), tlen - ihl - doff);
	} else if (dst == addr) {
		c = find(dst, be16(tcp + 2), src, be16(tcp));
		if (c != NULL)
			c->peer_segs++;
		if (c != NULL && (tcp[13] & 0x10)) {
			c->have_peer_ack = 1;
			c->peer_ack = be32(tcp + 8);
		}
	}
}

static int
read_pcap(const char *path, uint32_t addr)
{
	static uint8_t buf[SNAPMAX];
	uint8_t gh[24], rh[16];
	FILE *fp = fopen(path, "rb");
	uint32_t magic;
	int swap;

	if (fp == NULL || fread(gh, 1, 24, fp) != 24) {
		fprintf(stderr, "tcp-pcapcheck: %s: cannot read\n", path);
		return -1;
	}
	memcpy(&magic, gh, 4);
	if (magic != 0xa1b2c3d4 && magic != 0xd4c3b2a1) {
		fprintf(stderr, "tcp-pcapcheck: %s: not a pcap file\n", path);
		return -1;
	}
	swap = magic == 0xd4c3b2a1;
#define U32(p) (swap ? __builtin_bswap32(*(uint32_t *)(p)) : *(uint32_t *)(p))
	if (U32(gh + 20) != 1) {
		fprintf(stderr,
		        "tcp-pcapcheck: %s: link type %u, not "
		        "Ethernet\n",
		        path, U32(gh + 20));
		return -1;
	}
	while (fread(rh, 1, 16, fp) == 16) {
		uint32_t cap = U32(rh + 8);

		if (cap > SNAPMAX || fread(buf, 1, cap, fp) != cap) {
			fprintf(stderr, "tcp-pcapcheck: %s: truncated\n", path);
			break;
		}
		frame_no++;
		frame(buf, cap, addr);
	}
#undef U32
	fclose(fp);
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: tcp-pcapcheck order PCAP ADDR [MIN_DATA]\n"
	                "       tcp-pcapcheck rst PCAP ADDR PORT\n"
	                "       tcp-pcapcheck arp PCAP ADDR\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct in_addr a;
	unsigned data = 0, retrans = 0, lost = 0, bad = 0;
	char l[32], r[32];

	if (argc < 4 || inet_aton(argv[3], &a) == 0)
		return usage();
	if (read_pcap(argv[2], ntohl(a.s_addr)) != 0)
		return 2;
	if (strcmp(argv[1], "order") == 0 && argc <= 5) {
		unsigned long min = argc == 5 ? strtoul(argv[4], NULL, 10) : 0;

		for (unsigned i = 0; i < nconn; i++) {
			data += conns[i].data;
			retrans += conns[i].retrans;
			lost += conns[i].lost;
			bad += conns[i].overtaken + conns[i].ack_back +
			       conns[i].edge_back;
		}
		printf("tcp-pcapcheck: %u frames, %u connections of %s, %u "
		       "data segments, %u retransmitted (%u lost before the "
		       "wire), %u out of order\n",
		       frame_no, nconn, argv[3], data, retrans, lost, bad);
		if (data < min)
			printf("tcp-pcapcheck: only %u data segments, expected "
			       "at least %lu\n",
			       data, min);
		return bad == 0 && data >= min ? 0 : 1;
	}
	if (strcmp(argv[1], "arp") == 0 && argc == 4) {
		printf("tcp-pcapcheck: %u ARP requests for %s\n", arp_requests,
		       argv[3]);
		return arp_requests > 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "rst") == 0 && argc == 5) {
		unsigned long port = strtoul(argv[4], NULL, 10);

		for (unsigned i = 0; i < nconn; i++) {
			const struct conn *c = &conns[i];

			if (c->rport != port || c->rsts == 0)
				continue;
			printf("tcp-pcapcheck: %s -> %s: %u RST, last one %s\n",
			       ep(l, c->laddr, c->lport),
			       ep(r, c->raddr, c->rport), c->rsts,
			       c->rst_exact ? "exact (the peer accepts it)"
			                    : "not at the peer's RCV.NXT");
			if (c->rst_exact)
				return 0;
			bad++;
		}
		if (bad == 0)
			printf("tcp-pcapcheck: no RST from %s to port %lu\n",
			       argv[3], port);
		return 1;
	}
	return usage();
}
