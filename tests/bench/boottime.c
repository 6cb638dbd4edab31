/*
 * bench-boot: host-side timing of modref in QEMU, from the host's
 * CLOCK_MONOTONIC as bytes arrive on QEMU's stdout pipe.
 *
 *   bench-boot [-n RUNS] [-q QEMU] [-s SMP] KERNEL FLOOR [OTHER]
 *     QEMU start to modref's first serial byte and to the shell prompt,
 *     against the floor QEMU itself sets: an empty multiboot kernel
 *     (tests/bench/floor.S) that prints one byte and powers off.  Runs
 *     alternate between the two, so that a drifting load on the machine
 *     hits both alike; every run is printed, then the medians.  OTHER,
 *     a second modref kernel (say, from before a change), joins every
 *     round.
 *
 *   bench-boot -t MODULE -c N [-a CMDLINE] [-i FILES] [-q QEMU] [-s SMP]
 *              KERNEL
 *     insmod MODULE / rmmod MODULE typed at the console N times, as a
 *     user would: each command timed from the newline written to the
 *     next prompt.  Prints every cycle, the rate and the latency
 *     distributions (min, median, 90th percentile, max).  FILES go to
 *     QEMU's -initrd (comma-separated module files).
 *
 *   bench-boot -u SECS -d DRIVER [-n ROUNDS] [-a CMDLINE] [-i FILES]
 *              [-s SMP] KERNEL
 *     The packet path: one NIC (e1000 or virtio_net) on QEMU user
 *     networking with a UDP hostfwd; insmod DRIVER, dhcp eth0, udpecho,
 *     then 64-byte datagrams from the host for SECS seconds per phase:
 *     one at a time (round trips per second and their distribution) and
 *     16 in flight (frames per second through the driver, in + out),
 *     each through the stack (udpecho) and through the raw bounce loop
 *     (bench bounce eth0 on), ROUNDS rounds (default 3) alternating, the
 *     odd rounds in reverse order; each round's windowed ratio, then
 *     medians and the stack/bounce ratios.
 *
 *   bench-boot -r HOLD_MS -k K -N N [-W M] [-a CMDLINE] [-i FILES] KERNEL
 *     rmmod under load: e1000 up with an address, N UDP sockets bound to
 *     eth0 (udpecho -b), M TCP connections in TIME_WAIT (tcp.ko's
 *     tcpconnect to a host echo child, the guest closing first) and K
 *     holders that keep their device reference for HOLD_MS whatever
 *     happens (devhold), then rmmod e1000: the time until it is
 *     unloaded, host clock and the guest's own figure; with M > 0 and
 *     K = 0 then rmmod tcp, timed the same way (tcp_unload_tw= decides
 *     whether it waits for the TIME_WAITs or purges them).
 *
 *   bench-boot -T BYTES -d DRIVER [-n ROUNDS] [-a CMDLINE] [-i FILES]
 *              KERNEL
 *     TCP bulk through one NIC, ROUNDS rounds (default 5) alternating
 *     direction: tcp.ko's tcpbulk to a host sink (guest to host) and a
 *     host source to tcplisten through a hostfwd (host to guest), BYTES
 *     each, the pattern checked at the receiving end; Mbit/s by the host
 *     clock, the guest's own figure beside it, then the medians.
 *
 * -e ARG passes one more argument to QEMU (up to 8), e.g. -e -nic
 * -e user,model=e1000.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/bench/hostnet.h"

#define MAX_RUNS   1000
#define PROMPT     "modref> "
#define LIMIT_MS   120000.0
#define OUTPUT_MAX 65536

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct guest {
	pid_t pid;
	int in, out; /* QEMU's stdin (we write), stdout (we read) */
	double t0;   /* when it was started */
	double first;
	char tail[sizeof(PROMPT)];
	char text[OUTPUT_MAX]; /* output since the last command */
	size_t len;
};

struct qemu_opts {
	const char *qemu, *smp, *append, *initrd;
	const char *extra[8]; /* more QEMU arguments (-e) */
	int nextra;
};

