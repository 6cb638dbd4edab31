# Host builds of the cpio newc reader (kernel/lib/newc.c), and the archives
# its scenarios need, included by the top Makefile after HOSTBIN, HOSTCC,
# MODOUT, INITRD and BOOT_MODULES are set:
#
#   $(HOSTBIN)/initrd-unittest   KTAP unit tests of reader and writer,
#                                ASan+UBSan
#   $(HOSTBIN)/initrd-fuzz       libFuzzer target (clang)
#
# tests/scenarios/initrd-host.scn runs them from the repo root.

INITRD_DIR := $(HOSTBIN)/initrd
INITRD_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
INITRD_UTSRC := kernel/lib/newc.c scripts/newc_write.c tests/initrd/unittest.c \
	tests/lib/ktap.c

# GNU cpio makes the archives the reader is checked against.
DEPS_PKGS += cpio

$(HOSTBIN)/initrd-unittest: $(INITRD_UTSRC) kernel/lib/newc.h scripts/newc_write.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(INITRD_SAN) -o $@ $(INITRD_UTSRC)

$(HOSTBIN)/initrd-fuzz: kernel/lib/newc.c tests/initrd/fuzz.c kernel/lib/newc.h
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ kernel/lib/newc.c tests/initrd/fuzz.c

# The fuzzer's working corpus stays in build/, seeded from a real archive.
$(INITRD_DIR)/corpus/.stamp: $(INITRD)
	@mkdir -p $(dir $@)
	@head -c 4096 $(INITRD) > $(dir $@)/head.cpio
	@touch $@

host: $(HOSTBIN)/initrd-unittest $(HOSTBIN)/initrd-fuzz
test: $(INITRD_DIR)/corpus/.stamp

# ---- archives for the initrd scenarios (make test builds them) ----------
# For tests/scenarios/initrd-extra.scn: EXTRA_MODULES of 50 files (copies
# of hello.ko) through the boot archive's rule (the top Makefile), in a
# make of its own; with the tree's modules that is more than the
# kernel's table holds in one chunk.
INITRD_EXTRA := $(BUILD)/test/initrd-extra.cpio
EXTRA50      := $(patsubst %,$(BUILD)/test/extra/x%.ko,\
	$(shell seq -w 1 50))
$(BUILD)/test/extra/x%.ko: $(MODOUT)/hello.ko
	@mkdir -p $(dir $@)
	@cp $< $@
ifneq ($(INITRD),$(INITRD_EXTRA))
$(INITRD_EXTRA): $(EXTRA50) $(BOOT_MODULES) $(HOSTBIN)/mkinitrd FORCE
	@$(MAKE) -s --no-print-directory INITRD=$@ EXTRA_MODULES='$(EXTRA50)' $@
endif

# A damaged archive for tests/scenarios/initrd-bad.scn: cut inside the
# first file's data.
$(BUILD)/test/initrd-cut.cpio: $(INITRD)
	@mkdir -p $(dir $@)
	@head -c 2000 $< > $@

# An archive made by GNU cpio (070702, with checksums) with a directory, a
# module in it and a symbolic link, for the same scenario.
$(BUILD)/test/initrd-gnu.cpio: $(MODOUT)/params.ko
	@rm -rf $(BUILD)/test/gnu-tree && mkdir -p $(BUILD)/test/gnu-tree/lib/modules
	@cp $< $(BUILD)/test/gnu-tree/lib/modules/
	@ln -s lib/modules/params.ko $(BUILD)/test/gnu-tree/link
	@cd $(BUILD)/test/gnu-tree && find . | LC_ALL=C sort | \
		cpio --quiet -o -H crc > ../initrd-gnu.cpio

INITRD_TESTS := $(INITRD_EXTRA) $(BUILD)/test/initrd-cut.cpio \
	$(BUILD)/test/initrd-gnu.cpio
