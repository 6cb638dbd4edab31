/*
 * Scenario script parser (see script.h and docs/harness.md for the
 * language).  One directive per line; a line whose first non-blank
 * character is '#' is a comment, so '#' inside a regex or a command is
 * literal.
 */
#include "tests/harness/script.h"
#include "tests/harness/audit.h"
#include "tests/harness/profile.h"
#include "tests/harness/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct script *s;
	const char *path;
	int line;
	int timeout_ms; /* current default, changed by `timeout` */
	char *err;
	size_t errlen;
};

static const char *const op_names[] = {
    [OP_SEND] = "send",           [OP_SENDRAW] = "sendraw",
    [OP_CTRLC] = "ctrl-c",        [OP_EXPECT] = "expect",
    [OP_PROMPT] = "prompt",       [OP_REJECT] = "reject",
    [OP_KTAP] = "ktap",           [OP_EXIT] = "exit",
    [OP_SLEEP] = "sleep",         [OP_HOST] = "host",
    [OP_HOST_KTAP] = "host-ktap", [OP_POLL] = "poll",
    [OP_STAMP] = "stamp",         [OP_ELAPSED] = "elapsed",
    [OP_PEER] = "peer",
};

const char *
op_name(enum op op)
{
	return op_names[op];
}

__attribute__((format(printf, 2, 3))) static int
fail(struct parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%d: %s", p->path, p->line, msg);
	return -1;
}

/* Whole seconds, 1..86400: a zero or negative wait is always a typo. */
static int
parse_seconds(struct parser *p, const char *what, const char *v, int *ms)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || errno != 0 || n < 1 || n > 86400)
		return fail(p, "%s: '%s' is not a number of seconds (1..86400)",
		            what, v);
	*ms = (int)n * 1000;
	return 0;
}

static struct directive *
add(struct parser *p, enum op op)
{
	struct script *s = p->s;
	struct directive *d;

	s->d = xrealloc(s->d, (size_t)(s->nd + 1) * sizeof(*s->d));
	d = &s->d[s->nd++];
	memset(d, 0, sizeof(*d));
	d->op = op;
	d->line = p->line;
	d->timeout_ms = p->timeout_ms;
	return d;
}

static int
need_args(struct parser *p, const char *dir, const char *args)
{
	if (*args == '\0')
		return fail(p, "%s: missing argument", dir);
	return 0;
}

static int
no_args(struct parser *p, const char *dir, const char *args)
{
	if (*args != '\0')
		return fail(p, "%s takes no argument (got '%s')", dir, args);
	return 0;
}

/* "-t SECS REST": an optional per-directive timeout in front of REST. */
static int
opt_timeout(struct parser *p, const char *dir, char **args, int *ms)
{
	char *a = *args, *num, *end;
	char buf[32];

	*ms = p->timeout_ms;
	if (!starts_with(a, "-t"))
		return 0;
	if (a[2] != ' ' && a[2] != '\t')
		return fail(p, "%s: '-t' needs a number of seconds", dir);
	num = trim(a + 2);
	end = num + strcspn(num, " \t");
	if ((size_t)(end - num) >= sizeof(buf))
		return fail(p, "%s: bad -t value", dir);
	memcpy(buf, num, (size_t)(end - num));
	buf[end - num] = '\0';
	if (parse_seconds(p, dir, buf, ms) < 0)
		return -1;
	*args = trim(end);
	return 0;
}

static bool
known_var(struct parser *p, const char *name)
{
	static const char *const fixed[] = {
	    "PROFILE",   "SMP",       "MEM",       "NIC",       "BOOT",
	    "NET0_QEMU", "NET0_PEER", "NET1_QEMU", "NET1_PEER", "NETNS",
	    "PEER",      "GUEST",     "PEER0",     "GUEST0",    "PEER1",
	    "GUEST1",    "LOG",       "PCAP0",     "PCAP1"};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(name, fixed[i]) == 0)
			return true;
	for (int i = 0; i < p->s->nfwd; i++) {
		char port[16];

		snprintf(port, sizeof(port), "PORT%d", i);
		if (strcmp(name, port) == 0)
			return true;
	}
	return p->s->gdbstub && strcmp(name, "GDBPORT") == 0;
}

