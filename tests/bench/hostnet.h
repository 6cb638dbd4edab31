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
#include <stdint.h>
#include <sys/socket.h>
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
