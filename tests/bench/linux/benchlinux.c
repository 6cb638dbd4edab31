/*
 * benchlinux: modref and a Debian Linux guest on the same QEMU, the same
 * workloads, alternating run by run (`make bench-linux`, docs/bench.md).
 *
 *   benchlinux initramfs -o OUT LBGUEST BUSYBOX MODULE.ko...
 *     The Linux guest's initramfs (cpio newc, scripts/newc_write.h):
 *     LBGUEST as /init and /bin/lbguest, BUSYBOX as /bin/busybox, the
 *     modules in /lib/modules/.
 *
 *   benchlinux run [-n RUNS] [-u SECS] [-B BYTES] [-c CYCLES] [-q QEMU]
 *                  [-o REPORT.md] VMLINUZ INITRAMFS MODREF.ELF MODREF.CPIO
 *     RUNS rounds; each round boots, for each NIC (e1000, virtio-net),
 *     both guests, the order swapped every round.  One boot measures:
 *     QEMU start to the shell prompt; on e1000, CYCLES module load/unload
 *     cycles of e1000 in the guest (timed on the host, from the newline
 *     to the next prompt); UDP echo round trips per second (64-byte
 *     datagrams one at a time for SECS seconds, after the first answer);
 *     TCP host -> guest and guest -> host, BYTES each, timed on the host
 *     from connect/accept to the peer's close.  Every measurement is a
 *     `benchlinux:` line; the medians, ratios and the load average go to
 *     REPORT.md.
 *
 * Both guests run on one QEMU binary (qemu-system-x86_64: Debian's
 * amd64 kernel needs it and modref's multiboot ELF boots on it too),
 * TCG, -smp 2 -m 256, one NIC on user networking with a UDP and a TCP
 * hostfwd.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/tcp/ko/pattern.h"
#include "tests/bench/hostnet.h"
#include "scripts/newc_write.h"

#define MAX_RUNS   50
#define LIMIT_MS   180000.0
#define OUTPUT_MAX 65536
#define GUEST_TCP  5001
#define GUEST_UDP  7

enum { G_LINUX, G_MODREF, NGUESTS };
enum { N_E1000, N_VIRTIO, NNICS };
enum { F_BOOT, F_CYCLES, F_UDP, F_H2G, F_G2H, NFIGS };

static const char *const guest_names[NGUESTS] = {"linux", "modref"};
static const char *const nic_names[NNICS] = {"e1000", "virtio-net"};
static const char *const nic_models[NNICS] = {"e1000", "virtio-net-pci"};
static const char *const fig_names[NFIGS] = {
    "QEMU start -> prompt (ms)", "insmod+rmmod e1000 in the guest (/s)",
    "UDP echo, 64 B (round trips/s)", "TCP host -> guest (Mbit/s)",
    "TCP guest -> host (Mbit/s)"};
/* Which way is better: boot time is lower, the rest higher. */
static const int fig_lower_better[NFIGS] = {1, 0, 0, 0, 0};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct tcp_pattern pattern; /* the guests' test pattern */

/* ---- initramfs ---------------------------------------------------------- */
static const char *
base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL ? s + 1 : p;
}

static int
make_initramfs(int argc, char **argv)
{
	struct newc_tree_entry e[64];
	char names[32][128], err[512];
	int n = 0, fd, rc;

	if (argc < 5 || strcmp(argv[1], "-o") != 0 || argc - 4 > 32) {
		fprintf(stderr, "usage: benchlinux initramfs -o OUT LBGUEST "
		                "BUSYBOX MODULE.ko...\n");
		return 2;
	}
	e[n++] = (struct newc_tree_entry){"bin", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"dev", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"proc", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"sys", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"tmp", 041777, NULL};
	e[n++] = (struct newc_tree_entry){"lib", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"lib/modules", 040755, NULL};
	e[n++] = (struct newc_tree_entry){"init", 0100755, argv[3]};
	e[n++] = (struct newc_tree_entry){"bin/lbguest", 0100755, argv[3]};
	e[n++] = (struct newc_tree_entry){"bin/busybox", 0100755, argv[4]};
	for (int i = 5; i < argc; i++) {
		snprintf(names[i - 5], sizeof(names[0]), "lib/modules/%s",
		         base_of(argv[i]));
		e[n++] =
		    (struct newc_tree_entry){names[i - 5], 0100644, argv[i]};
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "benchlinux: %s: %s\n", argv[2],
		        strerror(errno));
		return 1;
	}
	rc = newc_write_tree(fd, e, n, err, sizeof(err));
	close(fd);
	if (rc < 0) {
		fprintf(stderr, "benchlinux: %s\n", err);
		unlink(argv[2]);
		return 1;
	}
	return 0;
}

