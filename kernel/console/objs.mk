# The kernel's objects from kernel/console/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/console/args.c \
	kernel/console/cmd_sys.c \
	kernel/console/cmd_sysctl.c \
	kernel/console/console.c \
	kernel/console/printk.c \
	kernel/console/shell.c \
	kernel/console/vsprintf.c
