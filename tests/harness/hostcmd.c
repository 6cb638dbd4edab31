/*
 * host and host-ktap directives: run a shell command on the host (from
 * the repository root) while the console keeps being read, so a guest
 * that is busy talking to the host program is never blocked on its serial
 * port.  The command runs in its own process group so a timeout or an
 * interrupted harness kills everything it started.
 */
#include "tests/harness/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/harness/qemu.h"

struct host {
	struct run *R;
	const struct directive *d;
	struct ktap k;
	struct strbuf partial[2]; /* stdout, stderr */
};

static void
exec_child(struct run *R, enum op op, const char *cmd, int out, int err,
           pid_t parent)
{
	static const char *const vars[] = {
	    "PROFILE",   "SMP",       "MEM",       "NIC",       "BOOT",
	    "NET0_QEMU", "NET0_PEER", "NET1_QEMU", "NET1_PEER", "NETNS",
	    "PEER",      "GUEST",     "PEER0",     "GUEST0",    "PEER1",
	    "GUEST1",    "LOG",       "PCAP0",     "PCAP1"};
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* The same names as ${..} in the script, for use inside scripts. */
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		setenv(vars[i], run_var(vars[i], R), 1);
	for (int i = 0; i < R->s->nfwd; i++) {
		char name[16];

		snprintf(name, sizeof(name), "PORT%d", i);
		setenv(name, R->ports[i], 1);
	}
	dup2(null, 0);
	dup2(out, 1);
	dup2(err, 2);
	/* Nothing else: a server the command leaves running must not hold
	 * a pipe someone reads to its end (the harness's report pipe, or
	 * whatever ran the harness with one). */
	close_range(3, ~0U, 0);
	if (op == OP_PEER)
		execlp("ip", "ip", "netns", "exec", R->tap.ns, "/bin/sh", "-c",
		       cmd, (char *)NULL);
	else
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

static void
take_line(struct host *h, int which, const char *line)
{
	console_note(&h->R->con, "host%s| %s", which ? "!" : "", line);
	if (which == 0 && h->d->op == OP_HOST_KTAP)
		ktap_feed(&h->k, line);
}

/* Returns false at end of file. */
static bool
drain(struct host *h, int which, int fd)
{
	struct strbuf *sb = &h->partial[which];
	char buf[4096], *nl;
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		if (sb->len > 0)
			take_line(h, which, sb->buf);
		sb_consume(sb, sb->len);
		return false;
	}
	sb_add(sb, buf, (size_t)n);
	while ((nl = memchr(sb->buf, '\n', sb->len)) != NULL) {
		*nl = '\0';
		if (nl > sb->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		take_line(h, which, sb->buf);
		sb_consume(sb, (size_t)(nl - sb->buf) + 1);
	}
	return true;
}

/* Poll the command's pipes and the console until the command closes both. */
static int
pump_host(struct host *h, int fds[2], int64_t until)
{
	struct run *R = h->R;

	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd p[3];
		int n = 0, con = -1;
		int64_t left = until - now_ms();

		if (left <= 0 || R->fail != NULL)
			return -1;
		for (int i = 0; i < 2; i++)
			p[n++] =
			    (struct pollfd){.fd = fds[i], .events = POLLIN};
		if (R->qemu > 0 && R->con.out_fd >= 0) {
			con = n;
			p[n++] = (struct pollfd){.fd = R->con.out_fd,
			                         .events = POLLIN};
		}
		if (poll(p, (nfds_t)n, left > 500 ? 500 : (int)left) < 0 &&
		    errno != EINTR)
			return -1;
		for (int i = 0; i < 2; i++) {
			if (fds[i] >= 0 && p[i].revents &&
			    !drain(h, i, fds[i])) {
				close(fds[i]);
				fds[i] = -1;
			}
		}
		if (con >= 0 && p[con].revents)
			run_pump(R, 0);
	}
	return 0;
}

static void
finish_ktap(struct host *h, const char *cmd, const char *why)
{
	struct run *R = h->R;

	if (!h->k.started) {
		run_fail(R, "line %d: host-ktap: no KTAP output from '%s'",
		         h->d->line, cmd);
		return;
	}
	if (!h->k.done && why == NULL)
		why = "command exited";
	ktap_finish(&h->k, why);
	report_ktap(R, &h->k);
}

int
run_host(struct run *R, const struct directive *d)
{
	struct host h = {.R = R, .d = d};
	int out[2], err[2], fds[2], wstatus = 0;
	int64_t until = now_ms() + run_ms(R, d->timeout_ms);
	char msg[256], *cmd;
	const char *why = NULL;
	pid_t pid;

	if (d->op == OP_PEER && R->tap.index < 0) {
		run_fail(R,
		         "line %d: peer: profile %s has no tap namespace "
		         "(net tap)",
		         d->line, R->prof->name);
		return -1;
	}
	cmd = expand_vars(d->text, run_var, R, msg, sizeof(msg));
	if (cmd == NULL) {
		run_fail(R, "line %d: %s: %s", d->line, op_name(d->op), msg);
		return -1;
	}
	if (until > R->deadline)
		until = R->deadline;
	console_note(&R->con, "line %d: %s %s", d->line, op_name(d->op), cmd);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		run_fail(R, "pipe: %s", strerror(errno));
		free(cmd);
		return -1;
	}
	ktap_init(&h.k);
	sb_init(&h.partial[0]);
	sb_init(&h.partial[1]);
	pid = fork();
	if (pid == 0)
		exec_child(R, d->op, cmd, out[1], err[1], getppid());
	close(out[1]);
	close(err[1]);
	fds[0] = out[0];
	fds[1] = err[0];
	if (pid < 0) {
		run_fail(R, "fork: %s", strerror(errno));
	} else {
		setpgid(pid, pid);
		run_host_pgrp = pid;
		if (pump_host(&h, fds, until) < 0) {
			why = R->fail ? "run failed" : "timeout";
			kill(-pid, SIGKILL);
		}
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		run_host_pgrp = 0;
		/* The group may have children left that still hold pipes. */
		kill(-pid, SIGKILL);
	}
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (pid > 0 && d->op == OP_HOST_KTAP)
		finish_ktap(&h, cmd, why);
	if (pid > 0 && why != NULL && R->fail == NULL)
		run_fail(R, "line %d: host: '%s' timed out after %ds", d->line,
		         cmd, run_ms(R, d->timeout_ms) / 1000);
	else if (pid > 0 && R->fail == NULL && WIFSIGNALED(wstatus))
		run_fail(R, "line %d: host: '%s' was killed by signal %d",
		         d->line, cmd, WTERMSIG(wstatus));
	else if (pid > 0 && R->fail == NULL && WEXITSTATUS(wstatus) != 0)
		run_fail(R, "line %d: host: '%s' exited with status %d",
		         d->line, cmd, WEXITSTATUS(wstatus));
	ktap_free(&h.k);
	sb_free(&h.partial[0]);
	sb_free(&h.partial[1]);
	free(cmd);
	return R->fail ? -1 : 0;
}
