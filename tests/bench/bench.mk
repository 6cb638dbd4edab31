# make bench's own programs: the floor kernel for the boot figure and the
# host-side boot timer.  Included by the top-level Makefile; docs/bench.md.

BENCH_FLOOR := $(BUILD)/bench/floor.elf

$(BENCH_FLOOR): tests/bench/floor.S
	@mkdir -p $(dir $@)
	$(KCC) -m32 -c $< -o $(BUILD)/bench/floor.o
	$(KLD) -m elf_i386 -nostdlib -N --no-warn-rwx-segments -e _start -Ttext 0x100000 \
		-o $@ $(BUILD)/bench/floor.o

$(HOSTBIN)/bench-boot: tests/bench/boottime.c tests/bench/hostnet.h net/tcp/ko/pattern.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/bench-boot $(BENCH_FLOOR)

$(HOSTBIN)/bench-report: tests/bench/report.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/bench-report

$(HOSTBIN)/tbprof: tests/bench/tbprof.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/tbprof

# Guest instructions per UDP echo, the stack against the bounce loop,
# per NIC: bench-boot -u under QEMU's TCG log (-d in_asm,exec,nochain)
# written into a FIFO that tbprof reads as it goes (the log is hundreds
# of MB a second), cut at each console command.  Counts, not times: the
# machine's load does not move them.  BENCH_INSNS_SECS per phase: 2 s
# holds a few hundred echoes even with the log on, so the fixed costs of
# a phase are spread thin (0.5 s moved the totals by ~5%).  make bench
# runs it too, for its report.
BENCH_INSNS_SECS ?= 2
bench-insns: deps all
	@mkdir -p $(BUILD)/bench
	$(KNM) -n $(KERNEL) > $(BUILD)/bench/kernel.nm
	@: > $(BUILD)/bench/insns.txt; for d in e1000 virtio_net; do \
		fifo=$(BUILD)/bench/tcg-$$d.fifo; rm -f $$fifo; mkfifo $$fifo; \
		$(HOSTBIN)/tbprof -s $(BUILD)/bench/kernel.nm -u echo=udp_rcv \
			-u bounce=netif_bounce $$fifo > $(BUILD)/bench/insns-$$d.txt & \
		$(HOSTBIN)/bench-boot -u $(BENCH_INSNS_SECS) -n 1 -d $$d -a "netautoload=0 $(BENCH_TRACK)" \
			-i $(BUILD)/modules/e1000.ko,$(BUILD)/modules/virtio_net.ko \
			-e -d -e in_asm,exec,nochain -e -D -e $$fifo $(KERNEL) \
			> $(BUILD)/bench/insns-$$d.boot.txt || exit 1; \
		wait $$! || exit 1; rm -f $$fifo; \
		sed "s/^tbprof:/bench: insns: $$d:/" $(BUILD)/bench/insns-$$d.txt >> $(BUILD)/bench/insns.txt; \
	done; grep 'per-unit' $(BUILD)/bench/insns.txt
.PHONY: bench-insns

# This tree's UDP echo path against another commit's, side by side:
# BENCH_AB_REF exported with git archive and built in build/bench-ab/ref
# (kept while the commit is the same), then BENCH_AB_BOOTS alternating
# boots of each on BENCH_AB_DEV, every round's windowed stack/bounce
# ratio pooled per tree: medians and quartiles (tests/bench/udp-ab.sh;
# docs/bench.md, "Comparing two trees").  Not part of make bench.
BENCH_AB_REF ?= HEAD~1
BENCH_AB_DEV ?= virtio_net
BENCH_AB_BOOTS ?= 4
bench-ab: deps all
	tests/bench/udp-ab.sh $(BUILD)/bench-ab $(BENCH_AB_REF) $(BENCH_AB_DEV) $(BENCH_AB_BOOTS)
.PHONY: bench-ab

