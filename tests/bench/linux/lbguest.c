/*
 * lbguest: the guest side of `make bench-linux` in the Debian Linux
 * guest, linked static and packed into its initramfs.
 *
 * As /init (pid 1) it mounts proc, sys and devtmpfs, takes ttyS0 as its
 * console, installs busybox's applets and runs busybox's shell with the
 * prompt "lbench# ", which the host driver (benchlinux.c) waits for.
 *
 * As a command, the workloads that modref's own commands run in the
 * other guest:
 *   lbguest udpecho PORT           echo UDP datagrams (in the background)
 *   lbguest sink PORT              accept one TCP connection, read to EOF
 *                                  checking the test pattern, close
 *   lbguest source ADDR PORT BYTES connect, send BYTES of the pattern,
 *                                  half close, wait for the peer's close
 *   lbguest modcycle NAME N        N x (finit_module, delete_module) of
 *                                  /lib/modules/NAME.ko
 *
 * The pattern is byte i = (i * 7) ^ (i >> 10), checked and written with
 * tcp.ko's own code (net/tcp/ko/pattern.h) as tcpbulk and tcplisten do.  Rates printed here use the
 * guest's clock; the host driver times every command on its own clock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/tcp/ko/pattern.h"
#include "tests/bench/hostnet.h"

#define CHUNK 65536

/* The same pattern code as modref's tcplisten/tcpbulk, so both guests
 * pay the same for checking and writing it. */
static struct tcp_pattern pattern;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
be_init(void)
{
	int fd;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setsid();
	fd = open("/dev/ttyS0", O_RDWR);
	if (fd >= 0) {
		ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (fork() == 0) {
		execl("/bin/busybox", "busybox", "--install", "-s", "/bin",
		      (char *)NULL);
		_exit(127);
	}
	while (wait(NULL) > 0)
		;
	setenv("PATH", "/bin", 1);
	setenv("PS1", "lbench# ", 1);
	setenv("HOME", "/", 1);
	printf("lbguest: init done\n");
	fflush(stdout);
	execl("/bin/busybox", "sh", (char *)NULL);
	perror("lbguest: exec sh");
	for (;;)
		pause();
}

static int
udpecho(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[2048];

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("lbguest: udpecho");
		return 1;
	}
	printf("lbguest: udpecho on port %d\n", port);
	fflush(stdout);
	if (fork() != 0)
		return 0; /* the child echoes until poweroff */
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(s, buf, sizeof(buf), 0,
		                     (struct sockaddr *)&from, &fl);

		if (n >= 0)
			sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&from,
			       fl);
	}
}

static int
sink(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c;
	static uint8_t buf[CHUNK];
	uint64_t got = 0, bad = 0;
	double t0;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 1) < 0) {
		perror("lbguest: sink");
		return 1;
	}
	printf("lbguest: sink listening on port %d\n", port);
	fflush(stdout);
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("lbguest: accept");
		return 1;
	}
	t0 = now_ms();
	bad = bench_read_pattern(c, buf, sizeof(buf), &got);
	t0 = now_ms() - t0;
	close(c);
	close(l);
	printf("lbguest: sink received %llu bytes in %.0f ms, %s\n",
	       (unsigned long long)got, t0,
	       bad == 0 ? "pattern ok" : "PATTERN MISMATCH");
	return bad != 0;
}

static int
source(const char *addr, int port, uint64_t bytes)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	static uint8_t buf[CHUNK];
	int s = socket(AF_INET, SOCK_STREAM, 0);
	uint64_t sent = 0;
	double t0;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "lbguest: source: bad address '%s'\n", addr);
		return 1;
	}
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("lbguest: source: connect");
		return 1;
	}
	t0 = now_ms();
	while (sent < bytes) {
		size_t n =
		    bytes - sent < CHUNK ? (size_t)(bytes - sent) : CHUNK;
		ssize_t w;

		tcp_pattern_fill(&pattern, buf, sent, n);
		w = write(s, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			perror("lbguest: source: write");
			return 1;
		}
		sent += (uint64_t)w;
	}
	shutdown(s, SHUT_WR);
	while (read(s, buf, sizeof(buf)) > 0)
		;
	close(s);
	printf("lbguest: source sent %llu bytes in %.0f ms\n",
	       (unsigned long long)sent, now_ms() - t0);
	return 0;
}

static int
modcycle(const char *name, int n)
{
	char path[256];
	double t0 = now_ms();

	snprintf(path, sizeof(path), "/lib/modules/%s.ko", name);
	for (int i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) < 0) {
			fprintf(stderr, "lbguest: insmod %s: %s\n", path,
			        strerror(errno));
			return 1;
		}
		close(fd);
		if (syscall(SYS_delete_module, name, O_NONBLOCK) < 0) {
			fprintf(stderr, "lbguest: rmmod %s: %s\n", name,
			        strerror(errno));
			return 1;
		}
	}
	t0 = now_ms() - t0;
	printf("lbguest: modcycle %s %d cycles in %.0f ms (%.1f/s)\n", name, n,
	       t0, n * 1e3 / t0);
	return 0;
}

int
main(int argc, char **argv)
{
	if (getpid() == 1)
		return be_init();
	tcp_pattern_init(&pattern);
	if (argc == 3 && strcmp(argv[1], "udpecho") == 0)
		return udpecho(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "sink") == 0)
		return sink(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "source") == 0)
		return source(argv[2], atoi(argv[3]),
		              strtoull(argv[4], NULL, 0));
	if (argc == 4 && strcmp(argv[1], "modcycle") == 0)
		return modcycle(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: lbguest udpecho PORT | sink PORT | "
	                "source ADDR PORT BYTES | modcycle NAME N\n");
	return 2;
}
