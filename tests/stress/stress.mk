# `make stress`: the long stress scenarios (tests/stress/*.scn: the
# stress_* ktest suites with many more rounds, on 2, 4 and 8 CPUs, several
# passes each), with their own report in $(BUILD)/stress/:
#   report.tap   the harness's TAP output (last line "N passed, N failed")
#   logs/        the serial log of every failing run
# STRESS_TESTS picks scenarios (default: all of tests/stress),
# STRESS_JOBS how many QEMUs run at once (default: JOBS), and
# STRESS_TIMEOUT_SCALE stretches every timeout on a slow or busy host.
# `make test` runs only the short variants (tests/scenarios/stress-quick.scn,
# stress-lifetime-*.scn, stress-faultsweep.scn).

STRESS_TESTS ?= tests/stress
STRESS_JOBS ?= $(JOBS)
STRESS_TIMEOUT_SCALE ?= 1
STRESS_DIR := $(BUILD)/stress
# The lifetime report's plots (lifetime-ops.png, lifetime-rmmod-wait.png
# beside lifetime.txt) need gnuplot: installed here, not by make deps
# (make test does not need it); without it the report skips the plots.
STRESS_GNUPLOT = command -v gnuplot >/dev/null || $(SUDO) apt-get install -y gnuplot-nox || \
	echo "stress: gnuplot-nox not installed: the lifetime report skips its plots"

stress: deps kernel host modules
	@rm -rf $(STRESS_DIR) && mkdir -p $(STRESS_DIR)/logs
	@$(MAKE) --no-print-directory stress-lifetime-gen
	@echo "stress: $(if $(SEED),,$(STRESS_TESTS) and )the lifetime runs ($(LT_SELECTED)), $(STRESS_JOBS) at a time; report in $(STRESS_DIR)/report.tap"
	@{ $(HOSTBIN)/modref-harness test -j $(STRESS_JOBS) \
		--kernel $(KERNEL) --logs $(STRESS_DIR)/logs \
		--profiles $(STRESS_DIR)/profiles \
		--timeout-scale $(STRESS_TIMEOUT_SCALE) \
		$(if $(SEED),,$(STRESS_TESTS)) $(STRESS_DIR)/scn; \
		echo $$? > $(STRESS_DIR)/status; } | tee $(STRESS_DIR)/report.tap
	@$(STRESS_GNUPLOT)
	@tests/stress/lifetime-report.sh $(STRESS_DIR)/logs $(STRESS_DIR) > $(STRESS_DIR)/lifetime.txt
	@# a failed run's timeline beside its log (docs/trace.md)
	@$(call TRACE_KEEP,$(STRESS_DIR)/logs)
	@status=$$(cat $(STRESS_DIR)/status); \
		echo "stress: $$(tail -n 1 $(STRESS_DIR)/report.tap) (report: $(STRESS_DIR)/report.tap, lifetime: $(STRESS_DIR)/lifetime.txt)"; \
		exit $$status

# ---- the lifetime stress (lifetime/, docs/stress.md) ----------------------
# One QEMU per entry of LT_RUNS (CPUs:refmode:modref), each running
# `stress lifetime` for OPS ops with host UDP and TCP traffic, generated
# from tests/stress/lifetime.scn.in into $(STRESS_DIR)/scn/.  The report,
# $(STRESS_DIR)/lifetime.txt, has per run the ops and outcomes per kind,
# the rmmod wait times (min/median/p99/max) and the replay command; beside
# it lifetime-runs.dat (ops/s and waits, a line per run) and its plots,
# lifetime-ops.png and lifetime-rmmod-wait.png (docs/stress.md).
#   make stress                       core stress + every LT_RUNS entry
#   make stress SEED=S OPS=N SMP=C [REFMODE=R MODREF=M]
#                                     replay: only the lifetime runs on C
#                                     CPUs, with that seed and op count
#   make stress-lifetime              only the lifetime runs
#   make stress-long                  100,000 load/unload cycles of every
#                                     module (not in CI; docs/stress.md)
OPS ?= 6000
SEED ?=
REFMODE ?=
MODREF ?=
LT_RUNS ?= 1:wait:percpu 2:owner:atomic 2:pinned:percpu 4:legacy:percpu \
	8:wait:atomic
