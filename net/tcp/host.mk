# Host builds of the TCP core (net/tcp/), included by the top Makefile
# after HOSTBIN, HOSTCC, HOSTCFLAGS, KCC, KLD and KCFLAGS are set:
#
#   $(HOSTBIN)/tcp-unittest   KTAP unit tests: two cores over an in-memory
#                             wire (tests/tcp/tnet.c), ASan+UBSan
#   $(HOSTBIN)/tcp-fuzz       libFuzzer target (clang): segments and user
#                             calls against a connection in every state
#   $(HOSTBIN)/tcp/kcheck.o   the core built with KCFLAGS, proving it
#                             freestanding (not linked into the kernel)
#
# tests/scenarios/tcp-host.scn runs them from the repo root.

TCP_DIR      := $(HOSTBIN)/tcp
# The core, plus the checksum it shares with the rest of net/.
TCP_CORE     := $(wildcard net/tcp/*.c) net/ipv4/inet_csum.c
TCP_HDRS     := $(wildcard net/tcp/*.h) net/ipv4/inet_csum.h net/ipv4/proto_lib.h
TCP_TESTSRC  := $(filter-out tests/tcp/fuzz.c,$(wildcard tests/tcp/*.c)) \
                tests/lib/ktap.c
TCP_FUZZSRC  := tests/tcp/fuzz.c
TCP_FUZZCC   ?= clang
TCP_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all

TCP_UNITOBJS := $(patsubst %.c,$(TCP_DIR)/obj/%.o,$(TCP_CORE) $(TCP_TESTSRC))

$(TCP_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(TCP_SAN) -c $< -o $@

$(HOSTBIN)/tcp-unittest: $(TCP_UNITOBJS)
	$(HOSTCC) $(TCP_SAN) -o $@ $^

$(HOSTBIN)/tcp-fuzz: $(TCP_CORE) $(TCP_FUZZSRC) $(TCP_HDRS)
	@mkdir -p $(dir $@)
	$(TCP_FUZZCC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(TCP_CORE) $(TCP_FUZZSRC)

# The core must build for the kernel and need nothing from outside but
# the mem* functions kernel/lib/string.h provides.
$(TCP_DIR)/kcheck.o: $(TCP_CORE) $(TCP_HDRS)
	@mkdir -p $(dir $@)/k
	@for f in $(TCP_CORE); do \
		$(KCC) $(filter-out -MMD -MP,$(KCFLAGS)) -c $$f \
			-o $(dir $@)/k/$$(basename $$f .c).o || exit 1; done
	$(KLD) -m elf_i386 -r -o $@ $(dir $@)/k/*.o
	@undef=$$($(CROSS)nm -u $@ | grep -v -w -e memcpy -e memset -e memmove -e memcmp); \
	if [ -n "$$undef" ]; then \
		echo "tcp core is not freestanding:"; echo "$$undef"; \
		rm -f $@; exit 1; fi

# The fuzzer writes what it discovers into the first corpus directory:
# keep that in build/; the committed seeds in tests/tcp/corpus (one per
# starting state) are only read.
$(TCP_DIR)/corpus/.stamp:
	@mkdir -p $(dir $@)
	@touch $@

TCP_HOST_TARGETS := $(HOSTBIN)/tcp-unittest $(HOSTBIN)/tcp-fuzz \
	$(TCP_DIR)/kcheck.o $(TCP_DIR)/corpus/.stamp

host: $(TCP_HOST_TARGETS)

# What tests/scenarios/tcp-host.scn runs, without the harness.
.PHONY: tcp-test
tcp-test: $(TCP_HOST_TARGETS)
	$(HOSTBIN)/tcp-unittest
	$(HOSTBIN)/tcp-fuzz -max_total_time=15 -artifact_prefix=$(TCP_DIR)/ \
		$(TCP_DIR)/corpus tests/tcp/corpus

include net/tcp/ko/kmod.mk
