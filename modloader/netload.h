/*
 * Loading modules that arrive at run time (modloader/netload.c), for the
 * TFTP client and anything else that fetches a .ko into memory.
 */
#ifndef MODLOADER_NETLOAD_H
#define MODLOADER_NETLOAD_H

#include <stddef.h>

/* Keep a copy of the file as a boot module called name (then `insmod
 * NAME` finds it).  0, -EEXIST, -ENOSPC, -EFBIG, -ENOMEM, -EINVAL. */
int module_add_buffer(const char *name, const void *data, size_t size);
/* module_add_buffer, then load it like `insmod name argv..`; err gets
 * the reason on failure, modname the module's own name on success. */
int module_load_buffer(const char *name, const void *data, size_t size,
                       int argc, char **argv, char *modname, char *err,
                       size_t errlen);

#endif
