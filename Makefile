# modref top-level build.  `make help` lists the targets; README.md
# says what goes where in build/.
#
# Variables a user may set on the command line (see README):
#   SMP=N  MEM=128M  NIC=e1000|virtio|both|none  CMDLINE='k=v ..'
#   EXTRA_MODULES='a.ko b.ko'  ISO=1  PROFILE=default  JOBS=N  TESTS='..'

BUILD   ?= build
CROSS   ?= i686-linux-gnu-
KCC     := $(CROSS)gcc
KLD     := $(CROSS)ld
KNM     := $(CROSS)nm
KOBJCOPY:= $(CROSS)objcopy
HOSTCC  ?= cc

PROFILE ?= default
SMP     ?=
MEM     ?=
NIC     ?=
CMDLINE ?=
EXTRA_MODULES ?=
ISO     ?=
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
TESTS   ?=

# Kernel code: freestanding i686, frame pointers kept for backtraces.
# Tuned generic, not for the Pentium Pro: the instructions are i686's
# either way, but its tuning spells a 16-bit byte swap (every header
# field) as shifts and an or instead of one rotate, and TCG runs each
# instruction it is given (docs/bench.md: 108 fewer per UDP
# echo in the stack's own code).
KCFLAGS := -std=c11 -m32 -march=i686 -mtune=generic -ffreestanding -fno-pie -fno-pic \
	-fno-stack-protector -fno-omit-frame-pointer -fno-strict-aliasing \
	-mno-sse -mno-mmx -mno-80387 -mno-red-zone -O2 -g \
	-Wall -Wextra -Werror -Wno-unused-parameter -I. -MMD -MP
KASFLAGS := -m32 -march=i686 -fno-pie -g -I. -MMD -MP -D__ASSEMBLY__
KLDFLAGS := -m elf_i386 -nostdlib -z noexecstack --no-warn-rwx-segments
# Recursive (=), not :=: on a fresh machine the cross compiler only exists
# after `make deps` has run, so the path must be asked for when linking.
LIBGCC = $(shell $(KCC) -print-libgcc-file-name 2>/dev/null)
HOSTCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. -MMD -MP

# The kernel's sources: each folder's objs.mk lists its own (as Kbuild's
# obj-y), in link order.  The folders are layers: boot, core, then
# subsystems (docs/design.md).  A source file in one of them that its
# objs.mk does not list stops the build: nothing is left out unseen.
KDIRS := boot kernel kernel/arch kernel/lib kernel/locking kernel/mm \
	kernel/sched kernel/console kernel/debug kernel/ktest kernel/stress \
	kernel/bench \
	modloader modloader/ktest drivers drivers/ktest \
	net/core net/ipv4 net/apps net/cmd net/ktest net/bench net/tcp/resident \
	lifetime lifetime/ktest
