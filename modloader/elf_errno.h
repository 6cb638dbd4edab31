/*
 * errno-style codes returned (negated) by the ELF loader core.
 *
 * The kernel has no libc, so the loader defines the few it uses.  Values
 * are Linux's, so a host build that also sees <errno.h> agrees with them,
 * and a kernel errno header with the same values can coexist.
 */
#ifndef MODLOADER_ELF_ERRNO_H
#define MODLOADER_ELF_ERRNO_H

#ifndef ENOENT
#define ENOENT 2 /* a symbol or section was not found */
#endif
#ifndef ENOEXEC
#define ENOEXEC 8 /* not an object file this loader accepts */
#endif
#ifndef ENOMEM
#define ENOMEM 12 /* caller-supplied memory missing or too small */
#endif
#ifndef EINVAL
#define EINVAL 22 /* bad argument or API misuse */
#endif
#ifndef EFBIG
#define EFBIG 27 /* module image would exceed ELF_MOD_MAX_IMAGE */
#endif
#ifndef ERANGE
#define ERANGE 34 /* a value lies outside the object it refers to */
#endif

#endif /* MODLOADER_ELF_ERRNO_H */
