/*
 * udpecho-client: check the guest's `udpecho` service through QEMU's
 * hostfwd, byte for byte.
 *
 *   udpecho-client [-a ADDR] PORT [MIN MAX [STEP]]
 *
 * Sends one datagram of every size from MIN to MAX (default 1..1472, the
 * largest UDP payload in a 1500-byte MTU) in STEP increments plus MAX
 * itself, to ADDR:PORT (default 127.0.0.1, the hostfwd); each carries a pattern
 * derived from its size and must come back unchanged within 2 s (up to 5 tries:
 * the first datagrams may race the guest's ARP resolution of the gateway).
 * Prints one line per failure and a summary; exits 0 only if every size came
 * back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXLEN 65507

static unsigned char out[MAXLEN], in[MAXLEN + 1];

static void
fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + n);
}

/* 0: echoed back intact; -1: no reply; 1: wrong reply. */
static int
try_size(int fd, size_t n)
{
	struct pollfd pfd = {fd, POLLIN, 0};

	fill(out, n);
	if (send(fd, out, n, 0) != (ssize_t)n) {
		perror("send");
		return -1;
	}
	for (;;) {
		int r = poll(&pfd, 1, 2000);
		if (r <= 0)
			return -1;
		ssize_t got = recv(fd, in, sizeof(in), 0);
		if (got < 0) {
			if (errno == ECONNREFUSED)
				return -1; /* guest not listening yet */
			perror("recv");
			return -1;
		}
		/* a late echo of an earlier try: keep waiting */
		if ((size_t)got != n) {
			fill(out, (size_t)got);
			if (memcmp(in, out, (size_t)got) == 0) {
				fill(out, n);
				continue;
			}
			fprintf(stderr, "size %zu: reply of %zd bytes\n", n,
			        got);
			return 1;
		}
		if (memcmp(in, out, n) != 0) {
			fprintf(stderr, "size %zu: reply differs\n", n);
			return 1;
		}
		return 0;
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = {0};
	size_t min = 1, max = 1472, step = 1, ok = 0, bad = 0;
	const char *addr = "127.0.0.1";
	int fd;

	if (argc > 2 && strcmp(argv[1], "-a") == 0) {
		addr = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 && argc != 4 && argc != 5) {
		fprintf(stderr, "usage: udpecho-client [-a ADDR] PORT [MIN MAX "
		                "[STEP]]\n");
		return 2;
	}
	if (argc >= 4) {
		min = strtoul(argv[2], NULL, 0);
		max = strtoul(argv[3], NULL, 0);
	}
	if (argc == 5)
		step = strtoul(argv[4], NULL, 0);
	if (min < 1 || max > MAXLEN || min > max || step == 0) {
		fprintf(stderr, "udpecho-client: bad sizes\n");
		return 2;
	}
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "udpecho-client: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("udpecho-client: socket");
		return 2;
	}
	for (size_t n = min; n <= max; n = n == max         ? max + 1
	                                   : n + step > max ? max
	                                                    : n + step) {
		int r = -1;
		for (int tries = 0; tries < 5 && r < 0; tries++)
			r = try_size(fd, n);
		if (r == 0) {
			ok++;
		} else {
			bad++;
			if (r < 0)
				fprintf(stderr, "size %zu: no reply\n", n);
		}
	}
	printf("udpecho-client: %zu sizes echoed, %zu failed (%zu..%zu)\n", ok,
	       bad, min, max);
	close(fd);
	return bad == 0 ? 0 : 1;
}
