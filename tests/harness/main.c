/*
 * modref-harness: the command-line front end.
 *   test   runs scenarios (files or directories of *.scn), each
 *          scenario x profile in its own child process, N at a time, and
 *          prints TAP as runs finish, ending with "N passed, N failed".
 *   run    execs QEMU interactively with the console on the terminal.
 *   check  parses scenarios without running them.
 * The scheduler only collects reports; all waiting on QEMU happens in
 * the children (run.c), so one hung guest never delays another's result.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/harness/audit.h"
#include "tests/harness/initrd.h"
#include "tests/harness/kcidbrun.h"
#include "tests/harness/qemu.h"
#include "tests/harness/report.h"
#include "tests/harness/run.h"
#include "tests/harness/script.h"

struct job {
	const struct script *s;
	const char *profile;
	char *name;
	pid_t pid;
	int fd;
	struct strbuf out;
	int64_t started;
	struct timeval wall; /* when it started, for --kcidb */
};

struct tally {
	int n, passed, failed, skipped;
	struct strbuf failures; /* recap printed before the summary */
	struct kcidb *kcidb;    /* --kcidb: every run as KCIDB tests */
	const char *log_dir;
};

static volatile sig_atomic_t stop_signal;

static void
usage(void)
{
	fputs("usage: modref-harness test [-j N] [--qemu PATH] [--kernel ELF] "
	      "[--iso ISO]\n"
	      "                           [--logs DIR] [--profiles DIR] "
	      "[--timeout-scale F]\n"
	      "                           [--kcidb FILE] [--kcidb-origin "
	      "ORIGIN]\n"
	      "                           SCENARIO|DIR...\n"
	      "       modref-harness run [--profile NAME|FILE] [--smp N] "
	      "[--mem M]\n"
	      "                          [--nic e1000|virtio|both|none] "
	      "[--cmdline 'k=v ..']\n"
	      "                          [--modules 'a.ko b.ko'] [--iso ISO] "
	      "[--kernel ELF]\n"
	      "                          [--gdb PORT] [--qemu PATH]\n"
	      "       modref-harness check SCENARIO|DIR...\n"
	      "       modref-harness audit PCAP...\n"
	      "see docs/harness.md\n",
	      stderr);
	exit(2);
}

static const char *
default_qemu(void)
{
	const char *q = getenv("MODREF_QEMU");

	return q && *q ? q : DEFAULT_QEMU;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
is_scn(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 4 && strcmp(e->d_name + n - 4, ".scn") == 0;
}

/* Expand arguments: a directory means every *.scn in it, sorted. */
static char **
collect(char **args, int nargs, int *count)
{
	char **files = NULL;
	int n = 0;

	for (int i = 0; i < nargs; i++) {
		struct stat st;
		struct dirent **ents;
		int ne;

		if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			ne = scandir(args[i], &ents, is_scn, by_name);
			for (int j = 0; j < ne; j++) {
				files = xrealloc(files, (size_t)(n + 1) *
				                            sizeof(char *));
				files[n++] = xasprintf("%s/%s", args[i],
				                       ents[j]->d_name);
				free(ents[j]);
			}
			if (ne >= 0)
				free(ents);
			continue;
		}
		files = xrealloc(files, (size_t)(n + 1) * sizeof(char *));
		files[n++] = xstrdup(args[i]);
	}
	*count = n;
	return files;
}

static void
print_point(struct tally *t, const struct point *p)
{
	t->n++;
	if (p->status == PT_SKIP) {
		t->skipped++;
		printf("ok %d - %s # SKIP %s\n", t->n, p->name, p->reason);
	} else if (p->status == PT_PASS) {
		t->passed++;
		printf("ok %d - %s\n", t->n, p->name);
	} else {
		t->failed++;
		printf("not ok %d - %s # %s\n", t->n, p->name,
		       *p->reason ? p->reason : "failed");
	}
	for (int i = 0; i < p->ndiag; i++)
		printf("# %s\n", p->diag[i]);
}

static void
print_report(struct tally *t, struct report *r, const char *run)
{
	for (int i = 0; i < r->n; i++) {
		const struct point *p = &r->p[i];

		print_point(t, p);
		/* Recap only runs, not each KTAP case of a run. */
		if (p->status == PT_FAIL && strcmp(p->name, run) == 0) {
			sb_addf(&t->failures, "# FAILED %s", p->name);
			for (int j = 0; j < p->ndiag; j++)
				if (starts_with(p->diag[j], "log: "))
					sb_addf(&t->failures, " (%s)",
					        p->diag[j]);
			sb_adds(&t->failures, "\n");
		}
	}
}

