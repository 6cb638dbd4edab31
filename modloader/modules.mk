# Loadable modules (included by the top Makefile after KCC, KCFLAGS, KLD,
# BUILD and HOSTBIN are set).  docs/modules.md explains the layout.
#
# A module directory (MODULE_DIRS; subsystems append theirs) holds
#   NAME.c         a one-file module          -> $(BUILD)/modules/NAME.ko
#   NAME/*.c *.S   a module of several objects, linked with ld -r
# built with the kernel's flags plus -DMODULE -DKBUILD_MODNAME='"NAME"'.
#
#   make modules                  every module of the tree
#   make modules M=path/to/dir    an out-of-tree directory, the same way,
#                                 into path/to/dir/ (NAME.ko next to NAME.c)
#
# Hostile variants of hello.ko for the loader's rejection tests are made
# here too (bad-*.ko), from the freshly built good file.

MODULE_DIRS += tests/modules
MODOUT      := $(BUILD)/modules
MOD_CFLAGS   = $(filter-out -MMD -MP,$(KCFLAGS)) -fno-asynchronous-unwind-tables \
	-DMODULE -MMD -MP

# Modules of one directory: $(call mod_names,DIR)
mod_single = $(patsubst $(1)/%.c,%,$(wildcard $(1)/*.c))
mod_multi  = $(patsubst $(1)/%/,%,$(sort $(dir $(wildcard $(1)/*/*.c $(1)/*/*.S))))

TREE_MODULES := $(foreach d,$(MODULE_DIRS),\
	$(patsubst %,$(MODOUT)/%.ko,$(call mod_single,$(d)) $(call mod_multi,$(d))))

# One-file modules: compile straight to NAME.ko.
define mod_single_rule
$(MODOUT)/$(2).ko: $(1)/$(2).c $(KFLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	@echo "  MOD     $$@"
	@$$(KCC) $$(MOD_CFLAGS) -DKBUILD_MODNAME='"$(2)"' -c $$< -o $$@
endef

# Multi-object modules: objects under $(MODOUT)/obj/NAME/, then ld -r.
define mod_multi_rule
$(2)_MODOBJS := $(patsubst $(1)/$(2)/%,$(MODOUT)/obj/$(2)/%.o,\
	$(wildcard $(1)/$(2)/*.c $(1)/$(2)/*.S))
$(MODOUT)/obj/$(2)/%.c.o: $(1)/$(2)/%.c $(KFLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	@$$(KCC) $$(MOD_CFLAGS) -DKBUILD_MODNAME='"$(2)"' -c $$< -o $$@
$(MODOUT)/obj/$(2)/%.S.o: $(1)/$(2)/%.S $(KFLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	@$$(KCC) $$(KASFLAGS) -DMODULE -c $$< -o $$@
$(MODOUT)/$(2).ko: $$($(2)_MODOBJS)
	@echo "  MOD     $$@ ($$(words $$^) objects)"
	@$$(KLD) -m elf_i386 -r -o $$@ $$^
endef

$(foreach d,$(MODULE_DIRS),\
	$(foreach m,$(call mod_single,$(d)),$(eval $(call mod_single_rule,$(d),$(m))))\
	$(foreach m,$(call mod_multi,$(d)),$(eval $(call mod_multi_rule,$(d),$(m)))))

# ---- hostile variants of a good module -------------------------------------
# bad-trunc:   the first 300 bytes only (headers point past the end)
# bad-shoff:   e_shoff (offset 32) moved far beyond the file
# bad-machine: e_machine (offset 18) = 62 (x86-64)
# bad-reloc:   first relocation of .rel.text given type 10 (R_386_GOTPC)
BAD_MODULES := $(MODOUT)/bad-trunc.ko $(MODOUT)/bad-shoff.ko \
	$(MODOUT)/bad-machine.ko

$(MODOUT)/bad-trunc.ko: $(MODOUT)/hello.ko
	head -c 300 $< > $@

$(MODOUT)/bad-shoff.ko: $(MODOUT)/hello.ko
	cp $< $@.tmp
	printf '\360\377\377\017' | dd of=$@.tmp bs=1 seek=32 conv=notrunc status=none
	mv $@.tmp $@

$(MODOUT)/bad-machine.ko: $(MODOUT)/hello.ko
	cp $< $@.tmp
	printf '\076\000' | dd of=$@.tmp bs=1 seek=18 conv=notrunc status=none
	mv $@.tmp $@

# The documented out-of-tree example, built the external way (one .c,
# one .ko, no tree rules) so tests/scenarios/modules-ext.scn can load it.
EXT_EXAMPLE := $(MODOUT)/ext/hello_ext.ko
$(EXT_EXAMPLE): docs/examples/hello-ext/hello_ext.c kernel/module.h
	@mkdir -p $(dir $@)
	@echo "  MOD     $@ (external example)"
	@$(KCC) $(filter-out -MMD -MP,$(MOD_CFLAGS)) -DKBUILD_MODNAME='"hello_ext"' \
		-c $< -o $@

ALL_MODULES := $(TREE_MODULES) $(BAD_MODULES) $(EXT_EXAMPLE)

# ---- out-of-tree: make modules M=dir ---------------------------------------
ifneq ($(M),)
M_DIR     := $(patsubst %/,%,$(M))
M_MODULES := $(patsubst %.c,%.ko,$(wildcard $(M_DIR)/*.c))
ifeq ($(M_MODULES),)
$(error M=$(M): no *.c modules in that directory)
endif
$(M_DIR)/%.ko: $(M_DIR)/%.c kernel/module.h
	@echo "  MOD     $@ (external)"
	@$(KCC) $(filter-out -MMD -MP,$(MOD_CFLAGS)) -DKBUILD_MODNAME='"$*"' \
		-c $< -o $@
modules: $(M_MODULES)
else
modules: $(ALL_MODULES)
endif

.PHONY: modules
all: modules

# Tree modules reach the ISO and `make run` through the boot archive
# (INITRD in the top Makefile).
