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
# Mutants at once, each in its own scratch copy: most of a campaign's
# time is a guest waiting (a TIME_WAIT, a timeout awaited), so three
# share two cores well.
MUTANT_JOBS ?= 3
mutants: deps all iso $(INITRD_TESTS)
	$(HOSTBIN)/mutants -j $(JOBS) -P $(MUTANT_JOBS) $(MUTANTS)

.PHONY: mutants mutant-build