static void
on_stop(int sig)
{
	stop_signal = sig;
}

/* In a run child: take QEMU and any host command down, then go. */
static void
child_stop(int sig)
{
	(void)sig;
	if (run_qemu_pgrp > 0)
		kill(-run_qemu_pgrp, SIGKILL);
	if (run_host_pgrp > 0)
		kill(-run_host_pgrp, SIGKILL);
	tap_teardown_signal();
	_exit(130);
}

static void
start_job(struct job *j, const struct run_opts *o, int index, int total)
{
	int p[2];
	pid_t parent = getpid();

	printf("# start %s (%d/%d)\n", j->name, index, total);
	fflush(stdout);
	/* close-on-exec: a host command's child (a server a scenario left
	 * running in its own session) must not hold the report pipe, whose
	 * end the harness reads to */
	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("modref-harness: pipe");
		exit(2);
	}
	j->pid = fork();
	if (j->pid < 0) {
		perror("modref-harness: fork");
		exit(2);
	}
	if (j->pid == 0) {
		struct report r;

		signal(SIGINT, child_stop);
		signal(SIGTERM, child_stop);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		close(p[0]);
		report_init(&r);
		run_scenario(j->s, j->profile, o, &r);
		_exit(report_write(p[1], &r) < 0 ? 1 : 0);
	}
	close(p[1]);
	j->fd = p[0];
	sb_init(&j->out);
	j->started = now_ms();
	gettimeofday(&j->wall, NULL);
}