static int
guest_start(struct guest *g, const struct qemu_opts *o, const char *kernel)
{
	int in[2], out[2];

	memset(g, 0, sizeof(*g));
	g->first = -1;
	if (pipe(in) < 0 || pipe(out) < 0) {
		perror("bench-boot: pipe");
		return -1;
	}
	g->t0 = now_ms();
	g->pid = fork();
	if (g->pid < 0) {
		perror("bench-boot: fork");
		return -1;
	}
	if (g->pid == 0) {
		const char *argv[40];
		int n = 0;

		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		argv[n++] = o->qemu;
		argv[n++] = "-machine";
		argv[n++] = "pc";
		argv[n++] = "-accel";
		argv[n++] = "tcg";
		argv[n++] = "-nodefaults";
		argv[n++] = "-display";
		argv[n++] = "none";
		argv[n++] = "-no-reboot";
		argv[n++] = "-device";
		argv[n++] = "isa-debug-exit,iobase=0xf4,iosize=0x04";
		argv[n++] = "-smp";
		argv[n++] = o->smp;
		argv[n++] = "-m";
		argv[n++] = "128M";
		argv[n++] = "-kernel";
		argv[n++] = kernel;
		argv[n++] = "-append";
		argv[n++] = o->append;
		if (o->initrd != NULL) {
			argv[n++] = "-initrd";
			argv[n++] = o->initrd;
		}
		for (int i = 0; i < o->nextra; i++)
			argv[n++] = o->extra[i];
		argv[n++] = "-serial";
		argv[n++] = "stdio";
		argv[n++] = "-monitor";
		argv[n++] = "none";
		argv[n] = NULL;
		execvp(o->qemu, (char **)argv);
		perror("bench-boot: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	g->in = in[1];
	g->out = out[0];
	return 0;
}

/* Read until the prompt (prompt != 0), until the output since the last
 * command holds want (want != NULL), or QEMU's end of output.  Returns
 * the time it came (ms since the start), or -1. */
static double
guest_read(struct guest *g, int prompt, const char *want)
{
	char buf[4096];
	double limit = now_ms() + LIMIT_MS;

	for (;;) {
		struct pollfd p = {.fd = g->out, .events = POLLIN};
		int left = (int)(limit - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			fprintf(stderr, "bench-boot: no %s after %.0f s\n",
			        g->first < 0 ? "output" : "prompt",
			        LIMIT_MS / 1e3);
			return -1;
		}
		n = read(g->out, buf, sizeof(buf));
		if (n <= 0)
			return prompt ? -1 : now_ms() - g->t0;
		if (g->first < 0)
			g->first = now_ms() - g->t0;
		for (ssize_t i = 0; i < n; i++) {
			size_t l = strlen(g->tail);

			if (g->len < sizeof(g->text) - 1)
				g->text[g->len++] = buf[i];
			g->text[g->len] = '\0';
			/* The prompt may arrive split across reads. */
			if (l == sizeof(PROMPT) - 1)
				memmove(g->tail, g->tail + 1, l--);
			g->tail[l] = buf[i];
			g->tail[l + 1] = '\0';
			if (prompt && strcmp(g->tail, PROMPT) == 0)
				return now_ms() - g->t0;
		}
		if (want != NULL && strstr(g->text, want) != NULL)
			return now_ms() - g->t0;
	}
}

static double
guest_wait(struct guest *g, int prompt)
{
	return guest_read(g, prompt, NULL);
}

/* Type a command and return at once. */
static int
guest_send(struct guest *g, const char *cmd)
{
	size_t n = strlen(cmd);

	g->len = 0;
	g->text[0] = '\0';
	if (write(g->in, cmd, n) != (ssize_t)n || write(g->in, "\n", 1) != 1)
		return -1;
	return 0;
}

/* Type a command; the time until the next prompt in ms, or -1. */
static double
guest_type(struct guest *g, const char *cmd)
{
	double t = now_ms();

	if (guest_send(g, cmd) < 0)
		return -1;
	return guest_wait(g, 1) < 0 ? -1 : now_ms() - t;
}

static void
guest_end(struct guest *g, int poweroff)
{
	int status;

	if (poweroff) {
		if (write(g->in, "poweroff\n", 9) != 9)
			kill(g->pid, SIGKILL);
	} else {
		kill(g->pid, SIGKILL);
	}
	close(g->in);
	while (read(g->out, g->text, sizeof(g->text)) > 0)
		;
	close(g->out);
	waitpid(g->pid, &status, 0);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v. */
static double
quantile(double *v, int n, double q)
{
	int i = (int)(q * (n - 1) + 0.5);

	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void
print_dist(const char *what, double *v, int n)
{
	printf(" %s ms min %.2f median %.2f p90 %.2f max %.2f;", what,
	       quantile(v, n, 0), quantile(v, n, 0.5), quantile(v, n, 0.9),
	       quantile(v, n, 1));
}

static double floor_first[MAX_RUNS], floor_end[MAX_RUNS];
static double kern_first[MAX_RUNS], kern_end[MAX_RUNS];
static double other_first[MAX_RUNS], other_end[MAX_RUNS];

/* One boot to the prompt: 0, or -1. */
static int
boot_once(const struct qemu_opts *o, const char *kernel, double *first,
          double *prompt)
{
	struct guest g;

	if (guest_start(&g, o, kernel) < 0)
		return -1;
	*prompt = guest_wait(&g, 1);
	*first = g.first;
	guest_end(&g, 1);
	return *prompt < 0 ? -1 : 0;
}

/* other (may be NULL): a second kernel, e.g. the one before a change,
 * booted in the same rounds so the two compare side by side. */
static int
bench_boot(const struct qemu_opts *o, const char *kernel, const char *floor,
           const char *other, int runs)
{
	for (int i = 0; i < runs; i++) {
		struct guest g;

		if (guest_start(&g, o, floor) < 0)
			return 1;
		floor_end[i] = guest_wait(&g, 0);
		floor_first[i] = g.first;
		guest_end(&g, 0);
		if (floor_end[i] < 0 ||
		    boot_once(o, kernel, &kern_first[i], &kern_end[i]) < 0 ||
		    (other != NULL &&
		     boot_once(o, other, &other_first[i], &other_end[i]) < 0))
			return 1;
		printf("bench: boot-run: %d floor-first %.1f floor-exit %.1f "
		       "modref-first %.1f modref-prompt %.1f ms",
		       i + 1, floor_first[i], floor_end[i], kern_first[i],
		       kern_end[i]);
		if (other != NULL)
			printf(" other-first %.1f other-prompt %.1f ms",
			       other_first[i], other_end[i]);
		printf("\n");
		fflush(stdout);
	}
	printf("bench: boot: %d runs alternating, -smp %s, medians: floor "
	       "first byte %.1f ms, exit %.1f ms; modref first byte %.1f ms, "
	       "prompt %.1f ms (%.2fx the floor's exit)\n",
	       runs, o->smp, quantile(floor_first, runs, 0.5),
	       quantile(floor_end, runs, 0.5), quantile(kern_first, runs, 0.5),
	       quantile(kern_end, runs, 0.5),
	       quantile(kern_end, runs, 0.5) / quantile(floor_end, runs, 0.5));
	if (other != NULL)
		printf("bench: boot-other: %s: first byte %.1f ms, prompt %.1f "
		       "ms (%.2fx the floor's exit)\n",
		       other, quantile(other_first, runs, 0.5),
		       quantile(other_end, runs, 0.5),
		       quantile(other_end, runs, 0.5) /
		           quantile(floor_end, runs, 0.5));
	return 0;
}

static double ins[MAX_RUNS], rm[MAX_RUNS];

static int
bench_typed(const struct qemu_opts *o, const char *kernel, const char *mod,
            int n)
{
	char insmod[96], rmmod[96], loaded[96], unloaded[96];
	struct guest g;
	double t0;

	snprintf(insmod, sizeof(insmod), "insmod %s", mod);
	snprintf(rmmod, sizeof(rmmod), "rmmod %s", mod);
	snprintf(loaded, sizeof(loaded), "insmod: %s: loaded", mod);
	snprintf(unloaded, sizeof(unloaded), "rmmod: %s: unloaded", mod);
	if (guest_start(&g, o, kernel) < 0)
		return 1;
	if (guest_wait(&g, 1) < 0)
		goto fail;
	t0 = now_ms();
	for (int i = 0; i < n; i++) {
		ins[i] = guest_type(&g, insmod);
		if (ins[i] < 0 || strstr(g.text, loaded) == NULL)
			goto fail;
		rm[i] = guest_type(&g, rmmod);
		if (rm[i] < 0 || strstr(g.text, unloaded) == NULL)
			goto fail;
		printf("bench: typed-run: %s %d insmod %.2f rmmod %.2f ms\n",
		       mod, i + 1, ins[i], rm[i]);
	}
	t0 = now_ms() - t0;
	guest_end(&g, 1);
	printf("bench: typed: %s (%s): %d cycles typed in %.3f s, %.1f/s;", mod,
	       o->append, n, t0 / 1e3, n * 1e3 / t0);
	print_dist("insmod", ins, n);
	print_dist("rmmod", rm, n);
	printf("\n");
	return 0;
fail:
	fprintf(stderr, "bench-boot: %s: unexpected answer: %s\n", mod, g.text);
	guest_end(&g, 0);
	return 1;
}

static double rtt[1 << 20];

/* Echo 64-byte datagrams one at a time for secs seconds. */
/* A UDP socket connected to 127.0.0.1:port, or -1. */
static int
udp_client(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bench-boot: udp socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
udp_rounds(int port, double secs, int *lost)
{
	unsigned char out[64];
	int fd = udp_client(port), n = 0;
	double end = 0;
	uint32_t seq = 0;

	if (fd < 0)
		return -1;
	*lost = 0;
	memset(out, 0x5a, sizeof(out));
	while (n < (int)(sizeof(rtt) / sizeof(rtt[0]))) {
		double t = now_ms();

		seq++;
		memcpy(out, &seq, sizeof(seq));
		if (send(fd, out, sizeof(out), 0) != sizeof(out))
			break;
		/* Replies to earlier, "lost" datagrams are skipped. */
		if (!bench_udp_answer(fd, seq, 1000)) {
			if (++*lost > 50)
				break;
			continue;
		}
		if (end == 0) /* the first reply: ARP is resolved, start */
			end = now_ms() + secs * 1e3;
		else
			rtt[n++] = now_ms() - t;
		if (now_ms() >= end)
			break;
	}
	close(fd);
	return n;
}

/* Echo 64-byte datagrams with up to window of them in flight for secs
 * seconds: the rate the path sustains when it is never idle.  A
 * datagram not answered within 200 ms counts as lost and the window is
 * filled again.  Returns the number of echoes. */
static int
udp_window(int port, double secs, int window, int *lost)
{
	unsigned char out[64], in[128];
	int fd = udp_client(port), n = 0, out_now = 0;
	double end = 0, limit = now_ms() + 5000;
	uint32_t seq = 0;

	if (fd < 0)
		return -1;
	*lost = 0;
	memset(out, 0x5a, sizeof(out));
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		while (out_now < window) {
			seq++;
			memcpy(out, &seq, sizeof(seq));
			if (send(fd, out, sizeof(out), 0) != sizeof(out))
				break;
			out_now++;
		}
		if (poll(&p, 1, 200) <= 0) {
			*lost += out_now;
			out_now = 0;
			if (end == 0 ? now_ms() > limit : *lost > 100 * window)
				break;
		} else if (recv(fd, in, sizeof(in), 0) == sizeof(out)) {
			out_now -= out_now > 0;
			if (end == 0) /* the first echo: start counting */
				end = now_ms() + secs * 1e3;
			else
				n++;
		}
		if (end != 0 && now_ms() >= end)
			break;
	}
	close(fd);
	return n;
}

#define UDP_WINDOW 16

/* Interrupts, context switches and IPIs so far, summed over the CPUs
 * (the guest's cpus command); 0, or -1. */
static int
guest_counts(struct guest *g, double c[3])
{
	const char *p;

	if (guest_type(g, "cpus") < 0)
		return -1;
	c[0] = c[1] = c[2] = 0;
	for (p = strchr(g->text, '\n'); p != NULL; p = strchr(p + 1, '\n')) {
		int cpu, apic;
		char state[32], cur[64];
		double irqs, sw, ipis;

		if (sscanf(p + 1, "%d %d %31s %63s %lf %lf %lf", &cpu, &apic,
		           state, cur, &irqs, &sw, &ipis) == 7) {
			c[0] += irqs;
			c[1] += sw;
			c[2] += ipis;
		}
	}
	return 0;
}

static double last_rtt; /* the median rtt of the last one-at-a-time phase */

/* One phase of the UDP figure through the guest as it is now: one at a
 * time (round trips/s) or windowed (frames/s); the rate, or -1. */
static double
udp_phase(struct guest *g, const char *driver, const char *append,
          const char *what, int port, double secs, int windowed)
{
	double c0[3], c1[3], rate;
	int n, lost;

	if (guest_counts(g, c0) < 0)
		return -1;
	if (!windowed) {
		n = udp_rounds(port, secs, &lost);
		if (n <= 0)
			return -1;
		printf("bench: %s: %s (%s): %d round trips in %.1f s, %.0f/s, "
		       "lost %d;",
		       what, driver, append, n, secs, n / secs, lost);
		print_dist("rtt", rtt, n);
		printf("\n");
		rate = n / secs;
		last_rtt = quantile(rtt, n, 0.5); /* rtt is sorted */
	} else {
		n = udp_window(port, secs, UDP_WINDOW, &lost);
		if (n <= 0)
			return -1;
		/* Each echo is one frame in through the driver and one out. */
		printf("bench: udp-frames: %s (%s): %s window %d: %d echoes in "
		       "%.1f s, %.0f echoes/s, %.0f frames/s, lost %d\n",
		       driver, append, what, UDP_WINDOW, n, secs, n / secs,
		       2 * n / secs, lost);
		rate = 2 * n / secs;
	}
	if (guest_counts(g, c1) < 0)
		return -1;
	/* The counts include the phase's timer ticks (about 100/s per
	 * CPU) and the two cpus commands. */
	printf("bench: udp-cost: %s (%s): %s%s: per echo %.2f interrupts, "
	       "%.2f context switches, %.2f IPIs\n",
	       driver, append, what, windowed ? " window" : "",
	       (c1[0] - c0[0]) / n, (c1[1] - c0[1]) / n, (c1[2] - c0[2]) / n);
	fflush(stdout);
	return rate;
}

static double udp_rt[2][MAX_RUNS], udp_fr[2][MAX_RUNS], udp_med[2][MAX_RUNS];

static int bouncing; /* as last set by bounce() in this boot */

static int
bounce(struct guest *g, int on)
{
	const char *cmd = on ? "bench bounce eth0 on" : "bench bounce eth0 off";
	const char *ok =
	    on ? "bench: bounce: eth0 on" : "bench: bounce: eth0 off";

	return guest_type(g, cmd) < 0 || strstr(g->text, ok) == NULL ? -1 : 0;
}

/* One of a round's four phases: 0 the stack one at a time, 1 the bounce
 * loop one at a time, 2 the bounce loop windowed, 3 the stack windowed;
 * the bounce loop on for 1 and 2 only.  0 or -1. */
static int
udp_step(struct guest *g, const char *driver, const char *a, int port,
         double secs, int i, int ph)
{
	const char *p;
	int on = ph == 1 || ph == 2;

	if (on != bouncing) {
		if (bounce(g, on) < 0)
			return -1;
		bouncing = on;
		if (!on) {
			p = strstr(g->text, "bench: bounce:");
			printf("bench: udp-bounced: %s (%s): %.*s\n", driver, a,
			       (int)strcspn(p, "\r\n"), p);
		}
	}
	switch (ph) {
	case 0:
	case 1:
		if ((udp_rt[ph][i] =
		         udp_phase(g, driver, a, ph ? "udp-bounce" : "udp",
		                   port, secs, 0)) < 0)
			return -1;
		udp_med[ph][i] = last_rtt;
		return 0;
	default: /* 2 bounce, 3 stack: udp_fr[1], udp_fr[0] */
		udp_fr[3 - ph][i] = udp_phase(
		    g, driver, a, ph == 2 ? "bounce" : "stack", port, secs, 1);
		return udp_fr[3 - ph][i] < 0 ? -1 : 0;
	}
}

/* The packet path through the stack (udpecho) and through the raw
 * bounce loop (bench bounce), in one boot, with the same host client,
 * ROUNDS rounds of four phases: stack and bounce one at a time, then
 * bounce and stack windowed (ABBA within a round), the odd rounds in
 * the reverse order (so neither comes first more often, and a drifting
 * load hits both alike); the rates' medians, and each ratio the median
 * of the rounds' ratios. */
static int
bench_udp(struct qemu_opts *o, const char *kernel, const char *driver,
          double secs, int rounds)
{
	char nic[128], cmd[64], ok[64];
	int port = bench_free_port(SOCK_DGRAM);
	struct guest g;
	const char *a;

	if (port < 0 || o->nextra > 6)
		return 1;
	a = o->append;
	snprintf(nic, sizeof(nic), "user,model=%s,hostfwd=udp:127.0.0.1:%d-:7",
	         strcmp(driver, "e1000") == 0 ? "e1000" : "virtio-net-pci",
	         port);
	o->extra[o->nextra++] = "-nic";
	o->extra[o->nextra++] = nic;
	snprintf(cmd, sizeof(cmd), "insmod %s", driver);
	snprintf(ok, sizeof(ok), "insmod: %s: loaded", driver);
	if (guest_start(&g, o, kernel) < 0)
		return 1;
	if (guest_wait(&g, 1) < 0 || guest_type(&g, cmd) < 0 ||
	    strstr(g.text, ok) == NULL || guest_type(&g, "dhcp eth0") < 0 ||
	    strstr(g.text, "bound") == NULL || guest_type(&g, "udpecho") < 0 ||
	    strstr(g.text, "listening") == NULL)
		goto fail;
	bouncing = 0;
	for (int i = 0; i < rounds; i++) {
		/* Odd rounds run the even ones' phases backwards: each of
		 * the four comes first as often as last. */
		for (int k = 0; k < 4; k++) {
			int ph = i % 2 == 0 ? k : 3 - k;

			if (udp_step(&g, driver, a, port, secs, i, ph) < 0)
				goto fail;
		}
		printf("bench: udp-round: %s (%s): round %d: frames/s stack "
		       "%.0f bounce %.0f (%.2fx)\n",
		       driver, a, i + 1, udp_fr[0][i], udp_fr[1][i],
		       udp_fr[0][i] / udp_fr[1][i]);
	}
	guest_end(&g, 1);
	{
		/* Each ratio is the median of the rounds' own ratios: a
		 * round's stack and bounce phases run back to back under
		 * the same host load, the medians of the two rates need
		 * not come from the same round (and quantile sorts). */
		double r_rt[MAX_RUNS], r_fr[MAX_RUNS], r_med[MAX_RUNS];

		for (int i = 0; i < rounds; i++) {
			r_rt[i] = udp_rt[0][i] / udp_rt[1][i];
			r_fr[i] = udp_fr[0][i] / udp_fr[1][i];
			r_med[i] = udp_med[1][i] / udp_med[0][i];
		}
		double rs = quantile(udp_rt[0], rounds, 0.5),
		       rb = quantile(udp_rt[1], rounds, 0.5),
		       fs = quantile(udp_fr[0], rounds, 0.5),
		       fb = quantile(udp_fr[1], rounds, 0.5),
		       ms = quantile(udp_med[0], rounds, 0.5),
		       mb = quantile(udp_med[1], rounds, 0.5);

		/* The median rtt is the steadier figure on a loaded host
		 * (preemptions land in the tail); its ratio is bounce over
		 * stack, so that like the rates 1.0 means "as fast". */
		printf("bench: udp-path: %s (%s): %d rounds, medians: round "
		       "trips/s stack %.0f bounce %.0f (%.2fx); frames/s "
		       "stack %.0f bounce %.0f (%.2fx); median rtt ms stack "
		       "%.3f bounce %.3f (%.2fx)\n",
		       driver, a, rounds, rs, rb, quantile(r_rt, rounds, 0.5),
		       fs, fb, quantile(r_fr, rounds, 0.5), ms, mb,
		       quantile(r_med, rounds, 0.5));
	}
	fflush(stdout);
	return 0;
fail:
	fprintf(stderr, "bench-boot: udp %s: unexpected answer: %s\n", driver,
	        g.text);
	guest_end(&g, 0);
	return 1;
}

/* A TCP socket listening on 127.0.0.1 (port 0: any), its port in *port. */
static int
tcp_listener(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("bench-boot: tcp listener");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* In a child: accept one connection on lfd, read to the end checking the
 * pattern, and write "SECONDS BYTES BAD" to fd out (time from the
 * accept to the end of the stream). */
static void
tcp_sink(int lfd, int out)
{
	static uint8_t buf[65536];
	uint64_t got = 0, bad = 0;
	double t0;
	char line[96];
	int fd = accept(lfd, NULL, NULL);

	t0 = now_ms();
	if (fd >= 0)
		bad = bench_read_pattern(fd, buf, sizeof(buf), &got);
	snprintf(line, sizeof(line), "%.6f %llu %llu\n", (now_ms() - t0) / 1e3,
	         (unsigned long long)got, (unsigned long long)bad);
	if (write(out, line, strlen(line)) < 0)
		_exit(1);
	_exit(0);
}

/* Connect to 127.0.0.1:port, send bytes of the pattern, half close, wait
 * for the peer's close: the seconds it took, or -1. */
static double
tcp_source(int port, uint64_t bytes)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	static uint8_t buf[65536];
	struct tcp_pattern pat;
	uint64_t sent = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	double t0;

	tcp_pattern_init(&pat);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bench-boot: tcp connect");
		return -1;
	}
	t0 = now_ms();
	while (sent < bytes) {
		size_t n =
		    bytes - sent < sizeof(buf) ? bytes - sent : sizeof(buf);
		ssize_t w;

		tcp_pattern_fill(&pat, buf, sent, n);
		w = write(fd, buf, n);
		if (w <= 0) {
			perror("bench-boot: tcp write");
			close(fd);
			return -1;
		}
		sent += (uint64_t)w;
	}
	shutdown(fd, SHUT_WR);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return (now_ms() - t0) / 1e3;
}

static double tx_mbit[MAX_RUNS], rx_mbit[MAX_RUNS];

/* TCP bulk both ways through one NIC, rounds alternating direction:
 * tcp.ko's tcpbulk to a host sink (guest->host) and a host source to
 * tcplisten through a hostfwd (host->guest); host clock, pattern checked
 * at both ends. */
static int
bench_tcp(struct qemu_opts *o, const char *kernel, const char *driver,
          uint64_t bytes, int rounds)
{
	char nic[128], cmd[96], ok[64], res[96] = "";
	int hport = bench_free_port(SOCK_STREAM), lport,
	    lfd = tcp_listener(&lport);
	const char *p;
	struct guest g;

	if (hport < 0 || lfd < 0 || o->nextra > 6)
		return 1;
	snprintf(
	    nic, sizeof(nic), "user,model=%s,hostfwd=tcp:127.0.0.1:%d-:5001",
	    strcmp(driver, "e1000") == 0 ? "e1000" : "virtio-net-pci", hport);
	o->extra[o->nextra++] = "-nic";
	o->extra[o->nextra++] = nic;
	snprintf(cmd, sizeof(cmd), "insmod %s", driver);
	snprintf(ok, sizeof(ok), "insmod: %s: loaded", driver);
	if (guest_start(&g, o, kernel) < 0)
		return 1;
	if (guest_wait(&g, 1) < 0 || guest_type(&g, cmd) < 0 ||
	    strstr(g.text, ok) == NULL || guest_type(&g, "dhcp eth0") < 0 ||
	    strstr(g.text, "bound") == NULL ||
	    guest_type(&g, "insmod tcp") < 0 ||
	    strstr(g.text, "insmod: tcp: loaded") == NULL)
		goto fail;
	for (int i = 0; i < rounds; i++) {
		int pfd[2], status;
		double secs;
		unsigned long long got, bad;
		pid_t pid;
		ssize_t r;

		/* guest -> host */
		if (pipe(pfd) < 0)
			goto fail;
		pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			tcp_sink(lfd, pfd[1]);
		}
		close(pfd[1]);
		snprintf(cmd, sizeof(cmd), "tcpbulk 10.0.2.2 %d %llu", lport,
		         (unsigned long long)bytes);
		if (pid < 0 || guest_type(&g, cmd) < 0 ||
		    (p = strstr(g.text, "tcpbulk: sent ")) == NULL) {
			if (pid > 0)
				kill(pid, SIGKILL);
			goto fail;
		}
		r = read(pfd[0], res, sizeof(res) - 1);
		close(pfd[0]);
		waitpid(pid, &status, 0);
		res[r > 0 ? r : 0] = '\0';
		if (sscanf(res, "%lf %llu %llu", &secs, &got, &bad) != 3 ||
		    got != bytes || bad != 0 || secs <= 0) {
			fprintf(stderr, "bench-boot: tcp: the host got '%s'\n",
			        res);
			goto fail;
		}
		tx_mbit[i] = bytes * 8 / secs / 1e6;
		printf("bench: tcp-run: %s (%s): guest->host %llu bytes in "
		       "%.3f s, %.1f Mbit/s (host); guest says %.*s\n",
		       driver, o->append, (unsigned long long)bytes, secs,
		       tx_mbit[i], (int)strcspn(p, "\r\n"), p);
		/* host -> guest */
		if (guest_send(&g, "tcplisten 5001") < 0 ||
		    guest_read(&g, 0, "listening on port") < 0)
			goto fail;
		secs = tcp_source(hport, bytes);
		if (secs <= 0 || guest_wait(&g, 1) < 0 ||
		    (p = strstr(g.text, "tcplisten: received ")) == NULL ||
		    strstr(p, "pattern ok") == NULL)
			goto fail;
		rx_mbit[i] = bytes * 8 / secs / 1e6;
		printf("bench: tcp-run: %s (%s): host->guest %llu bytes in "
		       "%.3f s, %.1f Mbit/s (host); guest says %.*s\n",
		       driver, o->append, (unsigned long long)bytes, secs,
		       rx_mbit[i], (int)strcspn(p, "\r\n"), p);
		fflush(stdout);
	}
	close(lfd);
	guest_end(&g, 1);
	printf("bench: tcp: %s (%s): %d rounds of %llu bytes, medians: "
	       "guest->host %.1f Mbit/s, host->guest %.1f Mbit/s\n",
	       driver, o->append, rounds, (unsigned long long)bytes,
	       quantile(tx_mbit, rounds, 0.5), quantile(rx_mbit, rounds, 0.5));
	return 0;
fail:
	fprintf(stderr, "bench-boot: tcp %s: unexpected answer: %s\n", driver,
	        g.text);
	close(lfd);
	guest_end(&g, 0);
	return 1;
}

/* In a child: accept n connections on lfd one after the other; echo what
 * comes until the peer closes, then close (the guest closed first, so
 * TIME_WAIT is on its side). */
static void
tcp_echo_n(int lfd, int n)
{
	char buf[4096];

	for (int i = 0; i < n; i++) {
		int fd = accept(lfd, NULL, NULL);
		ssize_t r;

		if (fd < 0)
			_exit(1);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			if (write(fd, buf, (size_t)r) != r)
				break;
		close(fd);
	}
	_exit(0);
}

/* The guest's "unloaded after X ms" as text, or "?" */
static const char *
guest_says(struct guest *g, const char *mod, char *buf, size_t size)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "rmmod: %s: unloaded after ", mod);
	p = strstr(g->text, key);
	if (p == NULL)
		return NULL;
	p += strlen(key);
	snprintf(buf, size, "%.*s", (int)strcspn(p, "\r\n"), p);
	return buf;
}

