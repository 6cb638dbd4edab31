# make lint: the lock legends checked by the compiler (kernel/locking/lockcheck.h).
# clang's thread-safety analysis over every kernel and module source,
# analysis only (-fsyntax-only: gcc builds the kernel), warnings as
# errors.  Included after modloader/modules.mk (MODULE_DIRS, TCPKO_SRCS).

LINT_CC     ?= clang
LINT_CFLAGS := --target=i686-linux-gnu -std=c11 -ffreestanding -fno-pie \
	-fsyntax-only -I. -DMODREF_LOCKCHECK -Wthread-safety -Werror \
	-Wno-unknown-attributes
LINT_KSRCS  = $(filter %.c,$(KSRCS))
LINT_MSRCS  = $(foreach d,$(MODULE_DIRS),$(wildcard $(d)/*.c $(d)/*/*.c)) \
	$(TCPKO_SRCS)

lint:
	@command -v $(LINT_CC) >/dev/null || { echo "lint: $(LINT_CC) not found (make deps installs clang)"; exit 2; }
	@fail=0; for f in $(LINT_KSRCS); do \
		$(LINT_CC) $(LINT_CFLAGS) $$f || fail=1; done; \
	for f in $(LINT_MSRCS); do \
		$(LINT_CC) $(LINT_CFLAGS) -DMODULE -DKBUILD_MODNAME='"lint"' \
			$$f || fail=1; done; \
	test $$fail -eq 0 && echo "lint: $(words $(LINT_KSRCS) $(LINT_MSRCS)) sources, the lock legends hold"

# The fixture: what the analysis must catch (tests/scenarios/lint.scn).
lint-fixture:
	@$(LINT_CC) $(LINT_CFLAGS) tests/lint/fixture/legends.c 2>&1 | \
		sed -n "s/^\([^:]*\):\([0-9]*\):[0-9]*: error: \(.*\) \[-W.*/\1:\2: \3/p"

.PHONY: lint lint-fixture