static void
finish_job(struct tally *t, struct job *j)
{
	struct report r;
	int wstatus = 0;
	char *line, *save = NULL;
	bool has_run_point = false;

	while (waitpid(j->pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	close(j->fd);
	report_init(&r);
	for (line = strtok_r(j->out.buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		report_parse_line(&r, line);
	for (int i = 0; i < r.n; i++)
		has_run_point |= strcmp(r.p[i].name, j->name) == 0;
	if (!has_run_point) {
		char *why = WIFSIGNALED(wstatus)
		                ? xasprintf("harness run process killed by "
		                            "signal %d",
		                            WTERMSIG(wstatus))
		                : xasprintf("harness run process exited "
		                            "with status %d and no result",
		                            WEXITSTATUS(wstatus));

		report_add(&r, PT_FAIL, j->name, why);
		free(why);
	}
	print_report(t, &r, j->name);
	if (t->kcidb != NULL) {
		char *log = xasprintf("%s/%s-%s.log", t->log_dir, j->s->name,
		                      j->profile);

		kcidb_add_run(t->kcidb, j->s->name, j->profile, &r, log,
		              &j->wall,
		              (double)(now_ms() - j->started) / 1000.0);
		free(log);
	}
	printf("# done %s in %.1fs\n", j->name,
	       (double)(now_ms() - j->started) / 1000.0);
	fflush(stdout);
	report_free(&r);
	sb_free(&j->out);
	j->pid = 0;
}

/* Read from every running job until one finishes (or a signal arrives). */
static void
wait_jobs(struct tally *t, struct job **running, int *nrun)
{
	struct pollfd *p = xcalloc((size_t)*nrun, sizeof(*p));
	char buf[4096];

	for (int i = 0; i < *nrun; i++)
		p[i] = (struct pollfd){.fd = running[i]->fd, .events = POLLIN};
	if (poll(p, (nfds_t)*nrun, 1000) > 0) {
		for (int i = 0; i < *nrun; i++) {
			ssize_t n;

			if (p[i].revents == 0)
				continue;
			n = read(running[i]->fd, buf, sizeof(buf));
			if (n > 0) {
				sb_add(&running[i]->out, buf, (size_t)n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			finish_job(t, running[i]);
			running[i] = NULL;
		}
	}
	free(p);
	/* Close the gaps left by finished jobs. */
	int k = 0;

	for (int i = 0; i < *nrun; i++)
		if (running[i] != NULL)
			running[k++] = running[i];
	*nrun = k;
}

static void
stop_all(struct job **running, int nrun)
{
	for (int i = 0; i < nrun; i++)
		kill(running[i]->pid, SIGTERM);
	for (int i = 0; i < nrun; i++)
		while (waitpid(running[i]->pid, NULL, 0) < 0 && errno == EINTR)
			;
}

static int
summary(struct tally *t, const char *kcidb_file)
{
	if (t->kcidb != NULL) {
		if (kcidb_write(t->kcidb, kcidb_file) < 0) {
			printf("# kcidb: %s: %s\n", kcidb_file,
			       strerror(errno));
			t->failed++;
		} else {
			printf("# kcidb: %d tests in %s\n", t->kcidb->ntests,
			       kcidb_file);
		}
	}
	printf("1..%d\n", t->n);
	if (t->failures.len > 0)
		fputs(t->failures.buf, stdout);
	if (t->skipped > 0)
		printf("%d passed, %d failed, %d skipped\n", t->passed,
		       t->failed, t->skipped);
	else
		printf("%d passed, %d failed\n", t->passed, t->failed);
	fflush(stdout);
	return t->failed > 0 ? 1 : 0;
}

static int
cmd_test(int argc, char **argv)
{
	struct run_opts o = {.qemu = default_qemu(),
	                     .kernel = DEFAULT_KERNEL,
	                     .iso = DEFAULT_ISO,
	                     .profile_dir = "qemu",
	                     .log_dir = "build/test-logs"};
	static const struct option longopts[] = {
	    {"qemu", required_argument, NULL, 'q'},
	    {"kernel", required_argument, NULL, 'k'},
	    {"iso", required_argument, NULL, 'i'},
	    {"logs", required_argument, NULL, 'l'},
	    {"profiles", required_argument, NULL, 'p'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"timeout-scale", required_argument, NULL, 't'},
	    {"kcidb", required_argument, NULL, 'K'},
	    {"kcidb-origin", required_argument, NULL, 'O'},
	    {NULL, 0, NULL, 0}};
	struct tally t = {0};
	struct kcidb kcidb;
	const char *kcidb_file = getenv("MODREF_KCIDB"), *origin_opt = NULL,
	           *origin = NULL;
	struct job *jobs = NULL, **running;
	int jmax = 1, njobs = 0, nrun = 0, next = 0, nfiles, c;
	char **files, err[512];

	while ((c = getopt_long(argc, argv, "j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.qemu = optarg;
			break;
		case 'k':
			o.kernel = optarg;
			break;
		case 'i':
			o.iso = optarg;
			break;
		case 'l':
			o.log_dir = optarg;
			break;
		case 'p':
			o.profile_dir = optarg;
			break;
		case 't':
			o.timeout_scale = atof(optarg);
			if (o.timeout_scale <= 0)
				usage();
			break;
		case 'j':
			jmax = atoi(optarg);
			if (jmax < 1)
				usage();
			break;
		case 'K':
			kcidb_file = optarg;
			break;
		case 'O':
			origin_opt = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	if (kcidb_file != NULL && *kcidb_file == '\0')
		kcidb_file = NULL;
	/* A bad origin stops everything before a run starts. */
	if ((kcidb_file != NULL || origin_opt != NULL) &&
	    (origin = kcidb_origin(origin_opt, err, sizeof(err))) == NULL) {
		fprintf(stderr, "modref-harness: %s\n", err);
		return 2;
	}
	if (kcidb_file != NULL) {
		kcidb_begin(&kcidb, origin, o.kernel);
		t.kcidb = &kcidb;
		t.log_dir = o.log_dir;
	}
	if (o.timeout_scale == 0 && getenv("MODREF_TIMEOUT_SCALE") != NULL)
		o.timeout_scale = atof(getenv("MODREF_TIMEOUT_SCALE"));
	sb_init(&t.failures);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	files = collect(argv + optind, argc - optind, &nfiles);
	for (int i = 0; i < nfiles; i++) {
		struct script *s = script_load(files[i], err, sizeof(err));
		struct point bad = {PT_FAIL, NULL, err, NULL, 0};

		if (s == NULL) {
			/* A broken script is a failed test, not a stop. */
			bad.name = script_name(files[i]);
			print_point(&t, &bad);
			sb_addf(&t.failures, "# FAILED %s (%s)\n", bad.name,
			        err);
			if (t.kcidb != NULL)
				kcidb_add_broken(t.kcidb, bad.name, err);
			free(bad.name);
			continue;
		}
		for (int p = 0; p < s->nprofiles; p++) {
			jobs =
			    xrealloc(jobs, (size_t)(njobs + 1) * sizeof(*jobs));
			jobs[njobs++] =
			    (struct job){.s = s,
			                 .profile = s->profiles[p],
			                 .name = xasprintf("%s[%s]", s->name,
			                                   s->profiles[p])};
		}
	}
	printf("# %d runs, %d at a time; serial logs in %s/\n", njobs, jmax,
	       o.log_dir);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGPIPE, SIG_IGN);
	running = xcalloc((size_t)jmax, sizeof(*running));
	while ((next < njobs || nrun > 0) && !stop_signal) {
		while (nrun < jmax && next < njobs && !stop_signal) {
			start_job(&jobs[next], &o, next + 1, njobs);
			running[nrun++] = &jobs[next++];
		}
		wait_jobs(&t, running, &nrun);
	}
	if (stop_signal) {
		stop_all(running, nrun);
		printf("# interrupted by signal %d; %d runs not finished\n",
		       (int)stop_signal, njobs - next + nrun);
		summary(&t, kcidb_file);
		return 128 + (int)stop_signal;
	}
	return summary(&t, kcidb_file);
}

/* Audit captures as a run would (audit.h); exit 1 on any problem. */
static int
cmd_audit(int argc, char **argv)
{
	int bad = 0;

	if (argc < 1)
		usage();
	for (int i = 0; i < argc; i++) {
		struct audit a;
		char err[512], *fail, *ok;

		audit_init(&a);
		if (audit_pcap(argv[i], &a, err, sizeof(err)) < 0) {
			printf("%s: %s\n", argv[i], err);
			audit_free(&a);
			bad++;
			continue;
		}
		fail = audit_describe(&a, true);
		ok = audit_describe(&a, false);
		printf("%s: %d frames, %d from the guest, %d problems\n",
		       argv[i], a.frames, a.guest_frames, a.problems);
		if (fail != NULL)
			printf("%s: FAIL: %s\n", argv[i], fail);
		if (ok != NULL)
			printf("%s: %s\n", argv[i], ok);
		bad += a.problems > 0;
		free(fail);
		free(ok);
		audit_free(&a);
	}
	return bad ? 1 : 0;
}

static int
cmd_check(int argc, char **argv)
{
	int nfiles, bad = 0;
	char **files = collect(argv, argc, &nfiles), err[512];

	for (int i = 0; i < nfiles; i++) {
		struct script *s = script_load(files[i], err, sizeof(err));

		if (s == NULL) {
			fprintf(stderr, "%s\n", err);
			bad++;
		}
		script_free(s);
	}
	printf("%d scenarios, %d with errors\n", nfiles, bad);
	return bad ? 1 : 0;
}

/* Split "a.ko b.ko" into an argv-style list. */
static char **
split(const char *s, int *n)
{
	char *copy = xstrdup(s), **v = NULL;

	*n = 0;
	for (char *w = strtok(copy, " \t,"); w; w = strtok(NULL, " \t,")) {
		v = xrealloc(v, (size_t)(*n + 1) * sizeof(char *));
		v[(*n)++] = xstrdup(w);
	}
	free(copy);
	return v;
}

static void
override(struct profile *p, const char *key, const char *value)
{
	char err[256];

	if (profile_set(p, key, value, err, sizeof(err)) < 0) {
		fprintf(stderr, "modref-harness: --%s\n", err);
		exit(2);
	}
}

/* Pack q's modules into one archive at path (initrd.h); q then boots
 * with the archive and any prebuilt *.cpio.  0, or -1 with a message. */
static int
pack_modules(struct qemu_config *q, char *path)
{
	char err[512], **list;
	int fd = mkstemp(path), n;

	if (fd < 0) {
		fprintf(stderr, "modref-harness: %s: %s\n", path,
		        strerror(errno));
		path[0] = '\0';
		return -1;
	}
	close(fd);
	if (initrd_prepare(q->modules, q->nmodules, path, &list, &n, err,
	                   sizeof(err)) < 0) {
		fprintf(stderr, "modref-harness: modules: %s\n", err);
		unlink(path);
		return -1;
	}
	q->modules = list;
	q->nmodules = n;
	return 0;
}

/*
 * QEMU on the terminal until it exits; then say how it ended and map its
 * status to ours (qemu_run_exit_code): a clean poweroff is success, so
 * `make run` does not report an error for it.  Like system(), ignore
 * the terminal's signals meanwhile: they are QEMU's.
 */
static int
run_interactive(const struct argv *a)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
	int wstatus, code;
	pid_t pid;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execvp(a->v[0], a->v);
		fprintf(stderr, "modref-harness: cannot run %s: %s\n", a->v[0],
		        strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "modref-harness: fork: %s\n", strerror(errno));
		return 2;
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "modref-harness: waitpid: %s\n",
			        strerror(errno));
			return 2;
		}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	code = qemu_run_exit_code(wstatus);
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127)
		return 127; /* the child said why */
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == STATUS_RESET) {
		fprintf(stderr, "modref-harness: QEMU quit (Ctrl-A X, or a "
		                "guest reset or triple fault)\n");
		return 0;
	}
	fprintf(stderr, "modref-harness: QEMU exited, %s%s\n",
	        describe_status(wstatus),
	        code == 0 ? "" : "; exiting with that status");
	return code;
}

static int
cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"profile", required_argument, NULL, 'P'},
	    {"smp", required_argument, NULL, 's'},
	    {"mem", required_argument, NULL, 'm'},
	    {"nic", required_argument, NULL, 'n'},
	    {"cmdline", required_argument, NULL, 'c'},
	    {"modules", required_argument, NULL, 'M'},
	    {"iso", required_argument, NULL, 'i'},
	    {"kernel", required_argument, NULL, 'k'},
	    {"gdb", required_argument, NULL, 'g'},
	    {"qemu", required_argument, NULL, 'q'},
	    {NULL, 0, NULL, 0}};
	struct profile prof;
	struct qemu_config q = {.qemu = default_qemu(),
	                        .kernel = DEFAULT_KERNEL,
	                        .iso = DEFAULT_ISO,
	                        .interactive = true};
	const char *profile = "default";
	char err[512], *line;
	char archive[] = "/tmp/modref-initrd-XXXXXX";
	struct argv a;
	int c, rc;

	/* Load the profile first: the other options override it. */
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--profile") == 0)
			profile = argv[i + 1];
	if (profile_load(&prof, "qemu", profile, err, sizeof(err)) < 0) {
		fprintf(stderr, "modref-harness: %s\n", err);
		return 2;
	}
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			break;
		case 's':
			override(&prof, "smp", optarg);
			break;
		case 'm':
			override(&prof, "mem", optarg);
			break;
		case 'n':
			override(&prof, "nic", optarg);
			break;
		case 'c':
			q.cmdline = optarg;
			break;
		case 'M':
			q.modules = split(optarg, &q.nmodules);
			break;
		case 'i':
			q.iso = optarg;
			prof.boot = BOOT_ISO;
			break;
		case 'k':
			q.kernel = optarg;
			break;
		case 'g':
			q.gdb_port = atoi(optarg);
			q.gdb_halt = true;
			if (q.gdb_port < 1 || q.gdb_port > 65535)
				usage();
			break;
		case 'q':
			q.qemu = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	q.prof = &prof;
	if (prof.net == NET_TAP) {
		fprintf(stderr, "modref-harness: net tap needs a namespace "
		                "the harness creates and deletes around a "
		                "scenario run; use it from a scenario "
		                "(modref-harness test)\n");
		return 2;
	}
	if (prof.boot == BOOT_ISO && (q.cmdline || q.nmodules))
		fprintf(stderr, "modref-harness: booting the ISO: its "
		                "grub.cfg already has the command line and "
		                "modules given to 'make iso'\n");
	else if (q.nmodules > 0 && pack_modules(&q, archive) < 0)
		return 2;
	rc = qemu_build_argv(&q, &a, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "modref-harness: %s\n", err);
		unlink(archive);
		return 2;
	}
	line = argv_join(&a);
	fprintf(stderr, "modref-harness: %s\n", line);
	fprintf(stderr, "modref-harness: Ctrl-A X quits, Ctrl-A C toggles "
	                "the QEMU monitor\n");
	free(line);
	rc = run_interactive(&a);
	unlink(archive);
	argv_free(&a);
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "test") == 0)
		return cmd_test(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "check") == 0)
		return cmd_check(argc - 2, argv + 2);
	if (strcmp(argv[1], "audit") == 0)
		return cmd_audit(argc - 2, argv + 2);
	usage();
	return 2;
}
