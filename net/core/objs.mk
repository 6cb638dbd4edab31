# The kernel's objects from net/core/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	net/core/bounce.c \
	net/core/dev.c \
	net/core/dev_check.c \
	net/core/dev_holder.c \
	net/core/dev_legacy.c \
	net/core/dev_refcnt.c \
	net/core/dev_xmit.c \
	net/core/driver_unload.c \
	net/core/napi.c \
	net/core/refmode.c \
	net/core/refmode_legacy.c \
	net/core/refmode_owner.c \
	net/core/refmode_pinned.c \
	net/core/refmode_wait.c \
	net/core/skbuff.c \
	net/core/unregister.c
