/*
 * Network namespaces and taps for `net tap` profiles (see tap.h).
 */
#include "tests/harness/tap.h"
#include "tests/harness/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAP_MAX_RUNS 256

/* For tap_teardown_signal: the shell command that undoes this run's
 * setup, prepared while it was safe to format strings. */
static char teardown_cmd[512];

void
tap_names(struct tapnet *t, int n)
{
	memset(t, 0, sizeof(*t));
	t->index = n;
	t->fd[0] = t->fd[1] = -1;
	snprintf(t->ns, sizeof(t->ns), "modref-tap%d", n);
	for (int s = 0; s < 2; s++) {
		snprintf(t->ifname[s], sizeof(t->ifname[s]), "mrtap%d-%d", n,
		         s);
		snprintf(t->peer[s], sizeof(t->peer[s]), "10.%d.%d.1", 77 + s,
		         n);
		snprintf(t->guest[s], sizeof(t->guest[s]), "10.%d.%d.2", 77 + s,
		         n);
	}
}

/* Run a shell command; on failure its output is the reason. */
__attribute__((format(printf, 3, 4))) static int
sh(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full, out[512];
	size_t n = 0;
	FILE *f;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (cmd == NULL)
		return -1;
	full = xasprintf("(%s) 2>&1", cmd);
	f = popen(full, "r");
	free(full);
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", cmd, strerror(errno));
		free(cmd);
		return -1;
	}
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
	st = pclose(f);
	if (st != 0 && err != NULL)
		snprintf(err, errlen, "%s: %s", cmd,
		         n ? out : "failed with no output");
	free(cmd);
	return st == 0 ? 0 : -1;
}

static char *
owner_path(int n)
{
	return xasprintf("%s/%d.owner", TAP_STATE_DIR, n);
}

/* "PID STARTTIME": the start time tells a reused pid from the owner. */
static char *
proc_identity(pid_t pid)
{
	char *path = xasprintf("/proc/%d/stat", (int)pid), *text, *p;
	unsigned long long start = 0;

	text = read_file(path);
	free(path);
	if (text == NULL)
		return NULL;
	/* Field 22; the command (field 2) may hold blanks, so skip past
	 * its closing parenthesis. */
	p = strrchr(text, ')');
	if (p == NULL ||
	    sscanf(p + 2,
	           "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	           "%*u %*d %*d %*d %*d %*d %*d %llu",
	           &start) != 1) {
		free(text);
		return NULL;
	}
	free(text);
	return xasprintf("%d %llu", (int)pid, start);
}

static bool
owner_alive(int n)
{
	char *path = owner_path(n), *text = read_file(path), *now = NULL;
	bool alive = false;
	int pid;

	free(path);
	if (text != NULL && sscanf(text, "%d", &pid) == 1 && pid > 0) {
		now = proc_identity(pid);
		alive = now != NULL && strcmp(trim(text), now) == 0;
	}
	free(now);
	free(text);
	return alive;
}

static void
delete_ns(const char *ns, int n)
{
	char *owner = owner_path(n);

	/* Peer programs a killed run left behind: only the processes in
	 * this namespace, by pid. */
	sh(NULL, 0,
	   "for p in $(ip netns pids %s 2>/dev/null); do kill -9 $p; done; "
	   "ip netns del %s 2>/dev/null; true",
	   ns, ns);
	unlink(owner);
	free(owner);
}

/* Delete the namespaces of runs that died without cleaning up. */
static void
remove_stale(void)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		int n;
		char extra;

		if (sscanf(e->d_name, "modref-tap%d%c", &n, &extra) != 1 ||
		    n < 0 || n >= TAP_MAX_RUNS)
			continue;
		if (!owner_alive(n))
			delete_ns(e->d_name, n);
	}
	closedir(d);
}

