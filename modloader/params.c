/*
 * Module parameters: the __param table a module declares with
 * MODULE_PARAM, checked at load time, set from `insmod NAME k=v ...`
 * before init runs.  The table comes from an untrusted file, so every
 * pointer in it is checked against the module's own image first: names
 * and descriptions must be strings inside the image, variables must lie
 * wholly in its writable part and have the size their type says.
 */
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>
#include "modloader/module_internal.h"

#define PARAM_NAME_MAX   32
#define PARAM_DESC_MAX   128
#define PARAM_STRING_MAX 256

static const char *
type_name(uint32_t t)
{
	switch (t) {
	case MODULE_PARAM_INT:
		return "int";
	case MODULE_PARAM_UINT:
		return "uint";
	case MODULE_PARAM_BOOL:
		return "bool";
	case MODULE_PARAM_STRING:
		return "string";
	}
	return "?";
}

static bool
size_ok(const struct module_param *p)
{
	switch (p->type) {
	case MODULE_PARAM_INT:
	case MODULE_PARAM_UINT:
		return p->size == sizeof(int);
	case MODULE_PARAM_BOOL:
		return p->size == sizeof(bool);
	case MODULE_PARAM_STRING:
		return p->size >= 1 && p->size <= PARAM_STRING_MAX;
	}
	return false;
}

/* Checks, for each entry: name a short string in the image, description
 * NULL or a string in the image, a known type whose size matches,
 * the variable inside the writable part of the image, and no two
 * parameters with one name.  A string parameter must hold a terminated
 * default. */
int
module_params_check(struct module *mod, char *err, size_t errlen)
{
	uintptr_t wstart = mod->base + mod->ro_size,
	          end = mod->base + mod->size;

	for (unsigned i = 0; i < mod->nparams; i++) {
		const struct module_param *p = &mod->params[i];
		uintptr_t v = (uintptr_t)p->var;

		if (!module_image_string(mod, p->name, PARAM_NAME_MAX)) {
			snprintf(err, errlen, "parameter %u: bad name pointer",
			         i);
			return -ENOEXEC;
		}
		if (p->desc != NULL &&
		    !module_image_string(mod, p->desc, PARAM_DESC_MAX)) {
			snprintf(err, errlen,
			         "parameter %s: bad description pointer",
			         p->name);
			return -ENOEXEC;
		}
		if (!size_ok(p)) {
			snprintf(err, errlen,
			         "parameter %s: type %u with size %u", p->name,
			         (unsigned)p->type, (unsigned)p->size);
			return -ENOEXEC;
		}
		if (v < wstart || v >= end || p->size > end - v) {
			snprintf(err, errlen,
			         "parameter %s: variable at %08x is not in the "
			         "module's writable data",
			         p->name, (unsigned)v);
			return -ENOEXEC;
		}
		if (p->type == MODULE_PARAM_STRING &&
		    strnlen(p->var, p->size) == p->size) {
			snprintf(err, errlen,
			         "parameter %s: default is not terminated",
			         p->name);
			return -ENOEXEC;
		}
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(mod->params[j].name, p->name) == 0) {
				snprintf(err, errlen,
				         "parameter %s declared twice",
				         p->name);
				return -ENOEXEC;
			}
		}
	}
	return 0;
}

static const struct module_param *
find_param(struct module *mod, const char *name, size_t len)
{
	for (unsigned i = 0; i < mod->nparams; i++) {
		const struct module_param *p = &mod->params[i];
		if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
			return p;
	}
	return NULL;
}

static int
parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1", "y", "yes", "on", "true"};
	static const char *const no[] = {"0", "n", "no", "off", "false"};

	for (unsigned i = 0; i < 5; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int
set_param(const struct module_param *p, const char *val, char *err,
          size_t errlen)
{
	long l;
	unsigned long ul;
	bool b;

	switch (p->type) {
	case MODULE_PARAM_INT:
		if (parse_long(val, &l) != 0 || l < -2147483647L - 1 ||
		    l > 2147483647L)
			break;
		*(int *)p->var = (int)l;
		return 0;
	case MODULE_PARAM_UINT:
		if (parse_ulong(val, &ul) != 0 || ul > 0xffffffffUL)
			break;
		*(unsigned int *)p->var = (unsigned int)ul;
		return 0;
	case MODULE_PARAM_BOOL:
		if (parse_bool(val, &b) != 0)
			break;
		*(bool *)p->var = b;
		return 0;
	case MODULE_PARAM_STRING:
		if (strlen(val) >= p->size) {
			snprintf(err, errlen,
			         "parameter %s: value longer than %u bytes",
			         p->name, (unsigned)p->size - 1);
			return -EINVAL;
		}
		strlcpy(p->var, val, p->size);
		return 0;
	}
	snprintf(err, errlen, "parameter %s: '%s' is not a valid %s", p->name,
	         val, type_name(p->type));
	return -EINVAL;
}

int
module_params_apply(struct module *mod, int argc, char **argv, char *err,
                    size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct module_param *p;
		int r;

		if (eq == NULL || eq == argv[i]) {
			snprintf(err, errlen,
			         "'%s': parameters are written name=value",
			         argv[i]);
			return -EINVAL;
		}
		p = find_param(mod, argv[i], (size_t)(eq - argv[i]));
		if (p == NULL) {
			snprintf(err, errlen, "unknown parameter '%.*s'%s",
			         (int)(eq - argv[i]), argv[i],
			         mod->nparams == 0 ? " (the module has none)"
			                           : " (modinfo lists them)");
			return -EINVAL;
		}
		r = set_param(p, eq + 1, err, errlen);
		if (r != 0)
			return r;
	}
	return 0;
}

void
module_param_format(const struct module_param *p, char *buf, size_t size)
{
	switch (p->type) {
	case MODULE_PARAM_INT:
		snprintf(buf, size, "%d", *(int *)p->var);
		break;
	case MODULE_PARAM_UINT:
		snprintf(buf, size, "%u", *(unsigned int *)p->var);
		break;
	case MODULE_PARAM_BOOL:
		snprintf(buf, size, "%s", *(bool *)p->var ? "y" : "n");
		break;
	case MODULE_PARAM_STRING:
		snprintf(buf, size, "\"%s\"", (const char *)p->var);
		break;
	default:
		snprintf(buf, size, "?");
	}
}

const char *
module_param_type_name(uint32_t t)
{
	return type_name(t);
}
