/*
 * Scenario scripts (tests/scenarios/NAME.scn): parsing into a list of
 * directives that run.c executes in order.  Parsing checks everything that
 * can be checked without running (regexes, numbers, variables, escapes), so
 * a typo is reported as "FILE:LINE: problem" before any QEMU starts.
 */
#ifndef HARNESS_SCRIPT_H
#define HARNESS_SCRIPT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

enum op {
	OP_SEND,      /* text + "\r" to the console */
	OP_SENDRAW,   /* unescaped bytes, nothing added */
	OP_CTRLC,     /* a single 0x03 */
	OP_EXPECT,    /* wait for regex in unconsumed output */
	OP_PROMPT,    /* wait for "modref> " */
	OP_REJECT,    /* fail if regex appears from now on */
	OP_KTAP,      /* parse one KTAP document from the console */
	OP_EXIT,      /* wait for QEMU to exit with a given status */
	OP_SLEEP,     /* let time pass, still watching the console */
	OP_HOST,      /* run a host command, pass if it exits 0 */
	OP_HOST_KTAP, /* same, and report its stdout as KTAP */
	OP_POLL,      /* send a command again until its output matches */
	OP_STAMP,     /* expect, and note host time and the guest's time */
	OP_ELAPSED,   /* compare guest and host time between two stamps */
	OP_PEER,      /* a host command inside the tap namespace */
};

struct directive {
	enum op op;
	int line;
	int timeout_ms; /* expect/prompt/ktap/exit/host/sleep */
	char *text;     /* bytes to send, regex source, suite, command */
	size_t textlen;
	regex_t re; /* OP_EXPECT, OP_REJECT, OP_POLL, OP_STAMP */
	char *aux;  /* OP_POLL: the regex source (text is the command);
	               OP_STAMP: the stamp's name */
	bool has_re;
	bool re_vars; /* the regex has ${VAR}s: compiled again when run */
	int status;   /* OP_EXIT: expected QEMU exit status */
	int stamp[2]; /* OP_ELAPSED: indices of the two OP_STAMP directives */
	double pct;   /* OP_ELAPSED: allowed deviation of the ratio, in % */
};

enum fwd_proto { FWD_UDP, FWD_TCP };

struct hostfwd {
	enum fwd_proto proto;
	int guest_port;
	bool second; /* to the second NIC, not the first */
};

#define SCRIPT_MAX_FWD 8

struct script {
	char *path;
	char *name; /* base name without .scn */
	char **profiles;
	int nprofiles;
	char *cmdline; /* NULL if none */
	char **modules;
	int nmodules;
	int limit_ms;
	struct hostfwd fwd[SCRIPT_MAX_FWD];
	int nfwd;
	bool pcap;
	/* audit-allow FIELD REASON: findings this scenario causes on
	 * purpose, each named with its reason (audit.h). */
	char **allow_field, **allow_reason;
	int nallow;
	char *tftp_dir;  /* QEMU user net's TFTP root (tftp=DIR); NULL: none */
	bool gdbstub;    /* QEMU gdb stub on a free port: ${GDBPORT} */
	bool needs_qemu; /* has kernel directives */
	bool expects_panic; /* says `exit panic` */
	struct directive *d;
	int nd;
};

/* QEMU exit statuses produced by isa-debug-exit (value * 2 + 1). */
#define STATUS_SUCCESS 33
#define STATUS_FAILURE 35
#define STATUS_PANIC   37
#define STATUS_RESET   0

#define DEFAULT_TIMEOUT_S 30
#define DEFAULT_LIMIT_S   300

/*
 * Parse script text.  path is used in messages and for the name.  Returns
 * NULL with "PATH:LINE: problem" in err.
 */
struct script *script_parse(const char *path, const char *text, char *err,
                            size_t errlen);
struct script *script_load(const char *path, char *err, size_t errlen);
void script_free(struct script *s);

/* The scenario name for a path: base name without ".scn". */
char *script_name(const char *path);

/*
 * Expand ${NAME} in text using lookup (returns NULL for unknown names).
 * Returns NULL and a message in err if a name is unknown.
 */
char *expand_vars(const char *text,
                  const char *(*lookup)(const char *name, void *ctx), void *ctx,
                  char *err, size_t errlen);

const char *op_name(enum op op);

#endif
