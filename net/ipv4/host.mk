# Host builds of the pure IPv4 protocol layer (included by the top
# Makefile after HOSTBIN, HOSTCC, HOSTCFLAGS, KCC, KLD and KCFLAGS):
#
#   $(HOSTBIN)/net-unittest   KTAP unit tests, ASan+UBSan
#   $(HOSTBIN)/net-fuzz       libFuzzer target over every parser (clang)
#   $(HOSTBIN)/net-mkseeds    writes the seed corpus (tests/net/corpus)
#   $(HOSTBIN)/net/kcheck.o   the layer built with KCFLAGS and linked -r,
#                             proving it needs nothing but mem* from the
#                             kernel
#
# tests/scenarios/net-host.scn runs them from the repo root; docs/
# net-protocols.md describes the files.  The rest of net/ (devices,
# skbs) is kernel-only and not listed here.

NET_DIR   := $(HOSTBIN)/net
NET_PROTO := net/ipv4/inet_csum.c net/ipv4/ether_hdr.c net/ipv4/arp_proto.c \
	net/ipv4/neigh_fsm.c net/ipv4/ipv4_hdr.c net/ipv4/icmp_proto.c net/ipv4/udp_proto.c \
	net/ipv4/route_table.c net/apps/dhcp_proto.c net/apps/dhcp_fsm.c net/ipv4/net_drop.c \
	net/ipv4/tbucket.c
NET_PROTO_H := $(NET_PROTO:.c=.h) net/ipv4/proto_lib.h
NET_TESTSRC := tests/net/unittest.c tests/net/test_csum.c \
	tests/net/test_ether_arp.c tests/net/test_neigh.c \
	tests/net/test_ipv4.c tests/net/test_icmp_udp.c \
	tests/net/test_route.c tests/net/test_dhcp.c \
	tests/net/test_dhcp_fsm.c tests/net/test_slirp.c \
	tests/net/test_drop.c tests/net/test_tbucket.c tests/net/packets.c \
	tests/net/pipeline.c \
	tests/lib/ktap.c
NET_FUZZSRC := tests/net/fuzz.c tests/net/pipeline.c
NET_FUZZCC  ?= clang
NET_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all

NET_UNITOBJS := $(patsubst %.c,$(NET_DIR)/obj/%.o,$(NET_PROTO) $(NET_TESTSRC))

$(NET_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(NET_SAN) -c $< -o $@

$(HOSTBIN)/net-unittest: $(NET_UNITOBJS)
	$(HOSTCC) $(NET_SAN) -o $@ $^

$(HOSTBIN)/net-fuzz: $(NET_PROTO) $(NET_FUZZSRC) $(NET_PROTO_H) \
		tests/net/pipeline.h
	@mkdir -p $(dir $@)
	$(NET_FUZZCC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(NET_PROTO) $(NET_FUZZSRC)

$(HOSTBIN)/net-mkseeds: tests/net/mkseeds.c tests/net/packets.c \
		tests/net/packets.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(filter-out -MMD -MP,$(HOSTCFLAGS)) -o $@ \
		tests/net/mkseeds.c tests/net/packets.c

# Freestanding: built as the kernel builds it, the only undefined
# symbols allowed are the mem* functions kernel/lib/string.c provides.
NET_KALLOWED := memcpy|memmove|memset|memcmp
$(NET_DIR)/kcheck.o: $(NET_PROTO) $(NET_PROTO_H)
	@mkdir -p $(dir $@)/k
	@for f in $(NET_PROTO); do \
		$(KCC) $(filter-out -MMD -MP,$(KCFLAGS)) -c $$f \
			-o $(dir $@)/k/$$(basename $$f .c).o || exit 1; done
	$(KLD) -m elf_i386 -r -o $@ $(patsubst %.c,$(dir $@)/k/%.o,$(notdir $(NET_PROTO)))
	@undef=$$($(CROSS)nm -u $@ | awk '{print $$2}' | \
		grep -vxE '$(NET_KALLOWED)'); \
	if [ -n "$$undef" ]; then \
		echo "net protocol layer is not freestanding:"; echo "$$undef"; \
		rm -f $@; exit 1; fi

# libFuzzer writes discoveries into its first corpus directory: keep that
# in build/, seeded from the committed tests/net/corpus (only read).
$(NET_DIR)/corpus/.stamp: $(wildcard tests/net/corpus/*.seed)
	@mkdir -p $(dir $@)
	cp tests/net/corpus/*.seed $(dir $@)
	@touch $@

NET_HOST_TARGETS := $(HOSTBIN)/net-unittest $(HOSTBIN)/net-fuzz \
	$(HOSTBIN)/net-mkseeds $(NET_DIR)/kcheck.o $(NET_DIR)/corpus/.stamp

host: $(NET_HOST_TARGETS)

# What tests/scenarios/net-host.scn runs, without the harness.
.PHONY: net-test
net-test: $(NET_HOST_TARGETS)
	$(HOSTBIN)/net-unittest
	$(HOSTBIN)/net-fuzz -max_total_time=15 -artifact_prefix=$(NET_DIR)/ \
		$(NET_DIR)/corpus tests/net/corpus