/* ---- one guest in QEMU -------------------------------------------------- */
struct guest {
	pid_t pid;
	int in, out;
	double t0;
	const char *prompt;
	char text[OUTPUT_MAX]; /* output since the last command */
	size_t len;
	FILE *log;
};

struct opts {
	const char *qemu, *vmlinuz, *initramfs, *elf, *cpio, *report;
	const char *pcapdir;      /* -p: a capture of the NIC per boot */
	int only_guest, only_nic; /* -g, -N: -1 for both */
	int runs, udp_secs, cycles;
	uint64_t bytes;
};

static int
guest_start(struct guest *g, const struct opts *o, int which, int nic,
            int udp_port, int tcp_port, FILE *log)
{
	int in[2], out[2];
	char netdev[256];

	memset(g, 0, sizeof(*g));
	g->log = log;
	g->prompt = which == G_LINUX ? "lbench# " : "modref> ";
	snprintf(netdev, sizeof(netdev),
	         "user,id=n0,hostfwd=udp:127.0.0.1:%d-:%d,"
	         "hostfwd=tcp:127.0.0.1:%d-:%d",
	         udp_port, GUEST_UDP, tcp_port, GUEST_TCP);
	if (pipe(in) < 0 || pipe(out) < 0)
		return -1;
	g->t0 = now_ms();
	g->pid = fork();
	if (g->pid < 0)
		return -1;
	if (g->pid == 0) {
		char dev[64], dump[600];

		snprintf(dev, sizeof(dev), "%s,netdev=n0", nic_models[nic]);
		snprintf(dump, sizeof(dump),
		         "filter-dump,id=d0,netdev=n0,file=%s/%s-%s.pcap",
		         o->pcapdir != NULL ? o->pcapdir : ".",
		         guest_names[which], nic_names[nic]);
		dup2(in[0], 0);
		dup2(out[1], 1);
		/* QEMU's own messages ("terminating on signal") go to the
		 * serial log, not between the result lines. */
		if (log != NULL)
			dup2(fileno(log), 2);
		close(in[1]);
		close(out[0]);
		execlp(o->qemu, o->qemu, "-machine", "pc", "-accel", "tcg",
		       "-smp", "2", "-m", "256", "-nodefaults", "-display",
		       "none", "-no-reboot", "-kernel",
		       which == G_LINUX ? o->vmlinuz : o->elf, "-initrd",
		       which == G_LINUX ? o->initramfs : o->cpio, "-append",
		       which == G_LINUX ? "console=ttyS0 quiet panic=-1"
		                        : "netautoload=0",
		       "-netdev", netdev, "-device", dev, "-serial", "stdio",
		       "-monitor", "none",
		       o->pcapdir != NULL ? "-object" : (char *)NULL, dump,
		       (char *)NULL);
		perror("benchlinux: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	g->in = in[1];
	g->out = out[0];
	return 0;
}

static void
guest_stop(struct guest *g)
{
	kill(g->pid, SIGTERM);
	waitpid(g->pid, NULL, 0);
	close(g->in);
	close(g->out);
}

/* Reads until `want` appears in the output since the last command (the
 * prompt when want is NULL); the time it came, or -1. */
static double
guest_wait(struct guest *g, const char *want)
{
	char buf[4096];
	double limit = now_ms() + LIMIT_MS;

	if (want == NULL)
		want = g->prompt;
	while (strstr(g->text, want) == NULL) {
		struct pollfd p = {.fd = g->out, .events = POLLIN};
		int left = (int)(limit - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			fprintf(stderr, "benchlinux: no '%s' after %.0f s\n",
			        want, LIMIT_MS / 1e3);
			return -1;
		}
		n = read(g->out, buf, sizeof(buf));
		if (n <= 0)
			return -1;
		if (g->log != NULL)
			fwrite(buf, 1, (size_t)n, g->log);
		for (ssize_t i = 0; i < n; i++) {
			if (g->len == sizeof(g->text) - 1) {
				/* Keep the newest half. */
				memmove(g->text, g->text + g->len / 2,
				        g->len - g->len / 2);
				g->len -= g->len / 2;
			}
			g->text[g->len++] = buf[i];
		}
		g->text[g->len] = '\0';
	}
	return now_ms();
}

/* Types a command; with wait, returns when the next prompt came (the
 * time the command took in ms), else at once (0).  -1 on failure. */
static double
guest_type(struct guest *g, const char *cmd, int wait)
{
	size_t n = strlen(cmd);
	double t;

	g->len = 0;
	g->text[0] = '\0';
	t = now_ms();
	if (write(g->in, cmd, n) != (ssize_t)n || write(g->in, "\n", 1) != 1)
		return -1;
	if (!wait)
		return 0;
	return guest_wait(g, NULL) < 0 ? -1 : now_ms() - t;
}

/* ---- host side of the workloads ------------------------------------------ */
/*
 * One datagram at a time, each carrying its number: an answer counts
 * only if it is to the datagram just sent (bench_udp_answer).  Without
 * the numbers, the warm-up's unanswered datagrams (the e1000 ignores
 * received frames for a second after it is set up, and the warm-up
 * sends every 200 ms) were answered late, and each later send then
 * collected one of those: five or so in flight instead of one, which
 * gave a Linux guest on e1000 18,000-21,000 "round trips" a second
 * against 3,000 counted one at a time.
 */
static double
udp_echo(int port, int secs, double *lost)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	int s = socket(AF_INET, SOCK_DGRAM, 0), n = 0, miss = 0;
	char buf[64];
	uint32_t seq = 0;
	double t0, end;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(buf, 'x', sizeof(buf));
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	/* The first answer (ARP, the e1000's slow first receive) is not
	 * timed. */
	for (t0 = now_ms();;) {
		if (now_ms() - t0 > 20000) {
			close(s);
			return -1;
		}
		seq++;
		memcpy(buf, &seq, sizeof(seq));
		send(s, buf, sizeof(buf), 0);
		if (bench_udp_answer(s, seq, 200))
			break;
	}
	t0 = now_ms();
	end = t0 + secs * 1e3;
	while (now_ms() < end) {
		seq++;
		memcpy(buf, &seq, sizeof(seq));
		send(s, buf, sizeof(buf), 0);
		if (bench_udp_answer(s, seq, 500))
			n++;
		else
			miss++;
	}
	close(s);
	*lost = miss;
	return n * 1e3 / (now_ms() - t0);
}

static int
write_pattern(int s, uint64_t bytes)
{
	static uint8_t buf[65536];
	uint64_t sent = 0;

	while (sent < bytes) {
		size_t n = bytes - sent < sizeof(buf) ? (size_t)(bytes - sent)
		                                      : sizeof(buf);
		ssize_t w;

		tcp_pattern_fill(&pattern, buf, sent, n);
		w = write(s, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		sent += (uint64_t)w;
	}
	return 0;
}

/* Host -> guest: connect through the hostfwd, send, half close, wait for
 * the guest's close.  Mbit/s, or -1. */
static double
tcp_h2g(int port, uint64_t bytes)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	int s = socket(AF_INET, SOCK_STREAM, 0);
	char b[256];
	double t0 = now_ms();

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write_pattern(s, bytes) < 0) {
		perror("benchlinux: tcp host -> guest");
		if (s >= 0)
			close(s);
		return -1;
	}
	shutdown(s, SHUT_WR);
	while (read(s, b, sizeof(b)) > 0)
		;
	close(s);
	return bytes * 8.0 / ((now_ms() - t0) * 1e3);
}

