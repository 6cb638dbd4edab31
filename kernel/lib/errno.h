/*
 * Error numbers.  Kernel functions return 0 or -ENAME; the console prints
 * the name (errno_name) because users read names, not numbers.
 */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

#define EPERM           1
#define ENOENT          2
#define ESRCH           3
#define EINTR           4
#define EIO             5
#define ENXIO           6
#define E2BIG           7
#define ENOEXEC         8
#define EAGAIN          11
#define ENOMEM          12
#define EFAULT          14
#define EFBIG           27
#define EPIPE           32
#define EBUSY           16
#define EEXIST          17
#define ENODEV          19
#define EINVAL          22
#define ENOSPC          28
#define ERANGE          34
#define ENOSYS          38
#define ENOTEMPTY       39
#define EPROTONOSUPPORT 93
#define EADDRINUSE      98
#define ENETDOWN        100
#define ENETUNREACH     101
#define ECONNABORTED    103
#define ECONNRESET      104
#define ENOTCONN        107
#define ETIMEDOUT       110
#define ECONNREFUSED    111
#define EHOSTUNREACH    113
#define EALREADY        114
#define EINPROGRESS     115

const char *errno_name(int err);

#endif