LT_SELECTED = $(if $(SMP),$(filter $(SMP):%,$(LT_RUNS)),$(LT_RUNS))

stress-lifetime-gen:
	@rm -rf $(STRESS_DIR)/scn $(STRESS_DIR)/profiles
	@mkdir -p $(STRESS_DIR)/scn $(STRESS_DIR)/profiles $(STRESS_DIR)/logs
	@cp qemu/*.profile $(STRESS_DIR)/profiles/
	@test -n "$(LT_SELECTED)" || { echo "stress: no LT_RUNS entry for SMP=$(SMP)"; exit 1; }
	@LT_CYCLES='$(CYCLES)' LT_MODS='$(LT_MODS)' LT_MIX='$(LT_MIX)' \
		LT_ARGS='$(LT_ARGS)' \
		tests/stress/lifetime-gen.sh $(STRESS_DIR) $(OPS) '$(SEED)' \
		'$(REFMODE)' '$(MODREF)' $(LT_SELECTED)

stress-lifetime: deps kernel host modules
	@rm -rf $(STRESS_DIR) && mkdir -p $(STRESS_DIR)/logs
	@$(MAKE) --no-print-directory stress-lifetime-gen
	@echo "stress: lifetime: $(LT_SELECTED), $(if $(CYCLES),CYCLES=$(CYCLES),OPS=$(OPS))$(if $(SEED), SEED=$(SEED)); report in $(STRESS_DIR)/lifetime.txt"
	@{ $(HOSTBIN)/modref-harness test -j $(STRESS_JOBS) \
		--kernel $(KERNEL) --logs $(STRESS_DIR)/logs \
		--profiles $(STRESS_DIR)/profiles \
		--timeout-scale $(STRESS_TIMEOUT_SCALE) $(STRESS_DIR)/scn; \
		echo $$? > $(STRESS_DIR)/status; } | tee $(STRESS_DIR)/report.tap
	@$(STRESS_GNUPLOT)
	@tests/stress/lifetime-report.sh $(STRESS_DIR)/logs $(STRESS_DIR) > $(STRESS_DIR)/lifetime.txt
	@# a failed run's timeline beside its log (docs/trace.md)
	@$(call TRACE_KEEP,$(STRESS_DIR)/logs)
	@tail -n 25 $(STRESS_DIR)/lifetime.txt
	@# a failed run: the command that shrinks it to a reproducer
	@grep '^# FAILED' $(STRESS_DIR)/report.tap | \
		sed -n 's/.*(log: \(.*\))$$/stress: reproduce with: make repro LOG=\1/p'
	@exit $$(cat $(STRESS_DIR)/status)

# make stress-long: LONG_CYCLES module load/unload cycles in all (split
# over LONG_RUNS, run LONG_JOBS at a time), every module the tree builds
# that can load (LONG_MODS; badparam, failinit and unresolved are built
# to be refused), an op mix weighted towards insmod/rmmod with every
# other op still in it, host traffic on both NICs.  LONG_SECS bounds
# each run (it then passes with the cycles it reached).  One run at a
# time by default: two 4-CPU QEMUs on 2 busy host cores made 1-2 cycles/s
# each, one alone 8-15.
LONG_CYCLES ?= 100000
LONG_RUNS ?= 4:wait:percpu 4:owner:atomic
LONG_JOBS ?= 1
LONG_MODS ?= all
LONG_MIX ?= cycles
LONG_SECS ?=
CYCLES ?=
LT_MODS ?=
LT_MIX ?=
LT_ARGS ?=
stress-long:
	$(MAKE) stress-lifetime STRESS_JOBS=$(LONG_JOBS) \
		CYCLES=$$(( $(LONG_CYCLES) / $(words $(LONG_RUNS)) )) \
		LT_RUNS='$(LONG_RUNS)' LT_MODS='$(LONG_MODS)' LT_MIX='$(LONG_MIX)' \
		LT_ARGS='holdmax=100$(if $(LONG_SECS), secs=$(LONG_SECS))'

.PHONY: stress-lifetime stress-lifetime-gen stress-long replay

# ---- make replay: QEMU record/replay of one lifetime run -------------------
# One CPU, one NIC at a time (REPLAY_NICS, default the e1000):
# `stress lifetime seed=SEED ops=REPLAY_OPS` is run under `-icount
# rr=record` (a filter-replay on the netdev), then replayed from the
# recording; the two serial logs must be identical.  Both NICs in one
# machine, and virtio-net alone one time in two, stall QEMU 7.2's replay
# at the first DHCP lease (docs/stress.md, "make replay"); the e1000
# alone replayed every time.  Recordings, logs and scenarios stay in
# $(REPLAY_DIR)/NIC; replay one again with
#   build/host/modref-harness test --profiles build/replay/NIC/replay --logs build/replay/NIC/replay build/replay/NIC/replay/lifetime.scn
REPLAY_DIR := $(BUILD)/replay
REPLAY_OPS ?= 1000
REPLAY_NICS ?= e1000
replay: deps kernel host modules
	@rm -rf $(REPLAY_DIR)
	@# Same scenario and profile names in both runs: the guest sees them
	@# (the initrd's name), and a replay must see what the recording saw.
	@for nic in $(REPLAY_NICS); do d=$(REPLAY_DIR)/$$nic; \
		for m in record replay; do mkdir -p $$d/$$m; \
		printf 'smp 1\nmem 128M\nnic %s\nboot direct\nnet user\nrr %s\nrrfile %s/lifetime.rr\n' \
			$$nic $$m $$d > $$d/$$m/rr.profile; \
		sed -e "s/@MODE@/$$m/g" -e "s/@REFMODE@/$(if $(REFMODE),$(REFMODE),wait)/" \
			-e "s/@SEED@/$(if $(SEED),$(SEED),42)/" -e "s/@OPS@/$(REPLAY_OPS)/" \
			-e "s/@LIMIT@/$$(( $(REPLAY_OPS) / 2 + 300 ))/g" \
			tests/stress/replay.scn.in > $$d/$$m/lifetime.scn; done; done
	@for nic in $(REPLAY_NICS); do d=$(REPLAY_DIR)/$$nic; \
		for m in record replay; do \
		$(HOSTBIN)/modref-harness test -j 1 --kernel $(KERNEL) \
			--profiles $$d/$$m --logs $$d/$$m \
			--timeout-scale $(STRESS_TIMEOUT_SCALE) \
			$$d/$$m/lifetime.scn || exit 1; \
		grep -v '^### harness:' $$d/$$m/lifetime-rr.log > $$d/$$m.out; done; \
		if cmp -s $$d/record.out $$d/replay.out; then \
			echo "replay: $$nic: the replayed run's serial output is identical to the recorded one ($$(wc -l < $$d/record.out) lines; recording $$d/lifetime.rr)"; \
		else diff $$d/record.out $$d/replay.out | head -20; \
			echo "replay: $$nic: FAIL: the replay differs from the recording"; exit 1; fi; done

# ---- make stress-console: the serial-console stress ------------------------
# build/host/consolegen SEED COUNT writes a scenario that types COUNT seeded
# console commands while `stress lifetime bg=1` runs (docs/stress.md);
# tests/scenarios/stress-console.scn is one checked in (make test).
CONSOLE_OPS ?= 60
host: $(HOSTBIN)/consolegen
$(HOSTBIN)/consolegen: tests/stress/consolegen.c
	@mkdir -p $(HOSTBIN)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

stress-console: deps kernel host modules $(HOSTBIN)/consolegen
	@mkdir -p $(STRESS_DIR)/console
	$(HOSTBIN)/consolegen $(if $(SEED),$(SEED),$$(date +%s)) $(CONSOLE_OPS) \
		> $(STRESS_DIR)/console/stress-console.scn
	@head -2 $(STRESS_DIR)/console/stress-console.scn
	$(HOSTBIN)/modref-harness test -j 1 --kernel $(KERNEL) \
		--logs $(STRESS_DIR)/console \
		--timeout-scale $(STRESS_TIMEOUT_SCALE) \
		$(STRESS_DIR)/console/stress-console.scn

.PHONY: stress-console
