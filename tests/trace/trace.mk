# The reference timeline's host side (docs/trace.md), included by the top
# Makefile after HOSTBIN, HOSTCC and HOSTCFLAGS are set.
#
#   build/host/modref-trace   dump -> Perfetto JSON / ftrace; check; outlive
#   make trace                boots the 2003 bug with the timeline on and
#                             writes $(BUILD)/trace/legacy-2003.{json,ftrace}

TRACE_DIR := $(BUILD)/trace

$(HOSTBIN)/modref-trace: tests/trace/modref-trace.c tests/trace/tracelog.c \
		tests/trace/perfetto.c tests/trace/tracecheck.c \
		tests/lava/json.c tests/harness/util.c tests/trace/tracelog.h tests/trace/perfetto.h \
		tests/trace/tracecheck.h tests/lava/json.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.c,$^)

# libFuzzer over the dump reader and the writers (tests/trace/fuzz.c),
# seeded from tests/trace/corpus; its working corpus stays in build/.
TRACE_FUZZ_SRC := tests/trace/fuzz.c tests/trace/tracelog.c \
	tests/trace/perfetto.c tests/trace/tracecheck.c tests/lava/json.c \
	tests/harness/util.c
$(HOSTBIN)/trace-fuzz: $(TRACE_FUZZ_SRC) tests/trace/tracelog.h \
		tests/trace/perfetto.h tests/trace/tracecheck.h tests/lava/json.h
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(TRACE_FUZZ_SRC)

host: $(HOSTBIN)/modref-trace $(HOSTBIN)/trace-fuzz

# The traced scenarios: the 2003 bug (a reference outliving its driver)
# and a clean unload; each log's timeline as Perfetto JSON, ftrace text
# and the outlive report, beside the log.
TRACE_SCENARIOS ?= tests/scenarios/trace-legacy.scn tests/scenarios/trace-owner.scn

trace: deps kernel modules host
	@rm -rf $(TRACE_DIR) && mkdir -p $(TRACE_DIR) $(BUILD)/test
	@$(HOSTBIN)/modref-harness test -j $(JOBS) --logs $(TRACE_DIR) \
		$(TRACE_SCENARIOS)
	@for log in $(TRACE_DIR)/*.log; do \
		grep -q '^trace: begin ' $$log || continue; \
		base=$${log%.log}; \
		$(HOSTBIN)/modref-trace json $$log $$base.json && \
		$(HOSTBIN)/modref-trace ftrace $$log $$base.ftrace && \
		$(HOSTBIN)/modref-trace check $$base.json && \
		{ $(HOSTBIN)/modref-trace outlive $$log > $$base.outlive; \
		  cat $$base.outlive; } || exit 1; \
	done
	@echo "trace: timelines in $(TRACE_DIR)/*.json (open in ui.perfetto.dev or chrome://tracing), ftrace text in *.ftrace"

# Every log of DIR that holds a trace dump gets LOG.trace.json beside it
# (make stress's failing runs, make repro's verifying runs).
TRACE_KEEP = for log in $(1)/*.log; do \
		[ -e "$$log" ] && grep -q '^trace: begin ' "$$log" || continue; \
		$(HOSTBIN)/modref-trace json "$$log" "$${log%.log}.trace.json" || true; \
	done

.PHONY: trace
