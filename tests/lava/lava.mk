# LAVA job definitions for labs (docs/lava.md), included by the top
# Makefile after HOSTBIN, HOSTCC and HOSTCFLAGS are set.
#
#   make lava        writes $(BUILD)/lava/*.yaml for the images in
#                    $(BUILD); LAVA_PREFIX is the URL a lab serves
#                    $(BUILD) at (default file://$(abspath $(BUILD)));
#                    LAVA_MATRIX the stress campaign, e.g.
#                    'seed=1,2;refmode=wait,owner;modref=percpu;smp=2,4'
#   make lava-check  installs lava-dispatcher if missing (about 1.3 GB,
#                    so never part of `make deps`), runs every generated
#                    job with lava-run and compares each case with the
#                    harness's own result for the same image

LAVA_DIR    := $(BUILD)/lava
LAVA_PREFIX ?= file://$(abspath $(BUILD))
LAVA_MATRIX ?= seed=1;refmode=wait;modref=percpu;smp=2
LAVA_OPS    ?= 500
LAVA_TOOLS  := $(HOSTBIN)/mklava $(HOSTBIN)/lava-results

$(HOSTBIN)/mklava: tests/lava/mklava.c tests/harness/util.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.c,$^)

$(HOSTBIN)/lava-results: tests/lava/lava-results.c tests/lava/json.c \
		tests/harness/util.c tests/kcidb/kcidb.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.c,$^)

host: $(LAVA_TOOLS)

.PHONY: lava lava-check
lava: all iso $(LAVA_TOOLS)
	@rm -rf $(LAVA_DIR) && mkdir -p $(LAVA_DIR)
	$(HOSTBIN)/mklava --out $(LAVA_DIR) --prefix '$(LAVA_PREFIX)' \
		--matrix '$(LAVA_MATRIX)' --ops $(LAVA_OPS)

lava-check: lava
	tests/lava/lava-check $(LAVA_DIR)