static const char *
check_lookup(const char *name, void *ctx)
{
	return known_var(ctx, name) ? "" : NULL;
}

/* Variables are checked now so a typo never waits for a QEMU boot. */
static int
check_vars(struct parser *p, const char *dir, const char *text)
{
	char msg[256];
	char *out = expand_vars(text, check_lookup, p, msg, sizeof(msg));

	if (out == NULL)
		return fail(p, "%s: %s", dir, msg);
	free(out);
	return 0;
}

/*
 * A regex may use ${VAR}s (addresses of a tap run): they are checked
 * here, the regex is checked with each one standing for a plain word,
 * and run.c compiles it again with the values (regex-escaped) at run time.
 */
static const char *
sample_lookup(const char *name, void *ctx)
{
	return known_var(ctx, name) ? "x" : NULL;
}

static int
compile(struct parser *p, struct directive *d, const char *dir, const char *src)
{
	char msg[256], *sample = NULL;
	int rc;

	if (need_args(p, dir, src) < 0)
		return -1;
	if (strstr(src, "${") != NULL) {
		if (check_vars(p, dir, src) < 0)
			return -1;
		sample = expand_vars(src, sample_lookup, p, msg, sizeof(msg));
		d->re_vars = true;
	}
	rc = regcomp(&d->re, sample ? sample : src, REG_EXTENDED);
	free(sample);
	if (rc != 0) {
		regerror(rc, &d->re, msg, sizeof(msg));
		return fail(p, "%s: bad regex '%s': %s", dir, src, msg);
	}
	d->has_re = true;
	d->text = xstrdup(src);
	return 0;
}

static int
parse_exit(struct parser *p, struct directive *d, char *args)
{
	static const struct {
		const char *name;
		int status;
	} names[] = {{"success", STATUS_SUCCESS},
	             {"failure", STATUS_FAILURE},
	             {"panic", STATUS_PANIC},
	             {"reset", STATUS_RESET}};
	bool raw = false;
	char *end;
	long n;

	if (opt_timeout(p, "exit", &args, &d->timeout_ms) < 0 ||
	    need_args(p, "exit", args) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(args, names[i].name) == 0) {
			d->status = names[i].status;
			p->s->expects_panic |= d->status == STATUS_PANIC;
			return 0;
		}
	}
	if (starts_with(args, "status ")) {
		raw = true;
		args = trim(args + 7);
	}
	n = strtol(args, &end, 0);
	if (*args == '\0' || *end != '\0' || n < 0 || n > (raw ? 255 : 127))
		return fail(p,
		            "exit: expected success|failure|panic|reset, a "
		            "poweroff code 0..127 or 'status N', got '%s'",
		            args);
	d->status = raw ? (int)n : (int)n * 2 + 1;
	p->s->expects_panic |= d->status == STATUS_PANIC;
	return 0;
}

static int
parse_profiles(struct parser *p, char *args)
{
	struct script *s = p->s;

	if (need_args(p, "profiles", args) < 0)
		return -1;
	for (char *w = strtok(args, " \t"); w != NULL;
	     w = strtok(NULL, " \t")) {
		for (char *c = w; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '-' &&
			    *c != '_')
				return fail(
				    p, "profiles: bad profile name '%s'", w);
		for (int i = 0; i < s->nprofiles; i++)
			if (strcmp(s->profiles[i], w) == 0)
				return fail(p, "profiles: '%s' listed twice",
				            w);
		s->profiles = xrealloc(s->profiles, (size_t)(s->nprofiles + 1) *
		                                        sizeof(char *));
		s->profiles[s->nprofiles++] = xstrdup(w);
	}
	return 0;
}