/* Guest -> host: the guest connects to 10.0.2.2:port (our loopback),
 * sends, half closes; we read to EOF and check the pattern. */
static double
tcp_g2h(int l, uint64_t bytes)
{
	static uint8_t buf[65536];
	struct pollfd p = {.fd = l, .events = POLLIN};
	uint64_t got = 0, bad = 0;
	double t0;
	int c;

	if (poll(&p, 1, 30000) != 1 || (c = accept(l, NULL, NULL)) < 0)
		return -1;
	t0 = now_ms();
	bad = bench_read_pattern(c, buf, sizeof(buf), &got);
	t0 = now_ms() - t0;
	close(c);
	if (got != bytes || bad != 0) {
		fprintf(stderr,
		        "benchlinux: guest -> host: %llu of %llu bytes, %llu "
		        "wrong\n",
		        (unsigned long long)got, (unsigned long long)bytes,
		        (unsigned long long)bad);
		return -1;
	}
	return bytes * 8.0 / (t0 * 1e3);
}

/* ---- one boot ------------------------------------------------------------- */
static const char *const linux_nic_up[NNICS] = {
    "insmod /lib/modules/e1000.ko",
    "for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev "
    "virtio_pci failover net_failover virtio_net; do "
    "insmod /lib/modules/$m.ko; done"};

