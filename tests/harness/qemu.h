/*
 * QEMU command lines and processes.  qemu_build_argv() turns a profile and
 * the run's options into argv (pure, so unit tests can check it);
 * qemu_spawn() starts it in its own process group with the serial console
 * on pipes, and arranges that QEMU dies with its parent.
 */
#ifndef HARNESS_QEMU_H
#define HARNESS_QEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tests/harness/profile.h"
#include "tests/harness/script.h"
#include "tests/harness/util.h"

#define DEFAULT_QEMU   "qemu-system-i386"
#define DEFAULT_KERNEL "build/modref.elf"
#define DEFAULT_ISO    "build/modref.iso"

struct qemu_config {
	const char *qemu;
	const struct profile *prof;
	const char *kernel;
	const char *iso;
	const char *cmdline; /* NULL: none */
	char *const *modules;
	int nmodules;
	int gdb_port;     /* 0: no gdb stub */
	bool gdb_halt;    /* start halted, waiting for gdb (-S) */
	bool interactive; /* serial+monitor on the terminal, Ctrl-A X */
	const struct hostfwd *fwd;
	const int *fwd_host_port; /* chosen host ports, parallel to fwd */
	int nfwd;
	const char *pcap_prefix; /* NULL: no packet capture */
	const char *tftp_dir;    /* user net: tftp=DIR; NULL: none */
	/* net dgram: per NIC slot, QEMU's UDP port and the peer's. */
	int dgram_port[2][2];
	/* net tap: per NIC slot, the open tap QEMU inherits (fd=N). */
	int tap_fd[2];
};

/* The MAC of the NIC in each slot (0 e1000, 1 virtio-net), fixed so a
 * capture tells the guest's frames from the peer's (audit.c). */
extern const char *const guest_macs[2];

/* Returns 0, or -1 with a message in err (e.g. cmdline with ISO boot). */
int qemu_build_argv(const struct qemu_config *q, struct argv *out, char *err,
                    size_t errlen);

/* The -netdev/-device/-object arguments for the profile's NICs. */
void netdev_add_args(const struct qemu_config *q, struct argv *a);

/* A host port that was free a moment ago (bind to port 0 and ask). */
int pick_free_port(enum fwd_proto proto);

/* Start argv, keeping the nkeep descriptors in keep open across exec;
 * returns the pid or -1 with a message in err. */
pid_t qemu_spawn(const struct argv *a, const int *keep, int nkeep, int *in_fd,
                 int *out_fd, char *err, size_t errlen);

/* Kill QEMU's whole process group and reap it. */
void qemu_kill(pid_t pid);

/* "status 33 (success)", "killed by signal 9", ...; static buffer. */
const char *describe_status(int wstatus);

/* The exit status QEMU returned, or -1 if a signal killed it. */
int qemu_status(int wstatus);

/* What `modref-harness run` (make run) exits with after an interactive
 * QEMU: 0 for a clean poweroff (33) and for QEMU quit from its monitor
 * (Ctrl-A X, status 0); otherwise QEMU's status (35 test failure, 37
 * panic, 2N+1 `poweroff N`, QEMU errors), or 128+N for signal N. */
int qemu_run_exit_code(int wstatus);

#endif