static int
parse_modules(struct parser *p, char *args)
{
	struct script *s = p->s;

	if (need_args(p, "modules", args) < 0)
		return -1;
	for (char *w = strtok(args, " \t"); w != NULL;
	     w = strtok(NULL, " \t")) {
		/* QEMU splits -initrd on commas, so a comma cannot be escaped.
		 */
		if (strchr(w, ',') != NULL)
			return fail(p,
			            "modules: '%s': file names cannot "
			            "contain ','",
			            w);
		s->modules = xrealloc(s->modules, (size_t)(s->nmodules + 1) *
		                                      sizeof(char *));
		s->modules[s->nmodules++] = xstrdup(w);
	}
	return 0;
}

static int
parse_hostfwd(struct parser *p, char *args)
{
	struct script *s = p->s;
	char proto[8], nic[8] = "";
	int port, n;
	char extra;

	if (s->nfwd == SCRIPT_MAX_FWD)
		return fail(p, "hostfwd: at most %d forwards", SCRIPT_MAX_FWD);
	n = sscanf(args, "%7s %d %7s %c", proto, &port, nic, &extra);
	if ((n != 2 && (n != 3 || strcmp(nic, "second") != 0)) ||
	    (strcmp(proto, "udp") != 0 && strcmp(proto, "tcp") != 0) ||
	    port < 1 || port > 65535)
		return fail(p,
		            "hostfwd: expected 'udp|tcp GUESTPORT [second]', "
		            "got '%s'",
		            args);
	s->fwd[s->nfwd].proto = strcmp(proto, "udp") == 0 ? FWD_UDP : FWD_TCP;
	s->fwd[s->nfwd].guest_port = port;
	s->fwd[s->nfwd].second = n == 3;
	s->nfwd++;
	return 0;
}

static int
parse_send(struct parser *p, enum op op, char *args)
{
	struct directive *d = add(p, op);
	char msg[128];
	size_t n = strlen(args);

	if (op == OP_SEND) {
		if (check_vars(p, "send", args) < 0)
			return -1;
		d->text = xstrdup(args);
		d->textlen = n;
		return 0;
	}
	if (n < 2 || args[0] != '"' || args[n - 1] != '"')
		return fail(p, "sendraw: expected one \"quoted\" string");
	args[n - 1] = '\0';
	d->text = unescape(args + 1, &d->textlen, msg, sizeof(msg));
	if (d->text == NULL)
		return fail(p, "sendraw: %s", msg);
	return 0;
}

static int
parse_host(struct parser *p, enum op op, char *args)
{
	struct directive *d = add(p, op);

	if (opt_timeout(p, op_name(op), &args, &d->timeout_ms) < 0 ||
	    need_args(p, op_name(op), args) < 0 ||
	    check_vars(p, op_name(op), args) < 0)
		return -1;
	d->text = xstrdup(args);
	return 0;
}

static int
parse_kernel_op(struct parser *p, enum op op, char *args)
{
	struct directive *d = add(p, op);

	switch (op) {
	case OP_CTRLC:
		return no_args(p, "ctrl-c", args);
	case OP_PROMPT:
		if (opt_timeout(p, "prompt", &args, &d->timeout_ms) < 0)
			return -1;
		return no_args(p, "prompt", args);
	case OP_EXPECT:
		if (opt_timeout(p, "expect", &args, &d->timeout_ms) < 0)
			return -1;
		return compile(p, d, "expect", args);
	case OP_REJECT:
		/* Rejects are armed before any run has its variables. */
		if (strstr(args, "${") != NULL)
			return fail(p, "reject: ${VAR} is not expanded here");
		return compile(p, d, "reject", args);
	case OP_KTAP:
		if (opt_timeout(p, "ktap", &args, &d->timeout_ms) < 0)
			return -1;
		if (strpbrk(args, " \t") != NULL)
			return fail(p, "ktap: at most one suite name");
		d->text = *args ? xstrdup(args) : NULL;
		return 0;
	case OP_EXIT:
		return parse_exit(p, d, args);
	default:
		return fail(p, "internal: %s is not a kernel op", op_name(op));
	}
}