static int
listen_any(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0) {
		if (l >= 0)
			close(l);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return l;
}

/* Runs one boot's workloads; fig[] gets each figure, -1 if it failed. */
static int
one_boot(const struct opts *o, int which, int nic, double fig[NFIGS], FILE *log)
{
	int up = bench_free_port(SOCK_DGRAM), tp = bench_free_port(SOCK_STREAM),
	    l, lp;
	char cmd[512];
	struct guest g;
	double t, lost = 0;
	int lin = which == G_LINUX;

	for (int f = 0; f < NFIGS; f++)
		fig[f] = -1;
	if (up < 0 || tp < 0 || guest_start(&g, o, which, nic, up, tp, log) < 0)
		return -1;
	if ((t = guest_wait(&g, NULL)) < 0)
		goto fail;
	fig[F_BOOT] = t - g.t0;
	if (nic == N_E1000) {
		snprintf(cmd, sizeof(cmd),
		         lin ? "lbguest modcycle e1000 %d"
		             : "modcycle e1000 %d",
		         o->cycles);
		t = guest_type(&g, cmd, 1);
		if (t < 0 || strstr(g.text, "cycles") == NULL)
			goto fail;
		fig[F_CYCLES] = o->cycles * 1e3 / t;
	}
	if (lin) {
		snprintf(cmd, sizeof(cmd),
		         "%s && ip link set eth0 up && "
		         "ip addr add 10.0.2.15/24 dev eth0 && "
		         "ip route add default via 10.0.2.2 && echo net-up-ok",
		         linux_nic_up[nic]);
		if (guest_type(&g, cmd, 1) < 0 ||
		    strstr(g.text, "\nnet-up-ok") == NULL ||
		    guest_type(&g, "lbguest udpecho 7", 1) < 0)
			goto fail;
	} else {
		if (guest_type(&g,
		               nic == N_E1000 ? "insmod e1000"
		                              : "insmod virtio_net",
		               1) < 0 ||
		    guest_type(&g, "dhcp eth0", 1) < 0 ||
		    strstr(g.text, "bound") == NULL ||
		    guest_type(&g, "udpecho", 1) < 0 ||
		    guest_type(&g, "insmod tcp", 1) < 0)
			goto fail;
	}
	fig[F_UDP] = udp_echo(up, o->udp_secs, &lost);
	/* Host -> guest. */
	guest_type(&g, lin ? "lbguest sink 5001" : "tcplisten 5001", 0);
	if (guest_wait(&g, "listening") < 0)
		goto fail;
	fig[F_H2G] = tcp_h2g(tp, o->bytes);
	if (guest_wait(&g, NULL) < 0 || strstr(g.text, "pattern ok") == NULL)
		fig[F_H2G] = -1;
	/* Guest -> host. */
	l = listen_any(&lp);
	if (l < 0)
		goto fail;
	snprintf(cmd, sizeof(cmd),
	         lin ? "lbguest source 10.0.2.2 %d %llu"
	             : "tcpbulk 10.0.2.2 %d %llu",
	         lp, (unsigned long long)o->bytes);
	guest_type(&g, cmd, 0);
	fig[F_G2H] = tcp_g2h(l, o->bytes);
	close(l);
	guest_wait(&g, NULL);
	guest_stop(&g);
	return 0;
fail:
	fprintf(stderr, "benchlinux: %s on %s failed; last output:\n%s\n",
	        guest_names[which], nic_names[nic], g.text);
	guest_stop(&g);
	return -1;
}

