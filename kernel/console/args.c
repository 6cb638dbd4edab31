/*
 * Shell argument parsing (see args.h).
 */
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>

unsigned args_refusals;
char args_refused_cmd[32];

static int
refuse_va(const char *cmd, int err, bool usage, const char *fmt, va_list ap)
{
	const struct command *c = command_find(cmd);
	char msg[160];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	kprintf("%s: %s: %s\n", cmd, errno_name(err), msg);
	if (usage)
		kprintf("usage: %s\n", c != NULL ? c->usage : cmd);
	strlcpy(args_refused_cmd, cmd, sizeof(args_refused_cmd));
	__atomic_add_fetch(&args_refusals, 1, __ATOMIC_RELAXED);
	return -err;
}

static int
refuse(const char *cmd, int err, bool usage, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = refuse_va(cmd, err, usage, fmt, ap);
	va_end(ap);
	return r;
}

int
cmd_refuse(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = refuse_va(cmd, EINVAL, true, fmt, ap);
	va_end(ap);
	return r;
}

int
args_refuse(const struct args *a, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = refuse_va(a->cmd, EINVAL, true, fmt, ap);
	va_end(ap);
	return r;
}

/* Index of a flag letter in given/val, or -1. */
static int
flag_index(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return 26 + c - 'A';
	return -1;
}

/* In spec: 0 not a flag, 1 a flag, 2 a flag with a value. */
static int
flag_kind(const char *spec, char c)
{
	if (flag_index(c) < 0)
		return 0;
	for (const char *s = spec; *s != '\0'; s++)
		if (*s == c)
			return s[1] == ':' ? 2 : 1;
	return 0;
}

/* One "-abc" word at argv[*i]; may take the next word as a value. */
static int
parse_flags(struct args *a, const char *spec, int argc, char **argv, int *i)
{
	const char *w = argv[*i];

	for (int k = 1; w[k] != '\0'; k++) {
		char c = w[k];
		int kind = flag_kind(spec, c), idx = flag_index(c);

		if (kind == 0)
			return args_refuse(a, "unknown flag -%c", c);
		if (a->given & (1ull << idx))
			return args_refuse(a, "flag -%c given twice", c);
		a->given |= 1ull << idx;
		if (kind == 1)
			continue;
		if (w[k + 1] != '\0') {
			a->val[idx] = w + k + 1;
		} else if (*i + 1 < argc) {
			a->val[idx] = argv[++*i];
		} else {
			return args_refuse(a, "flag -%c needs a value", c);
		}
		break;
	}
	return 0;
}

int
args_parse(struct args *a, const char *cmd, int argc, char **argv,
           const char *spec, int min, int max)
{
	bool flags = true;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->argv[0] = argv[0];
	a->pos = a->argv + 1;
	for (int i = 1; i < argc; i++) {
		char *w = argv[i];

		if (flags && strcmp(w, "--") == 0) {
			flags = false;
		} else if (flags && w[0] == '-' && w[1] != '\0') {
			if (parse_flags(a, spec, argc, argv, &i) < 0)
				return -EINVAL;
		} else {
			if (max != ARGS_ANY && a->npos == max)
				return args_refuse(
				    a, "unexpected argument '%s'", w);
			if (a->npos == SHELL_MAX_ARGS - 1)
				return args_refuse(a, "too many arguments");
			a->pos[a->npos++] = w;
		}
	}
	a->argc = a->npos + 1;
	if (a->npos < min)
		return args_refuse(a, "missing argument%s",
		                   min - a->npos > 1 ? "s" : "");
	return 0;
}

bool
args_has(const struct args *a, char flag)
{
	int idx = flag_index(flag);

	return idx >= 0 && (a->given & (1ull << idx)) != 0;
}

const char *
args_val(const struct args *a, char flag)
{
	int idx = flag_index(flag);

	return idx >= 0 ? a->val[idx] : NULL;
}

int
args_num(const struct args *a, const char *what, const char *s,
         unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;

	if (parse_ulong(s, &v) != 0)
		return args_refuse(a, "%s '%s' is not a number", what, s);
	if (v < min || v > max)
		return refuse(a->cmd, ERANGE, false,
		              "%s %lu is out of range %lu..%lu", what, v, min,
		              max);
	*out = v;
	return 0;
}

int
args_flag_num(const struct args *a, char flag, const char *what,
              unsigned long min, unsigned long max, unsigned long *out)
{
	const char *v = args_val(a, flag);

	return v == NULL ? 0 : args_num(a, what, v, min, max, out);
}
