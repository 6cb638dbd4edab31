/*
 * QEMU command-line builder and launcher (see qemu.h).  TCG only: the
 * testbed must behave the same on machines without KVM.
 */
#include "tests/harness/qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int
boot_args(const struct qemu_config *q, struct argv *a, char *err, size_t errlen)
{
	if (q->prof->boot == BOOT_ISO) {
		if (!q->interactive &&
		    (q->cmdline != NULL || q->nmodules > 0)) {
			snprintf(
			    err, errlen,
			    "profile %s boots the ISO, which cannot take "
			    "'cmdline' or 'modules' (they are baked in by "
			    "'make iso CMDLINE=.. EXTRA_MODULES=..'); use a "
			    "direct-boot profile",
			    q->prof->name);
			return -1;
		}
		argv_add(a, "-cdrom");
		argv_add(a, q->iso);
		argv_add(a, "-boot");
		argv_add(a, "d");
		return 0;
	}
	argv_add(a, "-kernel");
	argv_add(a, q->kernel);
	argv_add(a, "-append");
	argv_add(a, q->cmdline ? q->cmdline : "");
	if (q->nmodules > 0) {
		struct strbuf sb;

		/* QEMU's multiboot loader takes modules comma-separated. */
		sb_init(&sb);
		for (int i = 0; i < q->nmodules; i++)
			sb_addf(&sb, "%s%s", i ? "," : "", q->modules[i]);
		argv_add(a, "-initrd");
		argv_add(a, sb.buf);
		sb_free(&sb);
	}
	return 0;
}

int
qemu_build_argv(const struct qemu_config *q, struct argv *a, char *err,
                size_t errlen)
{
	argv_init(a);
	argv_add(a, q->qemu);
	argv_add(a, "-machine");
	argv_add(a, "pc");
	argv_add(a, "-accel");
	argv_add(a, "tcg");
	argv_add(a, "-nodefaults");
	argv_add(a, "-display");
	argv_add(a, "none");
	argv_add(a, "-no-reboot");
	argv_add(a, "-device");
	argv_add(a, "isa-debug-exit,iobase=0xf4,iosize=0x04");
	argv_add(a, "-smp");
	argv_addf(a, "%d", q->prof->smp);
	argv_add(a, "-m");
	argv_add(a, q->prof->mem);
	if (q->prof->rr[0] != '\0') {
		/* Record/replay: every nondeterministic input (clock, serial,
		 * network: netdev.c adds a filter-replay per NIC) goes to or
		 * comes from rrfile. */
		argv_add(a, "-icount");
		argv_addf(a, "shift=auto,rr=%s,rrfile=%s", q->prof->rr,
		          q->prof->rrfile);
	}
	if (boot_args(q, a, err, errlen) < 0) {
		argv_free(a);
		return -1;
	}
	netdev_add_args(q, a);
	if (q->interactive) {
		/* mon: multiplexes the monitor, so Ctrl-A X and Ctrl-A C work.
		 */
		argv_add(a, "-serial");
		argv_add(a, "mon:stdio");
	} else {
		argv_add(a, "-serial");
		argv_add(a, "stdio");
		argv_add(a, "-monitor");
		argv_add(a, "none");
	}
	if (q->gdb_port > 0) {
		if (q->gdb_halt)
			argv_add(a, "-S");
		argv_add(a, "-gdb");
		argv_addf(a, "tcp:127.0.0.1:%d", q->gdb_port);
	}
	return 0;
}

static void
child(const struct argv *a, const int *keep, int nkeep, int in, int out,
      int errpipe, pid_t parent)
{
	int e;

	setpgid(0, 0);
	/* If the harness dies for any reason, QEMU must not outlive it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	for (int i = 0; i < nkeep; i++)
		fcntl(keep[i], F_SETFD, 0);
	execvp(a->v[0], a->v);
	e = errno;
	if (write(errpipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t
qemu_spawn(const struct argv *a, const int *keep, int nkeep, int *in_fd,
           int *out_fd, char *err, size_t errlen)
{
	int in[2], out[2], ep[2], e = 0;
	pid_t parent = getpid(), pid;
	ssize_t n;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(a, keep, nkeep, in[0], out[1], ep[1], parent);
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(ep[1]);
	/* The error pipe closes on a successful exec; data means it failed. */
	n = read(ep[0], &e, sizeof(e));
	close(ep[0]);
	if (n == sizeof(e)) {
		snprintf(err, errlen, "cannot run %s: %s", a->v[0],
		         strerror(e));
		waitpid(pid, NULL, 0);
		close(in[1]);
		close(out[0]);
		return -1;
	}
	*in_fd = in[1];
	*out_fd = out[0];
	return pid;
}

void
qemu_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int
qemu_status(int wstatus)
{
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

int
qemu_run_exit_code(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	if (WEXITSTATUS(wstatus) == STATUS_SUCCESS)
		return 0;
	return WEXITSTATUS(wstatus);
}

const char *
describe_status(int wstatus)
{
	static char buf[96];
	int st;

	if (WIFSIGNALED(wstatus)) {
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)",
		         WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
		return buf;
	}
	st = WEXITSTATUS(wstatus);
	switch (st) {
	case STATUS_SUCCESS:
		return "status 33 (success: poweroff)";
	case STATUS_FAILURE:
		return "status 35 (test failure)";
	case STATUS_PANIC:
		return "status 37 (kernel panic)";
	case STATUS_RESET:
		return "status 0 (reset or triple fault)";
	case 1:
		return "status 1 (QEMU error, or poweroff 0)";
	}
	if (st & 1)
		snprintf(buf, sizeof(buf), "status %d (poweroff %d)", st,
		         (st - 1) / 2);
	else
		snprintf(buf, sizeof(buf), "status %d (QEMU error)", st);
	return buf;
}
