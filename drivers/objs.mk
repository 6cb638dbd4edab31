# The kernel's objects from drivers/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	drivers/autoload.c \
	drivers/lspci.c \
	drivers/pci.c
