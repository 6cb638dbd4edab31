# `make stress`: the long stress scenarios (tests/stress/*.scn: the
# stress_* ktest suites with many more rounds, on 2, 4 and 8 CPUs, several
# passes each), with their own report in $(BUILD)/stress/:
#   report.tap   the harness's TAP output (last line "N passed, N failed")
#   logs/        the serial log of every failing run
# STRESS_TESTS picks scenarios (default: all of tests/stress),
# STRESS_JOBS how many QEMUs run at once (default: JOBS), and
# STRESS_TIMEOUT_SCALE stretches every timeout on a slow or busy host.
# `make test` runs only the short variant (tests/scenarios/stress-quick.scn).

STRESS_TESTS ?= tests/stress
STRESS_JOBS ?= $(JOBS)
STRESS_TIMEOUT_SCALE ?= 1
STRESS_DIR := $(BUILD)/stress

stress: deps kernel host
	@rm -rf $(STRESS_DIR) && mkdir -p $(STRESS_DIR)/logs
	@echo "stress: $(STRESS_TESTS), $(STRESS_JOBS) at a time; report in $(STRESS_DIR)/report.tap"
	@{ $(HOSTBIN)/modref-harness test -j $(STRESS_JOBS) \
		--kernel $(KERNEL) --logs $(STRESS_DIR)/logs \
		--timeout-scale $(STRESS_TIMEOUT_SCALE) $(STRESS_TESTS); \
		echo $$? > $(STRESS_DIR)/status; } | tee $(STRESS_DIR)/report.tap
	@status=$$(cat $(STRESS_DIR)/status); \
		echo "stress: $$(tail -n 1 $(STRESS_DIR)/report.tap) (report: $(STRESS_DIR)/report.tap)"; \
		exit $$status
