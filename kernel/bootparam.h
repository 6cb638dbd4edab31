/*
 * Boot parameters and sysctls are one thing: a named, typed, validated
 * variable.  The kernel command line sets them at boot ("k=v", or "k" for
 * a boolean); `sysctl` reads them and sets the writable ones at run time.
 * Parameters are declared where their variable lives, with the macros
 * below, and collected by the linker (section .bootparams).
 */
#ifndef KERNEL_BOOTPARAM_H
#define KERNEL_BOOTPARAM_H

#include <stddef.h>

enum bootparam_type { BP_INT, BP_BOOL, BP_ENUM, BP_STRING };

struct bootparam {
	const char *name;
	enum bootparam_type type;
	void *var;           /* int for INT/BOOL/ENUM (enum: index), char[] */
	long min, max;       /* INT range; STRING: buffer size in max */
	const char *choices; /* ENUM: "a|b|c" */
	const char *desc;
	int writable; /* may sysctl change it after boot? */
};

#define BOOTPARAM_DEFINE(n, t, v, lo, hi, ch, d, w)                            \
	static const struct bootparam __bootparam_##n                          \
	    __attribute__((section(".bootparams"), used, aligned(4))) = {      \
	        #n, t, &(v), lo, hi, ch, d, w}

#define BOOTPARAM_INT(n, v, lo, hi, d, w)                                      \
	BOOTPARAM_DEFINE(n, BP_INT, v, lo, hi, NULL, d, w)
#define BOOTPARAM_BOOL(n, v, d, w)                                             \
	BOOTPARAM_DEFINE(n, BP_BOOL, v, 0, 1, NULL, d, w)
#define BOOTPARAM_ENUM(n, v, ch, d, w)                                         \
	BOOTPARAM_DEFINE(n, BP_ENUM, v, 0, 0, ch, d, w)
#define BOOTPARAM_STRING(n, v, d, w)                                           \
	BOOTPARAM_DEFINE(n, BP_STRING, v, 0, sizeof(v), NULL, d, w)

/* Parse the whole command line; reports each bad item on the console. */
void bootparam_parse(const char *cmdline);
/* cmdline after the kernel image's path that loaders put first. */
const char *bootparam_skip_image_path(const char *cmdline);
const struct bootparam *bootparam_find(const char *name);
/* Set from text; 0 or -EINVAL/-ERANGE with a reason in err. */
int bootparam_set(const struct bootparam *p, const char *value, char *err,
                  size_t errsize);
void bootparam_format(const struct bootparam *p, char *buf, size_t size);
/* Iterate: i from 0 until NULL. */
const struct bootparam *bootparam_at(size_t i);

extern char boot_cmdline[256];

#endif