/* ---- report ------------------------------------------------------------- */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(const double *v, int n)
{
	double s[MAX_RUNS];
	int k = 0;

	for (int i = 0; i < n; i++)
		if (v[i] >= 0)
			s[k++] = v[i];
	if (k == 0)
		return -1;
	qsort(s, (size_t)k, sizeof(s[0]), cmp_double);
	return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

static void
loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");

	if (f == NULL || fgets(buf, (int)len, f) == NULL)
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = '\0';
	if (f != NULL)
		fclose(f);
}

static void
fmt(char *b, size_t n, double v)
{
	if (v < 0)
		snprintf(b, n, "failed");
	else
		snprintf(b, n, v >= 100 ? "%.0f" : "%.1f", v);
}

static void
write_report(FILE *f, const struct opts *o,
             double res[NNICS][NGUESTS][NFIGS][MAX_RUNS], const char *la0,
             const char *la1)
{
	fprintf(f, "## modref against a Linux guest (`make bench-linux`)\n\n");
	fprintf(f,
	        "Same QEMU (`%s`, TCG, `-smp 2 -m 256`, one NIC on user "
	        "networking), guests alternating run by run; medians of %d "
	        "runs.  Load average before: %s; after: %s.  UDP: %d s of "
	        "64-byte round trips; TCP: %llu bytes each way, host clock "
	        "from connect/accept to the peer's close; module cycles: %d "
	        "in the guest, host clock.\n\n",
	        o->qemu, o->runs, la0, la1, o->udp_secs,
	        (unsigned long long)o->bytes, o->cycles);
	fprintf(f, "| figure | NIC | Linux guest | modref | modref/Linux |\n");
	fprintf(f, "|---|---|---|---|---|\n");
	for (int fg = 0; fg < NFIGS; fg++) {
		for (int nic = 0; nic < NNICS; nic++) {
			double lm = median(res[nic][G_LINUX][fg], o->runs);
			double mm = median(res[nic][G_MODREF][fg], o->runs);
			char a[32], b[32], r[64];

			if (fg == F_CYCLES && nic != N_E1000)
				continue;
			if ((fg == F_BOOT || fg == F_CYCLES) && nic != N_E1000)
				continue;
			fmt(a, sizeof(a), lm);
			fmt(b, sizeof(b), mm);
			if (lm > 0 && mm > 0 && fig_lower_better[fg])
				snprintf(r, sizeof(r), "%.2fx (%.1fx faster)",
				         mm / lm, lm / mm);
			else if (lm > 0 && mm > 0)
				snprintf(r, sizeof(r), "%.2fx", mm / lm);
			else
				snprintf(r, sizeof(r), "-");
			fprintf(f, "| %s | %s | %s | %s | %s |\n",
			        fig_names[fg],
			        fg == F_BOOT || fg == F_CYCLES ? "e1000"
			                                       : nic_names[nic],
			        a, b, r);
		}
	}
	fprintf(f, "\nEvery run (`benchlinux:` lines) is in "
	           "`build/bench/linux.txt`, serial logs in "
	           "`build/bench/linux-logs/`.\n");
}

