# The kernel's objects from modloader/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	modloader/area.c \
	modloader/byname.c \
	modloader/cmd_module.c \
	modloader/elf_check.c \
	modloader/elf_err.c \
	modloader/elf_layout.c \
	modloader/elf_load.c \
	modloader/elf_lookup.c \
	modloader/elf_modinfo.c \
	modloader/elf_reloc.c \
	modloader/graveyard.c \
	modloader/hooks.c \
	modloader/load.c \
	modloader/module.c \
	modloader/module_check.c \
	modloader/netload.c \
	modloader/params.c \
	modloader/refcount.c \
	modloader/symbols.c \
	modloader/unload.c
