/*
 * Socket helpers the benchmark host tools share (bench-boot, benchlinux)
 * and the Linux guest's helper (lbguest): header-only, because lbguest is
 * built static for another machine and links nothing of ours.
 */
#ifndef MODREF_BENCH_HOSTNET_H
#define MODREF_BENCH_HOSTNET_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/tcp/ko/pattern.h"

/* A port of this type free on 127.0.0.1 now (QEMU binds it a moment
 * later), or -1. */
static inline int
bench_free_port(int type)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/*
 * Wait up to ms for the echo of the datagram numbered seq (its first
 * four bytes), skipping echoes of earlier ones: 1 if it came, 0 if not.
 * A one-at-a-time loop that counted any answer would count the late
 * answers of a warm-up's unanswered datagrams too, and run with several
 * in flight (benchlinux once did).
 */
static inline int
bench_udp_answer(int fd, uint32_t seq, int ms)
{
	struct timespec t0, t;
	unsigned char back[256];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int left;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
		                  (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left < 0 || poll(&p, 1, left) != 1)
			return 0;
		if (recv(fd, back, sizeof(back), 0) >= (ssize_t)sizeof(seq) &&
		    memcmp(back, &seq, sizeof(seq)) == 0)
			return 1;
	}
}

/* Read fd to EOF into buf, checking tcp.ko's test pattern; *got is the
 * byte count.  Returns the number of reads that carried a wrong byte. */
static inline uint64_t
bench_read_pattern(int fd, uint8_t *buf, size_t size, uint64_t *got)
{
	struct tcp_pattern pattern;
	uint64_t bad = 0;

	tcp_pattern_init(&pattern);
	*got = 0;
	for (;;) {
		ssize_t n = read(fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		bad += tcp_pattern_check(&pattern, buf, *got, (size_t)n) !=
		       (size_t)n;
		*got += (uint64_t)n;
	}
	return bad;
}

#endif
