/*
 * Boot parameter parsing and validation (see bootparam.h).
 */
#include <kernel/bootparam.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include <kernel/console/printk.h>

extern const struct bootparam __bootparams_start[], __bootparams_end[];

char boot_cmdline[256];
BOOTPARAM_STRING(cmdline, boot_cmdline, "the kernel command line as given", 0);

const struct bootparam *
bootparam_at(size_t i)
{
	const struct bootparam *p = __bootparams_start + i;
	return p < __bootparams_end ? p : NULL;
}

const struct bootparam *
bootparam_find(const char *name)
{
	for (const struct bootparam *p = __bootparams_start;
	     p < __bootparams_end; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Index of word in a "a|b|c" list, or -1. */
static int
choice_index(const char *choices, const char *word)
{
	size_t wl = strlen(word);
	int i = 0;

	for (const char *s = choices; *s != '\0'; i++) {
		const char *bar = strchr(s, '|');
		size_t l = bar != NULL ? (size_t)(bar - s) : strlen(s);
		if (l == wl && strncmp(s, word, l) == 0)
			return i;
		s += l + (bar != NULL);
	}
	return -1;
}

int
bootparam_set(const struct bootparam *p, const char *value, char *err,
              size_t errsize)
{
	long v;
	int idx;

	switch (p->type) {
	case BP_INT:
		if (parse_long(value, &v) != 0) {
			snprintf(err, errsize, "'%s' is not a number", value);
			return -EINVAL;
		}
		if (v < p->min || v > p->max) {
			snprintf(err, errsize, "%ld is out of range %ld..%ld",
			         v, p->min, p->max);
			return -ERANGE;
		}
		*(int *)p->var = (int)v;
		return 0;
	case BP_BOOL:
		if (strcmp(value, "1") == 0 || strcmp(value, "on") == 0 ||
		    strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
			*(int *)p->var = 1;
		else if (strcmp(value, "0") == 0 || strcmp(value, "off") == 0 ||
		         strcmp(value, "no") == 0 ||
		         strcmp(value, "false") == 0)
			*(int *)p->var = 0;
		else {
			snprintf(err, errsize, "'%s' is not a boolean (0|1)",
			         value);
			return -EINVAL;
		}
		return 0;
	case BP_ENUM:
		idx = choice_index(p->choices, value);
		if (idx < 0) {
			snprintf(err, errsize, "'%s' is not one of %s", value,
			         p->choices);
			return -EINVAL;
		}
		*(int *)p->var = idx;
		return 0;
	case BP_STRING:
		if (strlen(value) >= (size_t)p->max) {
			snprintf(err, errsize, "value longer than %ld bytes",
			         p->max - 1);
			return -ERANGE;
		}
		strlcpy(p->var, value, (size_t)p->max);
		return 0;
	}
	snprintf(err, errsize, "bad parameter type");
	return -EINVAL;
}

void
bootparam_format(const struct bootparam *p, char *buf, size_t size)
{
	int v;

	switch (p->type) {
	case BP_INT:
	case BP_BOOL:
		snprintf(buf, size, "%d", *(int *)p->var);
		return;
	case BP_ENUM: {
		const char *s = p->choices;
		v = *(int *)p->var;
		for (int i = 0; i < v && s != NULL; i++) {
			s = strchr(s, '|');
			if (s != NULL)
				s++;
		}
		if (s == NULL) {
			snprintf(buf, size, "?");
			return;
		}
		const char *bar = strchr(s, '|');
		snprintf(buf, size, "%.*s",
		         bar != NULL ? (int)(bar - s) : (int)strlen(s), s);
		return;
	}
	case BP_STRING:
		snprintf(buf, size, "%s", (const char *)p->var);
		return;
	}
}

/*
 * Both GRUB and QEMU put the kernel image's path first: skip that word,
 * whatever its length and whatever it contains ('=' included: a lab may
 * stage images under "job=42/"), unless its name part (before any '=') is
 * a parameter, so a command line without the path still works.
 */
const char *
bootparam_skip_image_path(const char *s)
{
	char name[32];
	size_t n = 0, len;

	while (*s == ' ' || *s == '\t')
		s++;
	for (len = 0; s[len] != '\0' && s[len] != ' ' && s[len] != '\t';)
		len++;
	while (n < len && s[n] != '=' && n + 1 < sizeof(name)) {
		name[n] = s[n];
		n++;
	}
	name[n] = '\0';
	if (len == 0 || ((n == len || s[n] == '=') && bootparam_find(name)))
		return s;
	s += len;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

void
bootparam_parse(const char *cmdline)
{
	char word[128], err[96];
	const char *s = cmdline;

	s = bootparam_skip_image_path(s);
	if (strlcpy(boot_cmdline, s, sizeof(boot_cmdline)) >=
	    sizeof(boot_cmdline))
		pr_warn("cmdline: longer than %u bytes; sysctl cmdline shows "
		        "it cut\n",
		        (unsigned)sizeof(boot_cmdline) - 1);
	while (*s != '\0') {
		size_t n = 0;
		const struct bootparam *p;
		char *eq;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		while (*s != '\0' && *s != ' ' && *s != '\t') {
			if (n + 1 < sizeof(word))
				word[n++] = *s;
			s++;
		}
		word[n] = '\0';
		if (n + 1 >= sizeof(word)) {
			pr_err("cmdline: parameter '%.20s...' is too long, "
			       "ignored\n",
			       word);
			continue;
		}
		eq = strchr(word, '=');
		if (eq != NULL)
			*eq = '\0';
		p = bootparam_find(word);
		if (p == NULL) {
			pr_warn("cmdline: unknown parameter '%s' ignored\n",
			        word);
			continue;
		}
		if (p->var == boot_cmdline)
			continue;
		if (eq == NULL && p->type != BP_BOOL) {
			pr_err("cmdline: %s: needs a value (%s=...)\n", word,
			       word);
			continue;
		}
		if (bootparam_set(p, eq != NULL ? eq + 1 : "1", err,
		                  sizeof(err)) != 0)
			pr_err("cmdline: %s: %s; keeping the default\n", word,
			       err);
	}
}