static int
bench_rmmod_load(struct qemu_opts *o, const char *kernel, int hold_ms, int k,
                 int n, int m)
{
	char cmd[96], says[64], says_tcp[64];
	double t, t_tcp;
	struct guest g;
	int lport = 0, lfd = -1;
	pid_t echo = -1;

	if (o->nextra > 6)
		return 1;
	o->extra[o->nextra++] = "-nic";
	o->extra[o->nextra++] = "user,model=e1000";
	if (guest_start(&g, o, kernel) < 0)
		return 1;
	if (guest_wait(&g, 1) < 0 || guest_type(&g, "insmod e1000") < 0 ||
	    strstr(g.text, "insmod: e1000: loaded") == NULL ||
	    guest_type(&g, "dhcp eth0") < 0 || strstr(g.text, "bound") == NULL)
		goto fail;
	for (int i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "udpecho -b eth0 %d", 7000 + i);
		if (guest_type(&g, cmd) < 0 ||
		    strstr(g.text, "listening") == NULL)
			goto fail;
	}
	if (m > 0) {
		/* M connections that the guest closes first: M TIME_WAIT. */
		if ((lfd = tcp_listener(&lport)) < 0 ||
		    guest_type(&g, "insmod tcp") < 0 ||
		    strstr(g.text, "insmod: tcp: loaded") == NULL)
			goto fail;
		echo = fork();
		if (echo == 0)
			tcp_echo_n(lfd, m);
		if (echo < 0)
			goto fail;
		for (int i = 0; i < m; i++) {
			snprintf(cmd, sizeof(cmd), "tcpconnect 10.0.2.2 %d tw",
			         lport);
			if (guest_type(&g, cmd) < 0 ||
			    strstr(g.text, "tcpconnect: closed") == NULL)
				goto fail;
		}
		/* The last FIN's ACK may still be on its way: ask again
		 * (30 s only bounds a failure, on however busy a host). */
		snprintf(cmd, sizeof(cmd), "(%d TIME_WAIT", m);
		for (double end = now_ms() + 30000; now_ms() < end;) {
			if (guest_type(&g, "ss") < 0)
				goto fail;
			if (strstr(g.text, cmd) != NULL)
				break;
			usleep(20000);
		}
		if (strstr(g.text, cmd) == NULL)
			goto fail;
	}
	snprintf(cmd, sizeof(cmd), "devhold eth0 %d %d", hold_ms, k);
	if (k > 0 && guest_type(&g, cmd) < 0)
		goto fail;
	t = guest_type(&g, "rmmod e1000");
	if (t < 0 || guest_says(&g, "e1000", says, sizeof(says)) == NULL)
		goto fail;
	printf("bench: rmmod-load: e1000 (%s): %d sockets, %d TIME_WAIT, %d "
	       "holders for %d ms: rmmod took %.2f ms (host), guest says "
	       "%s\n",
	       o->append, n, m, k, hold_ms, t, says);
	/* rmmod tcp only without holders: under refmode=legacy rmmod e1000
	 * returned with them still out, and the device's destructor would
	 * run in the unloaded module while rmmod tcp waits (the 2.5.68 bug,
	 * net-refmode-legacy-e1000.scn); power off before they expire. */
	if (m > 0 && k == 0) {
		t_tcp = guest_type(&g, "rmmod tcp");
		if (t_tcp < 0 ||
		    guest_says(&g, "tcp", says_tcp, sizeof(says_tcp)) == NULL)
			goto fail;
		printf("bench: rmmod-tcp: (%s): %d TIME_WAIT: rmmod tcp took "
		       "%.2f ms (host), guest says %s\n",
		       o->append, m, t_tcp, says_tcp);
	}
	fflush(stdout);
	guest_end(&g, 1);
	if (echo > 0) {
		kill(echo, SIGKILL);
		waitpid(echo, NULL, 0);
	}
	if (lfd >= 0)
		close(lfd);
	return 0;
