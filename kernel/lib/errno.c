/*
 * errno_name: the symbolic name users see in error lines.
 */
#include <kernel/lib/errno.h>

const char *
errno_name(int err)
{
	static const struct {
		int n;
		const char *name;
	} names[] = {
	    {EPERM, "EPERM"},
	    {ENOENT, "ENOENT"},
	    {ESRCH, "ESRCH"},
	    {EINTR, "EINTR"},
	    {EIO, "EIO"},
	    {ENXIO, "ENXIO"},
	    {E2BIG, "E2BIG"},
	    {ENOEXEC, "ENOEXEC"},
	    {EAGAIN, "EAGAIN"},
	    {ENOMEM, "ENOMEM"},
	    {EFAULT, "EFAULT"},
	    {EFBIG, "EFBIG"},
	    {EPIPE, "EPIPE"},
	    {EBUSY, "EBUSY"},
	    {EEXIST, "EEXIST"},
	    {ENODEV, "ENODEV"},
	    {EINVAL, "EINVAL"},
	    {ENOSPC, "ENOSPC"},
	    {ERANGE, "ERANGE"},
	    {ENOSYS, "ENOSYS"},
	    {ENOTEMPTY, "ENOTEMPTY"},
	    {EPROTONOSUPPORT, "EPROTONOSUPPORT"},
	    {EADDRINUSE, "EADDRINUSE"},
	    {ENETDOWN, "ENETDOWN"},
	    {ENETUNREACH, "ENETUNREACH"},
	    {ECONNABORTED, "ECONNABORTED"},
	    {ECONNRESET, "ECONNRESET"},
	    {ENOTCONN, "ENOTCONN"},
	    {ETIMEDOUT, "ETIMEDOUT"},
	    {ECONNREFUSED, "ECONNREFUSED"},
	    {EHOSTUNREACH, "EHOSTUNREACH"},
	    {EALREADY, "EALREADY"},
	    {EINPROGRESS, "EINPROGRESS"},
	};

	if (err < 0)
		err = -err;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].n == err)
			return names[i].name;
	return "EUNKNOWN";
}
