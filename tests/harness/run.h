/*
 * Execute one scenario on one profile: start QEMU if the scenario talks to
 * the kernel, run the directives in order, and describe the outcome as TAP
 * points in a report.  A run never exits the process; every problem,
 * including bad profiles and missing images, becomes a failed point.
 */
#ifndef HARNESS_RUN_H
#define HARNESS_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/harness/console.h"
#include "tests/harness/ktap.h"
#include "tests/harness/profile.h"
#include "tests/harness/report.h"
#include "tests/harness/script.h"
#include "tests/harness/stamp.h"
#include "tests/harness/tap.h"

struct run_opts {
	const char *qemu;
	const char *kernel;
	const char *iso;
	const char *profile_dir;
	const char *log_dir;
	double timeout_scale; /* multiplies every timeout and limit */
};

/* State of a run in progress; shared by run.c and hostcmd.c. */
struct run {
	const struct script *s;
	const struct profile *prof;
	const struct run_opts *o;
	struct report *r;
	char *name; /* "scenario[profile]" */
	char *log_path;
	FILE *log;
	pid_t qemu; /* 0 when not running */
	bool exited;
	int wstatus;
	struct console con;
	int64_t deadline; /* end of the whole-run limit */
	char ports[SCRIPT_MAX_FWD][16];
	char dgram[2][2][16]; /* NETn_QEMU, NETn_PEER ("0" unless dgram) */
	char gdbport[16];
	struct tapnet tap; /* net tap: the run's namespace (index -1: none) */
	char *fail;        /* the first failure, NULL while all is well */
	char *skip;        /* why the run could not happen, if not a failure */
	/* The run's archive of boot modules, removed at the end. */
	char *initrd;
	/* After a timeout: what the guest's hang dump gave, for the TAP
	 * diagnostics (run.c, hang_dump). */
	struct strbuf hangdump;
	int line;             /* directive being executed, for messages */
	struct stamp *stamps; /* by directive index, once a stamp ran */
};

void run_scenario(const struct script *s, const char *profile,
                  const struct run_opts *o, struct report *r);

/* Record the first failure; later ones are usually consequences. */
void run_fail(struct run *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Read console output (when QEMU runs) for up to ms; notices QEMU's exit,
 * panics and rejects.  Returns -1 once the run has failed.
 */
int run_pump(struct run *R, int ms);

/* A script's time in ms, scaled for slow machines (--timeout-scale). */
int run_ms(const struct run *R, int ms);

/* ${NAME} lookup for send and host lines. */
const char *run_var(const char *name, void *ctx);

/* Wait for d's regex like expect (0, or -1 with the run failed). */
int run_wait_match(struct run *R, const struct directive *d);

/* host, host-ktap and peer directives (hostcmd.c). */
int run_host(struct run *R, const struct directive *d);

/* Turn parsed KTAP cases into points "RUN suite.case". */
void report_ktap(struct run *R, const struct ktap *k);

/* For signal handlers: process groups to kill if the harness is stopped. */
extern volatile pid_t run_qemu_pgrp, run_host_pgrp;

#endif
