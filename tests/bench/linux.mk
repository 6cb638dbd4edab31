# make bench-linux: modref against Debian's Linux kernel on the same QEMU
# (docs/bench.md, "modref against a Linux guest").  Not part of make
# test.  The Debian packages are fetched with apt-get download (no
# install) and unpacked with dpkg-deb under build/linux/.
#
# Knobs: BENCH_LINUX_RUNS (3), BENCH_LINUX_CYCLES (10),
# BENCH_LINUX_BYTES (16 MiB), BENCH_UDP_SECS (3).

LINUX_DIR    := $(BUILD)/linux
LINUX_STAMP  := $(LINUX_DIR)/.unpacked
LINUX_RD     := $(LINUX_DIR)/initramfs.cpio
LBGUEST      := $(LINUX_DIR)/lbguest
LINUX_MODS   := e1000 virtio_ring virtio virtio_pci_modern_dev \
	virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net
BENCH_LINUX_RUNS   ?= 3
BENCH_LINUX_CYCLES ?= 10
BENCH_LINUX_BYTES  ?= 16777216
BENCH_UDP_SECS     ?= 3

$(HOSTBIN)/benchlinux: tests/bench/linux/benchlinux.c scripts/newc_write.c net/tcp/ko/pattern.h tests/bench/hostnet.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tests/bench/linux/benchlinux.c scripts/newc_write.c

# The guest side, for the x86_64 guest: static, no libraries in the image.
$(LBGUEST): tests/bench/linux/lbguest.c net/tcp/ko/pattern.h tests/bench/hostnet.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -static -o $@ $<

# linux-image-amd64 is a metapackage: download the image it depends on.
$(LINUX_STAMP):
	@rm -rf $(LINUX_DIR)/deb $(LINUX_DIR)/root && mkdir -p $(LINUX_DIR)/deb
	@img=$$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1); \
	if [ -z "$$img" ]; then $(SUDO) apt-get update -qq; \
		img=$$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1); fi; \
	test -n "$$img" || { echo "bench-linux: no linux-image-amd64 in apt"; exit 1; }; \
	echo "bench-linux: apt-get download $$img busybox-static"; \
	cd $(LINUX_DIR)/deb && apt-get download -q "$$img" busybox-static 2>&1 | grep -v '^W: Download is performed unsandboxed'
	@for d in $(LINUX_DIR)/deb/*.deb; do dpkg-deb -x $$d $(LINUX_DIR)/root || exit 1; done
	@cp $(LINUX_DIR)/root/boot/vmlinuz-* $(LINUX_DIR)/vmlinuz
	@for m in $(LINUX_MODS); do \
		f=$$(find $(LINUX_DIR)/root/lib/modules -name "$$m.ko" | head -1); \
		test -n "$$f" || { echo "bench-linux: $$m.ko not in the image"; exit 1; }; \
		cp $$f $(LINUX_DIR)/$$m.ko; done
	@cp $(LINUX_DIR)/root/bin/busybox $(LINUX_DIR)/busybox
	@# The unpacked tree goes: the top-level Makefile includes every
	@# *.d under build/, and the kernel package has directories named so.
	@rm -rf $(LINUX_DIR)/root
	@touch $@

$(LINUX_RD): $(LINUX_STAMP) $(LBGUEST) $(HOSTBIN)/benchlinux
	$(HOSTBIN)/benchlinux initramfs -o $@ $(LBGUEST) \
		$(LINUX_DIR)/busybox $(foreach m,$(LINUX_MODS),$(LINUX_DIR)/$(m).ko)

bench-linux: deps all $(LINUX_RD) $(HOSTBIN)/benchlinux
	@rm -rf $(BUILD)/bench/linux-logs && mkdir -p $(BUILD)/bench/linux-logs
	$(HOSTBIN)/benchlinux run -n $(BENCH_LINUX_RUNS) -c $(BENCH_LINUX_CYCLES) \
		-B $(BENCH_LINUX_BYTES) -u $(BENCH_UDP_SECS) \
		-o $(BUILD)/bench/linux.md -l $(BUILD)/bench/linux-logs \
		$(LINUX_DIR)/vmlinuz $(LINUX_RD) $(KERNEL) $(INITRD) \
		| tee $(BUILD)/bench/linux.txt
	@if [ -f $(BUILD)/bench/report.md ]; then \
		sed -i '/^<!-- bench-linux -->$$/,$$d' $(BUILD)/bench/report.md; \
		{ echo '<!-- bench-linux -->'; cat $(BUILD)/bench/linux.md; } \
			>> $(BUILD)/bench/report.md; \
		echo "bench-linux: merged into $(BUILD)/bench/report.md"; fi

.PHONY: bench-linux
