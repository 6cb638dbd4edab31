/*
 * sysctl: read every parameter, read one, or set a writable one.
 */
#include <kernel/console/shell.h>
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/bootparam.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>

static void
show(const struct bootparam *p, bool verbose)
{
	char v[128];

	bootparam_format(p, v, sizeof(v));
	if (verbose)
		kprintf("%s = %s  (%s%s)\n", p->name, v, p->desc,
		        p->writable ? "" : "; boot only");
	else
		kprintf("%s = %s\n", p->name, v);
}

static int
cmd_sysctl(int argc, char **argv)
{
	const struct bootparam *p;
	char name[64], err[96];
	struct args a;
	char *eq;
	int r;

	if (args_parse(&a, "sysctl", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	if (a.npos == 0) {
		for (size_t i = 0; (p = bootparam_at(i)) != NULL; i++)
			show(p, true);
		return 0;
	}
	strlcpy(name, a.pos[0], sizeof(name));
	eq = strchr(name, '=');
	if (eq != NULL)
		*eq = '\0';
	p = bootparam_find(name);
	if (p == NULL)
		return cmd_error("sysctl", -ENOENT, "no parameter '%s'", name);
	if (eq == NULL) {
		show(p, false);
		return 0;
	}
	if (!p->writable)
		return cmd_error("sysctl", -EPERM,
		                 "%s can only be set on the kernel command "
		                 "line",
		                 name);
	r = bootparam_set(p, strchr(a.pos[0], '=') + 1, err, sizeof(err));
	if (r != 0)
		return cmd_error("sysctl", r, "%s: %s", name, err);
	show(p, false);
	return 0;
}
COMMAND(sysctl, "sysctl [NAME[=VALUE]]",
        "show boot parameters and sysctls, or set a writable one", cmd_sysctl);
