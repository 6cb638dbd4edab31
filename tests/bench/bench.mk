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
