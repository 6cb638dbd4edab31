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

host: $(HOSTBIN)/modref-trace