/* poll [-t SECS] COMMAND => REGEX */
static int
parse_poll(struct parser *p, char *args)
{
	struct directive *d = add(p, OP_POLL);
	char *arrow;

	if (opt_timeout(p, "poll", &args, &d->timeout_ms) < 0)
		return -1;
	if (strncmp(args, "=>", 2) == 0)
		return fail(p, "poll: no command before '=>'");
	arrow = strstr(args, " => ");
	if (arrow == NULL)
		return fail(p, "poll: expected 'COMMAND => REGEX'");
	*arrow = '\0';
	if (*trim(args) == '\0')
		return fail(p, "poll: no command before '=>'");
	if (check_vars(p, "poll", args) < 0 ||
	    compile(p, d, "poll", trim(arrow + 4)) < 0)
		return -1;
	d->aux = d->text; /* compile() stored the regex source there */
	d->text = xstrdup(trim(args));
	d->textlen = strlen(d->text);
	return 0;
}

/* An earlier stamp named name: its directive index, or -1. */
static int
find_stamp(const struct script *s, const char *name)
{
	for (int i = 0; i < s->nd; i++)
		if (s->d[i].op == OP_STAMP && s->d[i].aux != NULL &&
		    strcmp(s->d[i].aux, name) == 0)
			return i;
	return -1;
}

/* stamp [-t SECS] NAME REGEX, REGEX with (the guest's seconds) in it */
static int
parse_stamp(struct parser *p, char *args)
{
	struct directive *d = add(p, OP_STAMP);
	char *name, *re;

	if (opt_timeout(p, "stamp", &args, &d->timeout_ms) < 0)
		return -1;
	name = args;
	re = name + strcspn(name, " \t");
	if (*re != '\0')
		*re++ = '\0';
	if (*name == '\0')
		return fail(p, "stamp: expected 'NAME REGEX'");
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return fail(p, "stamp: bad name '%s'", name);
	if (find_stamp(p->s, name) >= 0)
		return fail(p, "stamp: '%s' used twice", name);
	d->aux = xstrdup(name);
	if (compile(p, d, "stamp", trim(re)) < 0)
		return -1;
	if (d->re.re_nsub < 1)
		return fail(p, "stamp: the regex needs a (group) around the "
		               "guest's time in seconds");
	return 0;
}

/* elapsed NAME1 NAME2 PCT% */
static int
parse_elapsed(struct parser *p, char *args)
{
	struct directive *d = add(p, OP_ELAPSED);
	char a[64], b[64], pct[32], extra, *end;

	if (sscanf(args, "%63s %63s %31s %c", a, b, pct, &extra) != 3)
		return fail(p,
		            "elapsed: expected 'STAMP1 STAMP2 PERCENT%%', "
		            "got '%s'",
		            args);
	for (int i = 0; i < 2; i++) {
		const char *n = i == 0 ? a : b;

		d->stamp[i] = find_stamp(p->s, n);
		if (d->stamp[i] < 0)
			return fail(
			    p, "elapsed: no stamp '%s' before this line", n);
	}
	if (d->stamp[0] == d->stamp[1])
		return fail(p, "elapsed: needs two different stamps");
	errno = 0;
	d->pct = strtod(pct, &end);
	if (*end == '%')
		end++;
	if (end == pct || *end != '\0' || errno != 0 || !(d->pct > 0) ||
	    d->pct > 100)
		return fail(p, "elapsed: '%s' is not a percentage (0..100]",
		            pct);
	d->text = xasprintf("%s %s", a, b);
	return 0;
}