# ---- make bench ------------------------------------------------------------
# Benchmarks print numbers, they never pass or fail on a time: the
# scenarios only check that each benchmark ran.  Report with plots:
# build/bench/report.md (docs/bench.md).  gnuplot is installed here, not
# by make deps: make test does not need it.
BENCH_BOOTS ?= 7
BENCH_TYPED ?= 30
BENCH_TYPED_MODES := wait/atomic wait/percpu owner/atomic owner/percpu legacy/atomic
BENCH_UDP_SECS ?= 1.5
BENCH_UDP_ROUNDS ?= 3
BENCH_UDP_MODES := wait/atomic wait/percpu owner/atomic pinned/atomic legacy/atomic
BENCH_TCP_BYTES ?= 16777216
BENCH_TCP_ROUNDS ?= 3
# Holder tracking as the figures in docs/bench.md were measured: the tag
# and call site (netdev_track=1); bench devref measures the stacks (2,
# the default) on their own.
BENCH_TRACK := netdev_track=1
BENCH_TW ?= 16
bench: deps all $(BENCH_FLOOR)
	@command -v gnuplot >/dev/null || $(SUDO) apt-get install -y gnuplot-nox
	@rm -rf $(BUILD)/bench/logs && mkdir -p $(BUILD)/bench/logs
	$(HOSTBIN)/modref-harness test -j 1 --logs $(BUILD)/bench/logs tests/bench
	$(HOSTBIN)/bench-boot -n $(BENCH_BOOTS) $(KERNEL) $(BENCH_FLOOR) | tee $(BUILD)/bench/boot.txt
	@: > $(BUILD)/bench/typed.txt; for m in $(BENCH_TYPED_MODES); do \
		$(HOSTBIN)/bench-boot -t e1000 -c $(BENCH_TYPED) \
			-a "netautoload=0 $(BENCH_TRACK) refmode=$${m%%/*} modref=$${m##*/}" \
			-i $(BUILD)/modules/e1000.ko -e -nic -e user,model=e1000 \
			$(KERNEL) >> $(BUILD)/bench/typed.txt || exit 1; \
	done; grep '^bench: typed:' $(BUILD)/bench/typed.txt
	@: > $(BUILD)/bench/udp.txt; for m in $(BENCH_UDP_MODES); do for d in e1000 virtio_net; do \
		$(HOSTBIN)/bench-boot -u $(BENCH_UDP_SECS) -n $(BENCH_UDP_ROUNDS) -d $$d \
			-a "netautoload=0 $(BENCH_TRACK) refmode=$${m%%/*} devref=$${m##*/}" \
			-i $(BUILD)/modules/e1000.ko,$(BUILD)/modules/virtio_net.ko \
			$(KERNEL) >> $(BUILD)/bench/udp.txt || exit 1; \
	done; done; grep '^bench: udp-path' $(BUILD)/bench/udp.txt
	@$(MAKE) --no-print-directory bench-insns
	@: > $(BUILD)/bench/tcp.txt; for d in e1000 virtio_net; do \
		$(HOSTBIN)/bench-boot -T $(BENCH_TCP_BYTES) -n $(BENCH_TCP_ROUNDS) -d $$d -a "netautoload=0 $(BENCH_TRACK)" \
			-i $(BUILD)/modules/e1000.ko,$(BUILD)/modules/virtio_net.ko,$(BUILD)/modules/tcp.ko \
			$(KERNEL) >> $(BUILD)/bench/tcp.txt || exit 1; \
	done; grep '^bench: tcp' $(BUILD)/bench/tcp.txt
	@: > $(BUILD)/bench/rmmod.txt; for r in wait owner legacy; do for k in 0 4; do \
		for w in "0 wait" "$(BENCH_TW) wait" "$(BENCH_TW) purge"; do \
		$(HOSTBIN)/bench-boot -r 500 -k $$k -N 8 -W $${w%% *} \
			-a "netautoload=0 $(BENCH_TRACK) refmode=$$r tcp_msl_ms=1000 tcp_unload_tw=$${w##* }" \
			-i $(BUILD)/modules/e1000.ko,$(BUILD)/modules/tcp.ko $(KERNEL) >> $(BUILD)/bench/rmmod.txt || exit 1; \
	done; done; done; grep '^bench: rmmod-' $(BUILD)/bench/rmmod.txt
	$(HOSTBIN)/bench-report $(BUILD)/bench