static int
run(int argc, char **argv)
{
	static double res[NNICS][NGUESTS][NFIGS][MAX_RUNS];
	struct opts o = {.qemu = "qemu-system-x86_64",
	                 .runs = 3,
	                 .udp_secs = 3,
	                 .cycles = 10,
	                 .bytes = 16u << 20,
	                 .report = NULL,
	                 .only_guest = -1,
	                 .only_nic = -1};
	char la0[128], la1[128], logname[512];
	const char *logdir = NULL;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "n:u:B:c:q:o:l:p:g:N:")) != -1) {
		switch (c) {
		case 'n':
			o.runs = atoi(optarg);
			break;
		case 'u':
			o.udp_secs = atoi(optarg);
			break;
		case 'B':
			o.bytes = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			o.cycles = atoi(optarg);
			break;
		case 'q':
			o.qemu = optarg;
			break;
		case 'o':
			o.report = optarg;
			break;
		case 'l':
			logdir = optarg;
			break;
		case 'p':
			o.pcapdir = optarg;
			break;
		case 'g':
			o.only_guest = strcmp(optarg, "linux") == 0 ? G_LINUX
			               : strcmp(optarg, "modref") == 0
			                   ? G_MODREF
			                   : -2;
			break;
		case 'N':
			o.only_nic = strcmp(optarg, "e1000") == 0 ? N_E1000
			             : strcmp(optarg, "virtio-net") == 0
			                 ? N_VIRTIO
			                 : -2;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 4 || o.runs < 1 || o.runs > MAX_RUNS ||
	    o.udp_secs < 1 || o.cycles < 1 || o.bytes == 0 ||
	    o.only_guest == -2 || o.only_nic == -2) {
		fprintf(stderr,
		        "usage: benchlinux run [-n RUNS] [-u SECS] [-B BYTES] "
		        "[-c CYCLES] [-q QEMU] [-o REPORT] [-l LOGDIR] "
		        "[-p PCAPDIR] [-g linux|modref] [-N e1000|virtio-net] "
		        "VMLINUZ INITRAMFS MODREF.ELF MODREF.CPIO\n");
		return 2;
	}
	o.vmlinuz = argv[optind];
	o.initramfs = argv[optind + 1];
	o.elf = argv[optind + 2];
	o.cpio = argv[optind + 3];
	signal(SIGPIPE, SIG_IGN);
	tcp_pattern_init(&pattern);
	loadavg(la0, sizeof(la0));
	printf("benchlinux: load average before: %s\n", la0);
	for (int r = 0; r < o.runs; r++) {
		for (int nic = 0; nic < NNICS; nic++) {
			for (int k = 0; k < NGUESTS; k++) {
				int which = (k + r) % NGUESTS;
				double fig[NFIGS];
				FILE *log = NULL;

				if ((o.only_guest >= 0 &&
				     o.only_guest != which) ||
				    (o.only_nic >= 0 && o.only_nic != nic)) {
					for (int f = 0; f < NFIGS; f++)
						res[nic][which][f][r] = -1;
					continue;
				}
				if (logdir != NULL) {
					snprintf(logname, sizeof(logname),
					         "%s/%s-%s-%d.log", logdir,
					         guest_names[which],
					         nic_names[nic], r + 1);
					log = fopen(logname, "w");
				}
				one_boot(&o, which, nic, fig, log);
				if (log != NULL)
					fclose(log);
				printf("benchlinux: run %d %s %s:", r + 1,
				       guest_names[which], nic_names[nic]);
				for (int f = 0; f < NFIGS; f++) {
					res[nic][which][f][r] = fig[f];
					printf(" %.1f", fig[f]);
				}
				printf("\n");
				fflush(stdout);
			}
		}
	}
	loadavg(la1, sizeof(la1));
	printf("benchlinux: load average after: %s\n", la1);
	write_report(stdout, &o, res, la0, la1);
	if (o.report != NULL) {
		FILE *f = fopen(o.report, "w");

		if (f == NULL) {
			perror(o.report);
			return 1;
		}
		write_report(f, &o, res, la0, la1);
		fclose(f);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "initramfs") == 0)
		return make_initramfs(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run(argc - 1, argv + 1);
	fprintf(stderr, "usage: benchlinux initramfs ... | run ...\n");
	return 2;
}