static int
parse_line(struct parser *p, char *line)
{
	struct script *s = p->s;
	char *args = line + strcspn(line, " \t");
	char *dir = line;
	int ms;

	if (*args != '\0')
		*args++ = '\0';
	args = trim(args);

	if (strcmp(dir, "profiles") == 0)
		return parse_profiles(p, args);
	if (strcmp(dir, "cmdline") == 0) {
		if (need_args(p, dir, args) < 0)
			return -1;
		if (s->cmdline != NULL)
			return fail(p, "cmdline given twice; put all "
			               "parameters on one line");
		s->cmdline = xstrdup(args);
		s->needs_qemu = true;
		return 0;
	}
	if (strcmp(dir, "modules") == 0) {
		s->needs_qemu = true;
		return parse_modules(p, args);
	}
	if (strcmp(dir, "timeout") == 0)
		return parse_seconds(p, dir, args, &p->timeout_ms);
	if (strcmp(dir, "limit") == 0)
		return parse_seconds(p, dir, args, &s->limit_ms);
	if (strcmp(dir, "hostfwd") == 0) {
		s->needs_qemu = true;
		return parse_hostfwd(p, args);
	}
	if (strcmp(dir, "gdbstub") == 0) {
		s->gdbstub = true;
		s->needs_qemu = true;
		return no_args(p, dir, args);
	}
	if (strcmp(dir, "audit-allow") == 0) {
		char *reason = args + strcspn(args, " \t");

		if (*reason != '\0')
			*reason++ = '\0';
		reason = trim(reason);
		if (!audit_known_field(args))
			return fail(
			    p,
			    "audit-allow: '%s' is not a field the audit "
			    "judges (audit_rules[] in audit.c, %s, %s)",
			    args, AUDIT_WINDOW, AUDIT_UNNAMED);
		if (*reason == '\0')
			return fail(p, "audit-allow: %s needs a reason", args);
		s->allow_field = xrealloc(
		    s->allow_field, (size_t)(s->nallow + 1) * sizeof(char *));
		s->allow_reason = xrealloc(
		    s->allow_reason, (size_t)(s->nallow + 1) * sizeof(char *));
		s->allow_field[s->nallow] = xstrdup(args);
		s->allow_reason[s->nallow++] = xstrdup(reason);
		return 0;
	}
	if (strcmp(dir, "pcap") == 0) {
		s->pcap = true;
		return no_args(p, dir, args);
	}
	if (strcmp(dir, "tftp") == 0) {
		if (need_args(p, dir, args) < 0)
			return -1;
		if (s->tftp_dir != NULL)
			return fail(p, "tftp given twice");
		/* One directory, no separators QEMU's option parser would
		 * take for its own. */
		if (strpbrk(args, " \t,=") != NULL)
			return fail(p,
			            "tftp: expected one directory without "
			            "blanks, ',' or '=', got '%s'",
			            args);
		s->tftp_dir = xstrdup(args);
		s->needs_qemu = true;
		return 0;
	}
	if (strcmp(dir, "send") == 0 || strcmp(dir, "sendraw") == 0) {
		s->needs_qemu = true;
		return parse_send(p, dir[4] ? OP_SENDRAW : OP_SEND, args);
	}
	if (strcmp(dir, "host") == 0)
		return parse_host(p, OP_HOST, args);
	if (strcmp(dir, "host-ktap") == 0)
		return parse_host(p, OP_HOST_KTAP, args);
	if (strcmp(dir, "peer") == 0) {
		s->needs_qemu = true; /* the namespace comes with QEMU's NICs */
		return parse_host(p, OP_PEER, args);
	}
	if (strcmp(dir, "poll") == 0) {
		s->needs_qemu = true;
		return parse_poll(p, args);
	}
	if (strcmp(dir, "stamp") == 0) {
		s->needs_qemu = true;
		return parse_stamp(p, args);
	}
	if (strcmp(dir, "elapsed") == 0)
		return parse_elapsed(p, args);
	if (strcmp(dir, "sleep") == 0) {
		if (parse_seconds(p, dir, args, &ms) < 0)
			return -1;
		add(p, OP_SLEEP)->timeout_ms = ms;
		return 0;
	}
	for (enum op op = OP_CTRLC; op <= OP_EXIT; op++) {
		if (strcmp(dir, op_name(op)) == 0) {
			s->needs_qemu = true;
			return parse_kernel_op(p, op, args);
		}
	}
	return fail(p, "unknown directive '%s' (see docs/harness.md)", dir);
}

