/*
 * tftp: fetch files from a TFTP server (QEMU's is 10.0.2.2) and load
 * modules from it.
 *
 *   tftp get tftp://SERVER/NAME | tftp get NAME
 *       fetch; print the size, time and FNV-1a hash (as `pkt dump` and
 *       tests/net/rawpeer compute it), then free it
 *   tftp insmod tftp://SERVER/NAME.ko [k=v..] | tftp insmod NAME.ko ..
 *       fetch and load: the file is kept as a boot module called
 *       NAME.ko (modloader/netload.c), so a later `insmod NAME` finds it
 *
 * Without a server, 10.0.2.2 (QEMU user networking's host address).
 */
#include "net/ipv4/inet.h"
#include "modloader/load.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define TFTP_DEFAULT_SERVER IP4(10, 0, 2, 2)

/* "tftp://A.B.C.D/NAME" or "NAME" -> server, name (inside url). */
static int
parse_url(const char *url, uint32_t *server, const char **name)
{
	char host[16];
	const char *slash;

	*server = TFTP_DEFAULT_SERVER;
	if (strncmp(url, "tftp://", 7) != 0) {
		*name = url;
		return url[0] != '\0' ? 0 : -EINVAL;
	}
	url += 7;
	slash = strchr(url, '/');
	if (slash == NULL || slash == url || slash - url >= 16 ||
	    slash[1] == '\0')
		return -EINVAL;
	memcpy(host, url, (size_t)(slash - url));
	host[slash - url] = '\0';
	*name = slash + 1;
	return inet_aton(host, server);
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static int
cmd_tftp(int argc, char **argv)
{
	char msg[120], err[160], modname[MODULE_NAME_LEN];
	const char *name;
	uint32_t server;
	uint8_t *data = NULL;
	size_t len = 0;
	uint64_t t0;
	struct args a;
	bool load;
	int r;

	if (args_parse(&a, "tftp", argc, argv, "", 2, ARGS_ANY) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	if (strcmp(argv[1], "get") != 0 && strcmp(argv[1], "insmod") != 0)
		return args_refuse(&a, "unknown action '%s'", argv[1]);
	if (strcmp(argv[1], "get") == 0 && argc != 3)
		return args_refuse(&a, "get takes one URL");
	load = strcmp(argv[1], "insmod") == 0;
	if (parse_url(argv[2], &server, &name) != 0)
		return cmd_error("tftp", -EINVAL,
		                 "bad location '%s' (tftp://A.B.C.D/NAME)",
		                 argv[2]);
	t0 = now_ms();
	r = tftp_get(server, name, &data, &len, msg, sizeof(msg));
	if (r != 0)
		return cmd_error("tftp", r, "%s: %s", name, msg);
	kprintf("tftp: %s: %zu bytes in %llu ms, fnv %08x\n", name, len,
	        now_ms() - t0, fnv1a32(data, len));
	if (!load) {
		kfree(data);
		return 0;
	}
	if (len == 0) {
		kfree(data);
		return cmd_error("tftp", -ENOEXEC, "%s is empty", name);
	}
	/* Kept as a boot module, then loaded by name like `insmod`. */
	r = module_add_buffer(base_name(name), data, len, err, sizeof(err));
	kfree(data);
	if (r == 0)
		r = module_load_by_name(base_name(name), argc - 3, argv + 3,
		                        modname, err, sizeof(err));
	if (r != 0)
		return cmd_error("tftp", r, "insmod %s: %s", base_name(name),
		                 err);
	kprintf("tftp: insmod %s: module %s loaded\n", base_name(name),
	        modname);
	return 0;
}
COMMAND(tftp,
        "tftp get tftp://SERVER/NAME | tftp insmod tftp://SERVER/NAME.ko "
        "[k=v..]",
        "fetch a file (or a module, and load it) over TFTP", cmd_tftp);
