/*
 * Host-side bulk TCP peer for the tcp-*.scn scenarios.  Every byte is
 * the test pattern byte i = (i * 7) ^ (i >> 10), as in tcp.ko's
 * tcpbulk/tcplisten, so each end checks every byte it receives.
 *
 *   tcp-bulk recv [-t SECS] [-a ADDR] PORT BYTES   listen on ADDR:PORT
 *       (default 127.0.0.1), accept one (the guest's tcpbulk), check
 *       BYTES bytes then EOF, close
 *   tcp-bulk send [-t SECS] [-a ADDR] PORT BYTES   connect to ADDR:PORT
 *       (default 127.0.0.1: hostfwd to tcplisten), send BYTES, half
 *       close, wait for the guest's close
 *   tcp-bulk send -r ...   the same again and again until SECS are up
 *       (a peer for a guest that listens now and then: the fault
 *       sweep's tcplisten); prints "connecting" once, then a line per
 *       connection that failed
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static uint8_t
pat(uint64_t i)
{
	return (uint8_t)((i * 7) ^ (i >> 10));
}

static double
now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int
do_recv(struct sockaddr_in *a, uint64_t want)
{
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c;
	uint8_t buf[65536];
	uint64_t got = 0;
	ssize_t n;
	double t0;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)a, sizeof(*a)) < 0 || listen(l, 1) < 0)
		return perror("bind/listen"), 1;
	printf("listening\n");
	fflush(stdout);
	c = accept(l, NULL, NULL);
	if (c < 0)
		return perror("accept"), 1;
	t0 = now_s();
	while ((n = read(c, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pat(got + (uint64_t)i))
				return printf("FAIL: byte %llu differs\n",
				              (unsigned long long)(got + i)),
				       1;
		got += (uint64_t)n;
	}
	if (n < 0)
		return printf("FAIL: read: %s\n", strerror(errno)), 1;
	close(c);
	printf("received %llu bytes in %.2f s, pattern ok\n",
	       (unsigned long long)got, now_s() - t0);
	return got == want
	           ? 0
	           : (printf("FAIL: wanted %llu\n", (unsigned long long)want),
	              1);
}

static int
do_send(struct sockaddr_in *a, uint64_t total)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	uint8_t buf[16384];
	uint64_t sent = 0;
	double t0;
	char c;

	for (int i = 0; connect(s, (struct sockaddr *)a, sizeof(*a)) < 0; i++) {
		if (i == 50)
			return perror("connect"), 1;
		close(s);
		usleep(100000); /* the guest may not listen yet */
		s = socket(AF_INET, SOCK_STREAM, 0);
	}
	t0 = now_s();
	while (sent < total) {
		size_t n =
		    total - sent < sizeof(buf) ? total - sent : sizeof(buf);
		ssize_t w;
		for (size_t i = 0; i < n; i++)
			buf[i] = pat(sent + i);
		w = write(s, buf, n);
		if (w <= 0) {
			printf("FAIL: write: %s\n", strerror(errno));
			close(s);
			return 1;
		}
		sent += (uint64_t)w;
	}
	shutdown(s, SHUT_WR);
	if (read(s, &c, 1) != 0) {
		printf("FAIL: no clean close from the guest\n");
		close(s);
		return 1;
	}
	close(s);
	printf("sent %llu bytes in %.2f s\n", (unsigned long long)sent,
	       now_s() - t0);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a;
	const char *addr = "127.0.0.1";
	int secs = 120, i = 2;
	bool repeat = false;

	signal(SIGPIPE, SIG_IGN);
	while (i + 1 < argc &&
	       (strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "-a") == 0)) {
		if (argv[i][1] == 't')
			secs = atoi(argv[i + 1]);
		else
			addr = argv[i + 1];
		i += 2;
	}
	if (strcmp(argv[1], "send") == 0 && i + 2 < argc &&
	    strcmp(argv[i], "-r") == 0) {
		repeat = true;
		i++;
	}
	if (argc != i + 2)
		return fprintf(stderr, "usage: tcp-bulk recv|send [-t S] "
		                       "[-a ADDR] [-r] PORT BYTES\n"),
		       2;
	alarm((unsigned)secs);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(argv[i]));
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return fprintf(stderr, "tcp-bulk: bad address %s\n", addr), 2;
	if (strcmp(argv[1], "recv") == 0)
		return do_recv(&a, strtoull(argv[i + 1], NULL, 0));
	if (!repeat)
		return do_send(&a, strtoull(argv[i + 1], NULL, 0));
	printf("connecting\n");
	fflush(stdout);
	for (;;) { /* until the alarm */
		do_send(&a, strtoull(argv[i + 1], NULL, 0));
		fflush(stdout);
		usleep(50000); /* a guest not listening: not too often */
	}
}
