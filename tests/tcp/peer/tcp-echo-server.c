/*
 * Host-side TCP echo server for the tcp-*.scn scenarios: the guest's
 * `tcpconnect 10.0.2.2 PORT` reaches it through QEMU user networking
 * (10.0.2.2 is the host's loopback).
 *
 *   tcp-echo-server [-r|-c] [-p] [-n CONNS] [-t SECS] [-a ADDR] PORT
 *
 * Serves CONNS connections (default 1) one after the other, echoing until
 * the guest closes, then closes (the guest closed first; "peer reset"
 * when a reset ended it instead: on QEMU user networking slirp turns
 * the guest's RST into a plain close, so look for the RST in the
 * capture, tcp-pcapcheck rst).  -r resets each
 * connection (SO_LINGER 0) after the first echo instead; -c closes it
 * after the first echo (this side closes first).  Gives up after
 * SECS (default 60).  Listens on ADDR (default 127.0.0.1; with a tap
 * profile, the peer's address in the namespace).  Exit 0 when every
 * connection was served.  -p serves each connection in a child process
 * of its own, closed after IDLE_SECS without data: for many concurrent
 * guests (the lifetime stress) one that vanished mid-connection (its
 * driver unloaded) must not stall the others.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#define IDLE_SECS 10

int
main(int argc, char **argv)
{
	int opt, conns = 1, secs = 60, reset = 0, first = 0, one = 1, l;
	int parallel = 0;
	struct sockaddr_in a;
	const char *addr = "127.0.0.1";

	while ((opt = getopt(argc, argv, "rcpn:t:a:")) != -1) {
		if (opt == 'p')
			parallel = 1;
		else if (opt == 'r')
			reset = 1;
		else if (opt == 'c')
			first = 1;
		else if (opt == 'n')
			conns = atoi(optarg);
		else if (opt == 't')
			secs = atoi(optarg);
		else if (opt == 'a')
			addr = optarg;
		else
			return 2;
	}
	if (optind + 1 != argc)
		return fprintf(stderr, "usage: tcp-echo-server [-r|-c] [-p] "
		                       "[-n N] [-t S] [-a ADDR] PORT\n"),
		       2;
	alarm((unsigned)secs);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(argv[optind]));
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return fprintf(stderr, "tcp-echo-server: bad address %s\n",
		               addr),
		       2;
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 8) < 0) {
		perror("tcp-echo-server: bind/listen");
		return 1;
	}
	if (parallel)
		signal(SIGCHLD, SIG_IGN); /* children reap themselves */
	printf("listening on %s\n", argv[optind]);
	fflush(stdout);
	for (int i = 0; i < conns; i++) {
		char buf[4096];
		ssize_t n;
		long total = 0;
		int c = accept(l, NULL, NULL);

		if (c < 0) {
			perror("accept");
			return 1;
		}
		if (parallel) {
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				return 1;
			}
			if (pid > 0) {
				close(c);
				continue;
			}
			close(l);
			alarm(IDLE_SECS);
		}
		while ((n = read(c, buf, sizeof(buf))) > 0) {
			if (parallel)
				alarm(IDLE_SECS);
			if (write(c, buf, (size_t)n) != n)
				break;
			total += n;
			if (reset) {
				struct linger lg = {1, 0};
				usleep(200000);
				setsockopt(c, SOL_SOCKET, SO_LINGER, &lg,
				           sizeof(lg));
				break;
			}
			if (first)
				break;
		}
		printf("connection %d: echoed %ld bytes, %s\n", i + 1, total,
		       reset                          ? "reset"
		       : first                        ? "closed first"
		       : n < 0 && errno == ECONNRESET ? "peer reset"
		                                      : "peer closed first");
		fflush(stdout);
		close(c);
		if (parallel)
			_exit(0);
	}
	return 0;
}
