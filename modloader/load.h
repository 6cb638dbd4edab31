/*
 * Loading modules: the module loader's API for the layers above it
 * (driver autoload, the TFTP client, the insmod command).  A module is
 * named the way a user names it: its file among the boot modules (NAME
 * or NAME.ko), or an alias its .modinfo declares (MODULE_INFO(alias,
 * "pci:v00008086d0000100E") next to a driver's ID table), as Linux's
 * modprobe resolves modules.alias.
 */
#ifndef MODLOADER_LOAD_H
#define MODLOADER_LOAD_H

#include <stddef.h>

/* The boot module file name stands for: the file name or name.ko, else
 * the first file whose .modinfo has alias=name and whose module is not
 * loaded.  0 with file (at most size bytes) set; -ENOENT if nothing
 * matches, -EEXIST if only loaded modules declare the alias; err gets
 * one line either way. */
int module_find_file(const char *name, char *file, size_t size, char *err,
                     size_t errlen);

/* module_find_file, then load that file with the parameters argv[0..argc)
 * ("k=v", like `insmod NAME k=v`).  0 with modname (MODULE_NAME_LEN
 * bytes, may be NULL) set to the module's own name, else -errno and one
 * line in err saying why (no such file or alias, a bad file, a bad
 * parameter, init failed). */
int module_load_by_name(const char *name, int argc, char **argv, char *modname,
                        char *err, size_t errlen);

/* Keep a copy of a file that arrived at run time as a boot module called
 * name (modloader/netload.c), so module_load_by_name(name) loads it and
 * `insmod -l` lists it.  0, or -EEXIST, -EFBIG, -ENOMEM, -EINVAL with one
 * line in err. */
int module_add_buffer(const char *name, const void *data, size_t size,
                      char *err, size_t errlen);

#endif
