# make repro LOG=X.log (docs/repro.md): build/host/repro shrinks a failing
# lifetime stress run, a run that failed in a KTAP case, or any other
# failed scenario run, to a deterministic reproducer scenario.

$(HOSTBIN)/repro: tests/repro/repro.c tests/repro/repro_ktap.c tests/repro/repro_scn.c \
		tests/repro/repro_sweep.c tests/repro/steps.c \
		tests/repro/repro.h tests/repro/steps.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.c,$^)

host: $(HOSTBIN)/repro

REPRO_RUNS ?= 10
# Delta debugging's time, s (0: bounded by its 400 trials alone).
# SOUND=DIR: a built tree with the fix, where a trial must pass to count.
REPRO_SECS ?= 0
repro: deps all
	@test -n "$(LOG)" || { echo "usage: make repro LOG=build/stress/logs/X.log"; exit 2; }
	$(HOSTBIN)/repro -r $(REPRO_RUNS) -T $(REPRO_SECS) $(if $(SOUND),-S $(SOUND)) $(LOG)

.PHONY: repro