fail:
	fprintf(stderr, "bench-boot: rmmod under load: unexpected answer: %s\n",
	        g.text);
	guest_end(&g, 0);
	if (echo > 0) {
		kill(echo, SIGKILL);
		waitpid(echo, NULL, 0);
	}
	if (lfd >= 0)
		close(lfd);
	return 1;
}

int
main(int argc, char **argv)
{
	struct qemu_opts o = {
	    .qemu = "qemu-system-i386", .smp = "2", .append = ""};
	const char *typed = NULL, *driver = NULL;
	double udp_secs = 0;
	int hold_ms = -1, holders = 0, sockets = 0, time_wait = 0;
	long long tcp_bytes = 0;
	int runs = 5, runs_set = 0, cycles = 0, c;

	while ((c = getopt(argc, argv, "n:q:s:t:c:a:i:e:u:d:r:k:N:W:T:")) !=
	       -1) {
		switch (c) {
		case 'n':
			runs = atoi(optarg);
			runs_set = 1;
			break;
		case 'q':
			o.qemu = optarg;
			break;
		case 's':
			o.smp = optarg;
			break;
		case 't':
			typed = optarg;
			break;
		case 'c':
			cycles = atoi(optarg);
			break;
		case 'a':
			o.append = optarg;
			break;
		case 'i':
			o.initrd = optarg;
			break;
		case 'u':
			udp_secs = atof(optarg);
			break;
		case 'd':
			driver = optarg;
			break;
		case 'r':
			hold_ms = atoi(optarg);
			break;
		case 'k':
			holders = atoi(optarg);
			break;
		case 'N':
			sockets = atoi(optarg);
			break;
		case 'W':
			time_wait = atoi(optarg);
			break;
		case 'T':
			tcp_bytes = atoll(optarg);
			break;
		case 'e':
			if (o.nextra == 8)
				goto usage;
			o.extra[o.nextra++] = optarg;
			break;
		default:
			goto usage;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (hold_ms >= 0 && argc - optind == 1 && holders >= 0 &&
	    holders <= 1000 && sockets >= 0 && sockets <= 100 &&
	    time_wait >= 0 && time_wait <= 1000)
		return bench_rmmod_load(&o, argv[optind], hold_ms, holders,
		                        sockets, time_wait);
	if (driver != NULL && argc - optind == 1 && tcp_bytes > 0 &&
	    tcp_bytes <= (1ll << 32) && runs >= 1 && runs <= MAX_RUNS)
		return bench_tcp(&o, argv[optind], driver, (uint64_t)tcp_bytes,
		                 runs);
	if (driver != NULL && argc - optind == 1 && udp_secs > 0 &&
	    udp_secs <= 600 && runs >= 1 && runs <= MAX_RUNS)
		return bench_udp(&o, argv[optind], driver, udp_secs,
		                 runs_set ? runs : 3);
	if (typed != NULL && argc - optind == 1 && cycles >= 1 &&
	    cycles <= MAX_RUNS)
		return bench_typed(&o, argv[optind], typed, cycles);
	if (typed == NULL && (argc - optind == 2 || argc - optind == 3) &&
	    runs >= 1 && runs <= MAX_RUNS)
		return bench_boot(&o, argv[optind], argv[optind + 1],
		                  argc - optind == 3 ? argv[optind + 2] : NULL,
		                  runs);
usage:
	fprintf(stderr,
	        "usage: bench-boot [-n RUNS] [-q QEMU] [-s SMP] [-e ARG].. "
	        "KERNEL FLOOR\n"
	        "       bench-boot -t MODULE -c N [-a CMDLINE] [-i FILES] "
	        "[-q QEMU] [-s SMP] [-e ARG].. KERNEL\n"
	        "       bench-boot -u SECS -d e1000|virtio_net [-a CMDLINE] "
	        "[-i FILES] [-s SMP] KERNEL\n"
	        "       bench-boot -r HOLD_MS -k K -N N [-W M] [-a CMDLINE] "
	        "[-i FILES] KERNEL\n"
	        "       bench-boot -T BYTES -d e1000|virtio_net [-n ROUNDS] "
	        "[-a CMDLINE] [-i FILES] KERNEL\n");
	return 2;
}
