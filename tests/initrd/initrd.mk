# Host builds of the cpio newc reader (kernel/newc.c), included by the top
# Makefile after HOSTBIN and HOSTCC are set:
#
#   $(HOSTBIN)/initrd-unittest   KTAP unit tests of reader and writer,
#                                ASan+UBSan
#   $(HOSTBIN)/initrd-fuzz       libFuzzer target (clang)
#
# tests/scenarios/initrd-host.scn runs them from the repo root.

INITRD_DIR := $(HOSTBIN)/initrd
INITRD_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
INITRD_UTSRC := kernel/newc.c scripts/newc_write.c tests/initrd/unittest.c \
	tests/lib/ktap.c

# GNU cpio makes the archives the reader is checked against.
DEPS_PKGS += cpio

$(HOSTBIN)/initrd-unittest: $(INITRD_UTSRC) kernel/newc.h scripts/newc_write.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(INITRD_SAN) -o $@ $(INITRD_UTSRC)

$(HOSTBIN)/initrd-fuzz: kernel/newc.c tests/initrd/fuzz.c kernel/newc.h
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ kernel/newc.c tests/initrd/fuzz.c

# The fuzzer's working corpus stays in build/, seeded from a real archive.
$(INITRD_DIR)/corpus/.stamp: $(INITRD)
	@mkdir -p $(dir $@)
	@head -c 4096 $(INITRD) > $(dir $@)/head.cpio
	@touch $@

host: $(HOSTBIN)/initrd-unittest $(HOSTBIN)/initrd-fuzz
test: $(INITRD_DIR)/corpus/.stamp