char *
script_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 4 && strcmp(base + n - 4, ".scn") == 0)
		n -= 4;
	return xstrndup(base, n);
}

struct script *
script_parse(const char *path, const char *text, char *err, size_t errlen)
{
	struct script *s = xcalloc(1, sizeof(*s));
	struct parser p = {s, path, 0, DEFAULT_TIMEOUT_S * 1000, err, errlen};
	char *copy = xstrdup(text), *line, *next;
	int rc = 0;

	s->path = xstrdup(path);
	s->name = script_name(path);
	s->limit_ms = DEFAULT_LIMIT_S * 1000;
	for (line = copy; line != NULL && rc == 0; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		p.line++;
		line = trim(line);
		if (*line == '\0' || *line == '#')
			continue;
		rc = parse_line(&p, line);
	}
	free(copy);
	if (rc == 0 && s->nd == 0) {
		snprintf(err, errlen,
		         "%s:1: scenario has no directive that does anything",
		         path);
		rc = -1;
	}
	if (rc == 0 && s->nprofiles == 0) {
		s->profiles = xcalloc(1, sizeof(char *));
		s->profiles[s->nprofiles++] = xstrdup("default");
	}
	if (rc < 0) {
		script_free(s);
		return NULL;
	}
	return s;
}

struct script *
script_load(const char *path, char *err, size_t errlen)
{
	char *text = read_file(path);
	struct script *s;

	if (text == NULL) {
		snprintf(err, errlen, "%s:0: cannot read: %s", path,
		         strerror(errno));
		return NULL;
	}
	s = script_parse(path, text, err, errlen);
	free(text);
	return s;
}

void
script_free(struct script *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->nd; i++) {
		if (s->d[i].has_re)
			regfree(&s->d[i].re);
		free(s->d[i].text);
		free(s->d[i].aux);
	}
	for (int i = 0; i < s->nprofiles; i++)
		free(s->profiles[i]);
	for (int i = 0; i < s->nmodules; i++)
		free(s->modules[i]);
	free(s->profiles);
	free(s->modules);
	free(s->d);
	free(s->cmdline);
	free(s->tftp_dir);
	for (int i = 0; i < s->nallow; i++) {
		free(s->allow_field[i]);
		free(s->allow_reason[i]);
	}
	free(s->allow_field);
	free(s->allow_reason);
	free(s->name);
	free(s->path);
	free(s);
}

char *
expand_vars(const char *text,
            const char *(*lookup)(const char *name, void *ctx), void *ctx,
            char *err, size_t errlen)
{
	struct strbuf sb;
	const char *p = text;

	sb_init(&sb);
	while (*p) {
		const char *end, *val;
		char *name;

		if (p[0] != '$' || p[1] != '{') {
			sb_add(&sb, p++, 1);
			continue;
		}
		end = strchr(p, '}');
		if (end == NULL) {
			snprintf(err, errlen, "unterminated '${'");
			sb_free(&sb);
			return NULL;
		}
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		val = lookup(name, ctx);
		if (val == NULL) {
			snprintf(
			    err, errlen,
			    "unknown variable '${%s}' (PROFILE SMP MEM NIC "
			    "BOOT NETn_QEMU NETn_PEER NETNS PEER GUEST PEERn "
			    "GUESTn LOG PCAPn, PORTn after hostfwd, GDBPORT "
			    "after "
			    "gdbstub)",
			    name);
			free(name);
			sb_free(&sb);
			return NULL;
		}
		free(name);
		sb_adds(&sb, val);
		p = end + 1;
	}
	return sb.buf;
}
