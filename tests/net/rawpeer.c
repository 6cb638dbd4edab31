/*
 * rawpeer: the other end of a guest NIC on QEMU's dgram backend (profile
 * "net dgram"), where every Ethernet frame is one UDP datagram between
 * QEMU's port (${NETn_QEMU}) and ours (${NETn_PEER}).  Nobody here wrote
 * QEMU's side, which is the point: the frames are checked byte for byte
 * against what the guest was told to send or should have received.
 *
 *   rawpeer send QEMUPORT PEERPORT HEX
 *       inject one frame (from PEERPORT, so QEMU sees its own peer)
 *   rawpeer gen QEMUPORT PEERPORT DST SRC TYPE LEN [K]
 *       inject the frame `pkt gen` would build as frame K (default 0)
 *   rawpeer expect PEERPORT MS HEX
 *       wait up to MS ms for a frame equal to HEX; other frames are
 *       printed and skipped.  Exit 0 on a match, 1 otherwise.
 *   rawpeer expect-gen PEERPORT MS COUNT DST SRC TYPE LEN
 *       wait for COUNT frames equal to `pkt gen -c COUNT`'s, in order
 *   rawpeer fnv HEX | rawpeer fnv-gen DST SRC TYPE LEN [K]
 *       print the FNV-1a hash `pkt dump` prints for that frame
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXF 65536

static void
die(const char *msg)
{
	fprintf(stderr, "rawpeer: %s\n", msg);
	exit(2);
}

static int
port_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > 65535)
		die("bad port");
	return (int)v;
}

static size_t
parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s);

	if (n % 2 != 0 || n / 2 > max)
		die("bad hex frame");
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			die("bad hex frame");
		out[i] = (uint8_t)v;
	}
	return n / 2;
}

static void
parse_mac(const char *s, uint8_t *m)
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
	           &v[5]) != 6)
		die("bad MAC");
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
}

/* The frame `pkt gen` sends as its k-th: net/cmd/cmd_pkt.c fill_gen(). */
static size_t
gen_frame(char **argv, unsigned long k, uint8_t *f)
{
	unsigned long type = strtoul(argv[2], NULL, 0);
	unsigned long len = strtoul(argv[3], NULL, 0);

	if (len < 14 || len > MAXF || type > 0xffff)
		die("bad TYPE or LEN");
	parse_mac(argv[0], f);
	parse_mac(argv[1], f + 6);
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	for (size_t i = 14; i < len; i++)
		f[i] = (uint8_t)(i - 14 + k);
	return len;
}

static uint32_t
fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 0x811c9dc5;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x01000193;
	return h;
}

static int
bound_socket(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("bind");
	return fd;
}

static int
send_frame(int qport, int pport, const uint8_t *f, size_t n)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)qport)};
	int fd = bound_socket(pport);

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sendto(fd, f, n, 0, (struct sockaddr *)&to, sizeof(to)) !=
	    (ssize_t)n)
		die("sendto");
	printf("rawpeer: sent %zu bytes fnv %08x\n", n, fnv1a(f, n));
	close(fd);
	return 0;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for frames equal to want[0..count-1] in order. */
static int
expect(int pport, long ms, uint8_t **want, size_t *wlen, int count)
{
	int fd = bound_socket(pport), got = 0;
	long deadline = now_ms() + ms;
	static uint8_t buf[MAXF];

	while (got < count) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			continue;
		if ((size_t)n == wlen[got] &&
		    memcmp(buf, want[got], wlen[got]) == 0) {
			got++;
			continue;
		}
		printf("rawpeer: other frame, %zd bytes fnv %08x:", n,
		       fnv1a(buf, (size_t)n));
		for (ssize_t i = 0; i < n && i < 64; i++)
			printf("%02x", buf[i]);
		printf("\n");
	}
	printf("rawpeer: %d of %d expected frame(s) received\n", got, count);
	return got == count ? 0 : 1;
}

int
main(int argc, char **argv)
{
	static uint8_t f[MAXF];

	if (argc == 5 && strcmp(argv[1], "send") == 0)
		return send_frame(port_arg(argv[2]), port_arg(argv[3]), f,
		                  parse_hex(argv[4], f, sizeof(f)));
	if ((argc == 8 || argc == 9) && strcmp(argv[1], "gen") == 0)
		return send_frame(
		    port_arg(argv[2]), port_arg(argv[3]), f,
		    gen_frame(argv + 4,
		              argc == 9 ? strtoul(argv[8], NULL, 0) : 0, f));
	if (argc == 5 && strcmp(argv[1], "expect") == 0) {
		uint8_t *w = f;
		size_t n = parse_hex(argv[4], f, sizeof(f));
		return expect(port_arg(argv[2]), atol(argv[3]), &w, &n, 1);
	}
	if (argc == 9 && strcmp(argv[1], "expect-gen") == 0) {
		int count = atoi(argv[4]);
		uint8_t **w;
		size_t *n;

		if (count < 1 || count > 1000)
			die("bad COUNT");
		w = calloc((size_t)count, sizeof(*w));
		n = calloc((size_t)count, sizeof(*n));
		for (int k = 0; k < count; k++) {
			w[k] = malloc(MAXF);
			n[k] = gen_frame(argv + 5, (unsigned long)k, w[k]);
		}
		return expect(port_arg(argv[2]), atol(argv[3]), w, n, count);
	}
	if (argc == 3 && strcmp(argv[1], "fnv") == 0) {
		size_t n = parse_hex(argv[2], f, sizeof(f));
		printf("%08x\n", fnv1a(f, n));
		return 0;
	}
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "fnv-gen") == 0) {
		size_t n = gen_frame(
		    argv + 2, argc == 7 ? strtoul(argv[6], NULL, 0) : 0, f);
		printf("%08x\n", fnv1a(f, n));
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of "
	                "tests/net/rawpeer.c\n");
	return 2;
}
