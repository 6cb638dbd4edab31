# The mutation campaign (docs/repro.md): build/host/mutants re-injects
# each bug of tests/mutants/*.mutant into a scratch copy of the tree and
# runs tests/mutants/campaign.list until a scenario fails.  Long: kept
# out of make test, whose mutants-smoke.scn runs two of them.

$(HOSTBIN)/mutants: tests/mutants/mutants.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/mutants

# What a mutant's copy builds before its scenarios run: what make test
# needs, without make deps (the machine has them: this runs from one).
mutant-build: all iso $(INITRD_TESTS)

MUTANTS ?= $(wildcard tests/mutants/*.mutant)
mutants: deps all iso $(INITRD_TESTS)
	$(HOSTBIN)/mutants -j $(JOBS) $(MUTANTS)

.PHONY: mutants mutant-build