/* A tap in the namespace, opened from inside it. */
static int
open_tap(const struct tapnet *t, int slot, char *err, size_t errlen)
{
	char *path = xasprintf("/run/netns/%s", t->ns);
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int target = open(path, O_RDONLY | O_CLOEXEC);
	int fd = -1, e = 0;
	struct ifreq ifr;

	free(path);
	if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) < 0) {
		snprintf(err, errlen, "enter namespace %s: %s", t->ns,
		         strerror(errno));
		goto out;
	}
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	memset(&ifr, 0, sizeof(ifr));
	/* No IFF_VNET_HDR: QEMU and the captures see plain frames. */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->ifname[slot]);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
		snprintf(err, errlen, "tap %s: %s", t->ifname[slot],
		         strerror(e));
	}
	if (setns(self, CLONE_NEWNET) < 0) {
		/* Never carry on in the wrong namespace. */
		perror("modref-harness: leave tap namespace");
		_exit(2);
	}
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return fd;
}

int
tap_setup(struct tapnet *t, const bool want[2], char *err, size_t errlen)
{
	int lock, n;
	char *lockpath, *owner, *me;
	FILE *f;

	mkdir(TAP_STATE_DIR, 0755);
	lockpath = xasprintf("%s/lock", TAP_STATE_DIR);
	lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lockpath);
	if (lock < 0 || flock(lock, LOCK_EX) < 0) {
		snprintf(err, errlen, "%s/lock: %s", TAP_STATE_DIR,
		         strerror(errno));
		if (lock >= 0)
			close(lock);
		return -1;
	}
	remove_stale();
	for (n = 0; n < TAP_MAX_RUNS; n++) {
		char *p = xasprintf("/run/netns/modref-tap%d", n);
		bool used = access(p, F_OK) == 0;

		free(p);
		if (!used)
			break;
	}
	if (n == TAP_MAX_RUNS) {
		snprintf(err, errlen, "all %d tap namespaces in use",
		         TAP_MAX_RUNS);
		close(lock);
		return -1;
	}
	tap_names(t, n);
	if (sh(err, errlen, "ip netns add %s", t->ns) < 0) {
		t->index = -1;
		close(lock);
		return -1;
	}
	owner = owner_path(n);
	me = proc_identity(getpid());
	f = fopen(owner, "w");
	if (f != NULL) {
		fprintf(f, "%s\n", me ? me : "0");
		fclose(f);
	}
	free(me);
	snprintf(teardown_cmd, sizeof(teardown_cmd),
	         "for p in $(ip netns pids %s 2>/dev/null); do kill -9 $p; "
	         "done; ip netns del %s 2>/dev/null; rm -f %s",
	         t->ns, t->ns, owner);
	free(owner);
	close(lock);
	if (sh(err, errlen, "ip -n %s link set lo up", t->ns) < 0)
		goto fail;
	for (int s = 0; s < 2; s++) {
		if (!want[s])
			continue;
		t->fd[s] = open_tap(t, s, err, errlen);
		if (t->fd[s] < 0)
			goto fail;
		/* A locally administered MAC that names run and slot. */
		if (sh(err, errlen,
		       "ip -n %s link set %s address 02:4d:00:00:%02x:%02x && "
		       "ip -n %s addr add %s/24 dev %s && "
		       "ip -n %s link set %s up",
		       t->ns, t->ifname[s], n, s + 1, t->ns, t->peer[s],
		       t->ifname[s], t->ns, t->ifname[s]) < 0)
			goto fail;
	}
	return 0;
fail:
	tap_teardown(t);
	return -1;
}

void
tap_teardown(struct tapnet *t)
{
	if (t->index < 0)
		return;
	for (int s = 0; s < 2; s++) {
		if (t->fd[s] >= 0)
			close(t->fd[s]);
		t->fd[s] = -1;
	}
	delete_ns(t->ns, t->index);
	t->index = -1;
	teardown_cmd[0] = '\0';
}

void
tap_teardown_signal(void)
{
	pid_t pid;

	if (teardown_cmd[0] == '\0')
		return;
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", teardown_cmd, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}
