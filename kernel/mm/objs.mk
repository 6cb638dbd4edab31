# The kernel's objects from kernel/mm/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/mm/cmd_mem.c \
	kernel/mm/kfence.c \
	kernel/mm/kmalloc.c \
	kernel/mm/memtag.c \
	kernel/mm/page_alloc.c \
	kernel/mm/paging.c