KSRCS :=
include $(patsubst %,%/objs.mk,$(KDIRS))
KUNLISTED := $(filter-out $(KSRCS),$(foreach d,$(KDIRS),$(wildcard $(d)/*.c $(d)/*.S)))
ifneq ($(KUNLISTED),)
$(error $(firstword $(KUNLISTED)): a kernel source its folder's objs.mk does not list)
endif
KOBJS := $(patsubst %,$(BUILD)/k/%.o,$(KSRCS))

KERNEL := $(BUILD)/modref.elf
ISOIMG := $(BUILD)/modref.iso
INITRD ?= $(BUILD)/initrd.cpio
HOSTBIN := $(BUILD)/host

.PHONY: all kernel iso host run test check-host debug deps clean help \
	format stress bench
all: kernel host

kernel: $(KERNEL)

help:
	@echo "make run     boot modref in QEMU (SMP= MEM= NIC= CMDLINE= EXTRA_MODULES= ISO=1)"
	@echo "make test    build everything and run the whole test suite"
	@echo "make verify  model-check the unload protocol with larger bounds (docs/model.md)"
	@echo "make iso     build the GRUB rescue ISO ($(ISOIMG))"
	@echo "make stress  long stress: core suites and the lifetime stress (SEED= OPS= SMP= replay one; docs/stress.md)"
	@echo "make replay  a one-CPU lifetime stress run under QEMU record/replay, replayed and compared"
	@echo "make stress-console  the lifetime stress driven from the serial console (SEED= CONSOLE_OPS=)"
	@echo "make bench   benchmarks: build/bench/report.md with plots (docs/bench.md)"
	@echo "make bench-linux  modref against a Debian Linux guest on the same QEMU: build/bench/linux.md (docs/bench.md)"
	@echo "make lava    LAVA job definitions in build/lava/ (LAVA_PREFIX= LAVA_MATRIX=; docs/lava.md)"
	@echo "make lava-check  run every LAVA job with lava-run and compare with the harness"
	@echo "make debug   boot halted with the gdb stub and print the gdb command"
	@echo "make deps    install the Debian packages modref needs"
	@echo "make format  run clang-format over the tree"
	@echo "make clean   remove $(BUILD)/"

# ---- kernel ---------------------------------------------------------------
# The flags the kernel and its modules are built with, in a file that
# changes only when they do: every object depends on it, so a change to
# KCFLAGS rebuilds them all, not only the sources touched since (a kernel
# built half one way and half the other can link, and fail at run time).
KFLAGS_STAMP := $(BUILD)/k/flags.txt
$(KFLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(KCFLAGS)' '$(KASFLAGS)' '$(MOD_CFLAGS)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/k/%.c.o: %.c $(KFLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(KCC) $(KCFLAGS) -c $< -o $@

$(BUILD)/k/%.S.o: %.S $(KFLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(KCC) $(KASFLAGS) -c $< -o $@

# The symbol table used by backtraces is generated from the kernel itself.
# It lives in the last section of the image, so linking it in moves no
# other symbol: pass 1 links with an empty table, pass 2 with the real one,
# and the build checks that every other address stayed put.
$(BUILD)/k/ksyms-empty.o: scripts/ksyms-empty.S
	@mkdir -p $(dir $@)
	$(KCC) $(KASFLAGS) -c $< -o $@

$(BUILD)/modref.pass1.elf: $(KOBJS) $(BUILD)/k/ksyms-empty.o boot/kernel.ld
	$(KLD) $(KLDFLAGS) -T boot/kernel.ld -o $@ $(KOBJS) $(BUILD)/k/ksyms-empty.o $(LIBGCC)

$(BUILD)/k/ksyms.S: $(BUILD)/modref.pass1.elf $(HOSTBIN)/mkksyms
	$(KNM) -n $< | $(HOSTBIN)/mkksyms > $@

$(BUILD)/k/ksyms.o: $(BUILD)/k/ksyms.S
	$(KCC) $(KASFLAGS) -c $< -o $@

$(KERNEL): $(KOBJS) $(BUILD)/k/ksyms.o boot/kernel.ld
	$(KLD) $(KLDFLAGS) -T boot/kernel.ld -o $@.tmp $(KOBJS) $(BUILD)/k/ksyms.o $(LIBGCC)
	@$(KNM) -n $(BUILD)/modref.pass1.elf | grep -v -e ' __ksyms_' -e ' _kernel_end$$' > $(BUILD)/k/nm1
	@$(KNM) -n $@.tmp | grep -v -e ' __ksyms_' -e ' _kernel_end$$' > $(BUILD)/k/nm2
	@cmp -s $(BUILD)/k/nm1 $(BUILD)/k/nm2 || \
		{ echo "ksyms: symbol table moved kernel symbols"; exit 1; }
	@mv $@.tmp $@

# ---- host tools ------------------------------------------------------------
$(HOSTBIN)/mkksyms: scripts/mkksyms.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

# Boot modules travel as one cpio newc archive (scripts/newc_write.h).
$(HOSTBIN)/mkinitrd: scripts/mkinitrd.c scripts/newc_write.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ scripts/mkinitrd.c scripts/newc_write.c

# Every #include points down a layer (tests/scenarios/layercheck.scn).
$(HOSTBIN)/layercheck: scripts/layercheck.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

# Every file a comment or doc names exists (tests/scenarios/pathcheck.scn).
$(HOSTBIN)/pathcheck: scripts/pathcheck.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/mkksyms $(HOSTBIN)/mkinitrd $(HOSTBIN)/layercheck \
      $(HOSTBIN)/pathcheck

# tshark audits every capture; iproute2 and iputils-ping serve the tap
# backend's network namespaces (docs/harness.md).
DEPS_PKGS := qemu-system-x86 grub-pc-bin grub-common xorriso mtools \
	gcc-i686-linux-gnu binutils-i686-linux-gnu gcc make gdb clang procps \
	tshark iproute2 iputils-ping clang-format python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Subsystem fragments add host programs (harness, unit tests, fuzzers) to
# `host` and register what `make test` runs.
include tests/harness/harness.mk
include modloader/host.mk
include net/tcp/host.mk
include net/ipv4/host.mk
include drivers/drivers.mk
include tests/net/net.mk
include modloader/modules.mk
include tests/stress/stress.mk
include tests/lava/lava.mk
include tests/kcidb/kcidb.mk
include model/model.mk
include tests/bench/bench.mk
include tests/bench/linux.mk

# ---- boot modules: one archive -------------------------------------------------
# Every module the tree builds (modloader/modules.mk's ALL_MODULES, tcp.ko)
# and the user's EXTRA_MODULES, in build/initrd.cpio: `make run` and the
# ISO boot with it, so `insmod NAME` finds any of them.  The archive is
# remade when a file or the list changes (the list is kept beside it).
BOOT_MODULES := $(ALL_MODULES) $(TCPKO) $(EXTRA_MODULES)

$(INITRD).list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(BOOT_MODULES)' | cmp -s - $@ || echo '$(BOOT_MODULES)' > $@

$(INITRD): $(BOOT_MODULES) $(INITRD).list $(HOSTBIN)/mkinitrd
	@echo "  INITRD  $@ ($(words $(BOOT_MODULES)) modules)"
	@$(HOSTBIN)/mkinitrd -o $@ $(BOOT_MODULES)

initrd: $(INITRD)
all: initrd

# Test fixtures made from the archive (tests/initrd/initrd.mk); then the
# fragments whose rules name them.
include tests/initrd/initrd.mk
include tests/mutants/mutants.mk
include tests/repro/repro.mk
include tests/trace/trace.mk
include tests/lint/lint.mk

.PHONY: initrd FORCE
FORCE:

# ---- ISO through GRUB ----------------------------------------------------------
iso: $(ISOIMG)

$(ISOIMG): $(KERNEL) boot/grub.cfg $(INITRD)
	@rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	cp $(KERNEL) $(BUILD)/iso/boot/modref.elf
	cp $(INITRD) $(BUILD)/iso/boot/initrd.cpio
	sed -e 's|@CMDLINE@|$(CMDLINE)|' boot/grub.cfg > $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso 2>$(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# ---- running -----------------------------------------------------------------
RUNARGS = --profile qemu/$(PROFILE).profile \
	$(if $(SMP),--smp $(SMP)) $(if $(MEM),--mem $(MEM)) \
	$(if $(NIC),--nic $(NIC)) $(if $(CMDLINE),--cmdline '$(CMDLINE)') \
	$(if $(ISO),--iso $(ISOIMG),--modules $(INITRD))

run: deps all $(if $(ISO),iso)
	$(HOSTBIN)/modref-harness run $(RUNARGS)

GDBPORT ?= 1234
debug: deps all
	@echo "attach with:  gdb -ex 'target remote localhost:$(GDBPORT)' -x scripts/gdb-modref.py $(KERNEL)"
	$(HOSTBIN)/modref-harness run $(RUNARGS) --gdb $(GDBPORT)

test: deps all iso $(INITRD_TESTS)
	$(HOSTBIN)/modref-harness test -j $(JOBS) $(if $(TESTS),$(TESTS),tests/scenarios)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# ---- dependencies --------------------------------------------------------------
deps:
	@missing=""; for p in $(DEPS_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
			|| missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		echo "wireshark-common wireshark-common/install-setuid boolean false" \
			| $(SUDO) debconf-set-selections; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

clean:
	rm -rf $(BUILD)

# A dependency file written before a source moved names the old path; a
# do-nothing rule for missing sources lets make rebuild from the new one
# instead of stopping ("No rule to make target"), as -MP does for headers.
%.c %.S: ;
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
