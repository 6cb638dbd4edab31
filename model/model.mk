# The unload protocol, model-checked (model/unload.pml, docs/model.md).
# Included by the top Makefile.
#
#   $(HOSTBIN)/modelcheck   runs SPIN over every refmode and race, checks
#                           each property holds or fails as expected,
#                           turns trails into console steps and scenarios
#
# tests/scenarios/model-check.scn runs it (make test, small bounds);
# `make verify` runs it with larger bounds.

DEPS_PKGS += spin

$(HOSTBIN)/modelcheck: model/modelcheck.c tests/lib/ktap.c \
		tests/lib/ktap.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ model/modelcheck.c tests/lib/ktap.c

host: $(HOSTBIN)/modelcheck

.PHONY: verify
verify: deps $(HOSTBIN)/modelcheck
	$(HOSTBIN)/modelcheck --verify
