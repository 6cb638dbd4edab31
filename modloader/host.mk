# Host builds of the ELF loader core (included by the top Makefile after
# HOSTBIN, HOSTCC, HOSTCFLAGS, KCC, KLD and KCFLAGS are set):
#
#   $(HOSTBIN)/modloader-unittest   KTAP unit tests, ASan+UBSan
#   $(HOSTBIN)/modloader-fuzz       libFuzzer target (clang)
#   $(HOSTBIN)/modloader/mods/*.o   test modules, built with the cross gcc
#   $(HOSTBIN)/modloader/ref/       GNU ld reference link of refmod.o
#   $(HOSTBIN)/modloader/kcheck.o   the core built with KCFLAGS, proving it
#                                   freestanding (no undefined symbols)
#
# tests/scenarios/modloader-host.scn runs them from the repo root.

ML_DIR     := $(HOSTBIN)/modloader
ML_CORE    := $(wildcard modloader/elf_*.c)
ML_TESTSRC := tests/modloader/unittest.c tests/lib/ktap.c \
	tests/modloader/testutil.c tests/modloader/test_check.c \
	tests/modloader/test_layout.c tests/modloader/test_reloc.c \
	tests/modloader/test_lookup.c tests/modloader/test_ref.c \
	tests/modloader/test_modinfo.c \
	tests/modloader/pipeline.c
ML_FUZZSRC := tests/modloader/fuzz.c tests/modloader/pipeline.c

# libFuzzer ships with clang 14's compiler-rt runtime.
DEPS_PKGS += libclang-rt-14-dev
ML_FUZZCC  ?= clang
ML_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all

# Test modules: built the way modules are (freestanding, non-PIC), plus
# the variants the loader must refuse or skip.
ML_MODCFLAGS := -m32 -O2 -ffreestanding -fno-pie -fno-pic \
	-fno-stack-protector -Wall -Wextra -Werror
ML_MODS := $(patsubst tests/modloader/mods/%.c,$(ML_DIR)/mods/%.o,\
	$(wildcard tests/modloader/mods/*.c)) \
	$(patsubst tests/modloader/mods/%.S,$(ML_DIR)/mods/%.o,\
	$(wildcard tests/modloader/mods/*.S))

$(ML_DIR)/mods/%.o: tests/modloader/mods/%.c
	@mkdir -p $(dir $@)
	$(KCC) $(ML_MODCFLAGS) -c $< -o $@

$(ML_DIR)/mods/%.o: tests/modloader/mods/%.S
	@mkdir -p $(dir $@)
	$(KCC) -m32 -c $< -o $@

$(ML_DIR)/mods/pic.o: ML_MODCFLAGS += -fpic
$(ML_DIR)/mods/debug.o: ML_MODCFLAGS += -g

# Reference link: refmod.o at REF_BASE by GNU ld with the externals
# defined by --defsym, both taken from refmod_syms.h.
ML_REFSYMS := tests/modloader/ref/refmod_syms.h
ML_DEFSYMS = $(shell sed -n \
	-e 's/^\#define REF_BASE \(0x[0-9a-fA-F]*\).*/--defsym=REF_BASE=\1/p' \
	-e 's/^REF_SYM(\([A-Za-z_0-9]*\), *\(0x[0-9a-fA-F]*\)).*/--defsym=\1=\2/p' \
	$(ML_REFSYMS))

$(ML_DIR)/ref/refmod.elf: $(ML_DIR)/mods/refmod.o tests/modloader/ref/refmod.ld \
		$(ML_REFSYMS)
	@mkdir -p $(dir $@)
	$(KLD) -m elf_i386 -nostdlib --no-warn-rwx-segments -T \
		tests/modloader/ref/refmod.ld $(ML_DEFSYMS) -o $@ $<

$(ML_DIR)/ref/refmod.bin: $(ML_DIR)/ref/refmod.elf
	$(CROSS)objcopy -O binary -j .image $< $@

# The core must build for the kernel and need nothing from outside.
$(ML_DIR)/kcheck.o: $(ML_CORE) $(wildcard modloader/elf*.h)
	@mkdir -p $(dir $@)/k
	@for f in $(ML_CORE); do \
		$(KCC) $(filter-out -MMD -MP,$(KCFLAGS)) -c $$f \
			-o $(dir $@)/k/$$(basename $$f .c).o || exit 1; done
	$(KLD) -m elf_i386 -r -o $@ $(dir $@)/k/*.o
	@undef=$$($(CROSS)nm -u $@); if [ -n "$$undef" ]; then \
		echo "modloader core is not freestanding:"; echo "$$undef"; \
		rm -f $@; exit 1; fi

ML_UNITOBJS := $(patsubst %.c,$(ML_DIR)/obj/%.o,$(ML_CORE) $(ML_TESTSRC))

$(ML_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(ML_SAN) -DML_BUILD_DIR='"$(ML_DIR)"' \
		-c $< -o $@

$(HOSTBIN)/modloader-unittest: $(ML_UNITOBJS)
	$(HOSTCC) $(ML_SAN) -o $@ $^

$(HOSTBIN)/modloader-fuzz: $(ML_CORE) $(ML_FUZZSRC) $(wildcard modloader/*.h) \
		tests/modloader/pipeline.h
	@mkdir -p $(dir $@)
	$(ML_FUZZCC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(ML_CORE) $(ML_FUZZSRC)

# The fuzzer writes what it discovers into the first corpus directory:
# keep that in build/, seeded with the freshly built test modules; the
# committed seeds in tests/modloader/corpus are only read.
$(ML_DIR)/corpus/.stamp: $(ML_MODS)
	@mkdir -p $(dir $@)
	cp $(ML_MODS) $(dir $@)
	@touch $@

ML_HOST_TARGETS := $(HOSTBIN)/modloader-unittest $(HOSTBIN)/modloader-fuzz \
	$(ML_MODS) $(ML_DIR)/ref/refmod.bin $(ML_DIR)/kcheck.o \
	$(ML_DIR)/corpus/.stamp

host: $(ML_HOST_TARGETS)

# What tests/scenarios/modloader-host.scn runs, without the harness.
.PHONY: modloader-test
modloader-test: $(ML_HOST_TARGETS)
	$(HOSTBIN)/modloader-unittest
	$(HOSTBIN)/modloader-fuzz -max_total_time=20 \
		-artifact_prefix=$(ML_DIR)/ $(ML_DIR)/corpus tests/modloader/corpus
