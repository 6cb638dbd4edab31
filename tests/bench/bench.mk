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
