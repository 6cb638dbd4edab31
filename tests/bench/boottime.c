/*
 * bench-boot: how long QEMU takes from its start to modref's first serial
 * byte and to the shell prompt, against the floor QEMU itself sets: an
 * empty multiboot kernel (tests/bench/floor.S) that prints one byte and
 * powers off.  Runs alternate between the two, so that a drifting load
 * on the machine hits both alike; every run is printed, then the
 * medians.  Host CLOCK_MONOTONIC, taken as the bytes arrive on QEMU's
 * stdout pipe.
 *
 *   bench-boot [-n RUNS] [-q QEMU] [-s SMP] KERNEL FLOOR
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 100
#define PROMPT   "modref> "
#define LIMIT_MS 120000.0

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct boot {
	double first; /* ms from the start to the first byte */
	double end;   /* to the prompt (modref) or QEMU's exit (floor) */
};

/* Start QEMU on kernel; 0 and the times, or -1 with a reason printed. */
static int
boot_once(const char *qemu, const char *smp, const char *kernel,
          int want_prompt, struct boot *b)
{
	int in[2], out[2], status;
	char buf[4096], tail[sizeof(PROMPT)] = "";
	double t0;
	pid_t pid;

	if (pipe(in) < 0 || pipe(out) < 0) {
		perror("bench-boot: pipe");
		return -1;
	}
	t0 = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("bench-boot: fork");
		return -1;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execlp(qemu, qemu, "-machine", "pc", "-accel", "tcg",
		       "-nodefaults", "-display", "none", "-no-reboot",
		       "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
		       "-smp", smp, "-m", "128M", "-kernel", kernel, "-append",
		       "", "-serial", "stdio", "-monitor", "none",
		       (char *)NULL);
		perror("bench-boot: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	b->first = b->end = -1;
	for (;;) {
		struct pollfd p = {.fd = out[0], .events = POLLIN};
		int left = (int)(LIMIT_MS - (now_ms() - t0));
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			fprintf(stderr, "bench-boot: %s: no %s after %.0f s\n",
			        kernel, b->first < 0 ? "output" : "prompt",
			        LIMIT_MS / 1e3);
			kill(pid, SIGKILL);
			break;
		}
		n = read(out[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		if (b->first < 0)
			b->first = now_ms() - t0;
		if (!want_prompt || b->end >= 0)
			continue;
		/* The prompt may arrive split across reads: search the
		 * last few bytes of the previous read plus this one. */
		for (ssize_t i = 0; i < n; i++) {
			size_t l = strlen(tail);

			if (l == sizeof(PROMPT) - 1)
				memmove(tail, tail + 1, l--);
			tail[l] = buf[i];
			tail[l + 1] = '\0';
			if (strcmp(tail, PROMPT) == 0) {
				b->end = now_ms() - t0;
				if (write(in[1], "poweroff\n", 9) != 9)
					kill(pid, SIGKILL);
				break;
			}
		}
	}
	if (!want_prompt && b->first >= 0)
		b->end = now_ms() - t0;
	close(in[1]);
	close(out[0]);
	waitpid(pid, &status, 0);
	return b->first >= 0 && b->end >= 0 ? 0 : -1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(const struct boot *v, int n, int end)
{
	double x[MAX_RUNS];

	for (int i = 0; i < n; i++)
		x[i] = end ? v[i].end : v[i].first;
	qsort(x, n, sizeof(x[0]), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	const char *qemu = "qemu-system-i386", *smp = "2";
	struct boot floor[MAX_RUNS], kern[MAX_RUNS];
	int runs = 5, c;

	while ((c = getopt(argc, argv, "n:q:s:")) != -1) {
		switch (c) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 'q':
			qemu = optarg;
			break;
		case 's':
			smp = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2 || runs < 1 || runs > MAX_RUNS)
		goto usage;
	for (int i = 0; i < runs; i++) {
		if (boot_once(qemu, smp, argv[optind + 1], 0, &floor[i]) < 0 ||
		    boot_once(qemu, smp, argv[optind], 1, &kern[i]) < 0)
			return 1;
		printf("bench: boot-run: %d floor-first %.1f floor-exit %.1f "
		       "modref-first %.1f modref-prompt %.1f ms\n",
		       i + 1, floor[i].first, floor[i].end, kern[i].first,
		       kern[i].end);
		fflush(stdout);
	}
	printf("bench: boot: %d runs alternating, -smp %s, medians: floor "
	       "first byte %.1f ms, exit %.1f ms; modref first byte %.1f ms, "
	       "prompt %.1f ms (%.2fx the floor's exit)\n",
	       runs, smp, median(floor, runs, 0), median(floor, runs, 1),
	       median(kern, runs, 0), median(kern, runs, 1),
	       median(kern, runs, 1) / median(floor, runs, 1));
	return 0;
usage:
	fprintf(stderr, "usage: bench-boot [-n RUNS] [-q QEMU] [-s SMP] "
	                "KERNEL FLOOR\n");
	return 2;
}
