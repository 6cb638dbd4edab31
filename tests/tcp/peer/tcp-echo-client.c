/*
 * Host-side TCP echo client for the tcp-*.scn scenarios: talks to the
 * guest's `tcpecho` service through a `hostfwd tcp` port.
 *
 *   tcp-echo-client [-n LINES] [-i MS] [-e] [-r] [-t SECS] [-a ADDR] PORT
 *
 * Sends LINES lines (default 5) every MS ms (default 0), checks each
 * echo byte for byte, then closes first (the guest's side of the
 * service closes after us).  -r ends with a reset (SO_LINGER 0) instead.
 * -e expects the guest to reset the connection meanwhile (rmmod -f):
 * success is ECONNRESET or EOF before all lines came back, never a hang.
 * ADDR is the guest's (default 127.0.0.1, the hostfwd).  Exit 0 on success.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int expect_reset;

static int
fail(const char *what, int err)
{
	if (expect_reset && (err == ECONNRESET || err == EPIPE || err == 0)) {
		printf("reset seen: %s (%s)\n", what,
		       err ? strerror(err) : "EOF");
		return 0;
	}
	printf("FAIL: %s: %s\n", what, err ? strerror(err) : "EOF");
	return 1;
}

int
main(int argc, char **argv)
{
	int opt, lines = 5, ms = 0, secs = 60, reset = 0, s;
	struct sockaddr_in a;
	const char *addr = "127.0.0.1";

	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "n:i:ert:a:")) != -1) {
		if (opt == 'n')
			lines = atoi(optarg);
		else if (opt == 'i')
			ms = atoi(optarg);
		else if (opt == 'e')
			expect_reset = 1;
		else if (opt == 'r')
			reset = 1;
		else if (opt == 't')
			secs = atoi(optarg);
		else if (opt == 'a')
			addr = optarg;
		else
			return 2;
	}
	if (optind + 1 != argc)
		return 2;
	alarm((unsigned)secs);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(argv[optind]));
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return printf("FAIL: bad address %s\n", addr), 2;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail("connect", errno);
	for (int i = 0; i < lines; i++) {
		char line[128], back[128];
		size_t len, got = 0;

		snprintf(line, sizeof(line), "line %d of %d from the host\n",
		         i + 1, lines);
		len = strlen(line);
		if (write(s, line, len) != (ssize_t)len)
			return fail("write", errno);
		while (got < len) {
			ssize_t n = read(s, back + got, len - got);
			if (n <= 0)
				return fail("read", n < 0 ? errno : 0);
			got += (size_t)n;
		}
		if (memcmp(line, back, len) != 0)
			return printf("FAIL: echo differs\n"), 1;
		if (ms > 0)
			usleep((useconds_t)ms * 1000);
	}
	if (expect_reset) {
		char c;
		ssize_t n = read(s, &c, 1); /* wait for the guest's reset */
		return fail("final read", n < 0 ? errno : 0);
	}
	if (reset) {
		struct linger lg = {1, 0};
		setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(s);
	printf("%d lines echoed, %s\n", lines, reset ? "reset" : "closed");
	return 0;
}
