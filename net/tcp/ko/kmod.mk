# tcp.ko: the pure core (net/tcp/*.c) and its kernel wrapper
# (net/tcp/ko/*.c) linked into one module.  Included from
# net/tcp/host.mk, before modloader/modules.mk, so names are spelled out.
TCPKO_SRCS := $(wildcard net/tcp/*.c) $(wildcard net/tcp/ko/*.c)
TCPKO_OBJS := $(patsubst %.c,$(BUILD)/modules/obj/tcp/%.o,$(TCPKO_SRCS))
TCPKO      := $(BUILD)/modules/tcp.ko

$(BUILD)/modules/obj/tcp/%.o: %.c
	@mkdir -p $(dir $@)
	@$(KCC) $(filter-out -MMD -MP,$(KCFLAGS)) -fno-asynchronous-unwind-tables \
		-DMODULE -MMD -MP -DKBUILD_MODNAME='"tcp"' -c $< -o $@

$(TCPKO): $(TCPKO_OBJS)
	@echo "  MOD     $@ ($(words $^) objects)"
	@$(KLD) -m elf_i386 -r -o $@ $^

# Host peers for the interop scenarios (tests/scenarios/tcp-*.scn).
TCP_PEERS := $(patsubst tests/tcp/peer/%.c,$(HOSTBIN)/%,$(wildcard tests/tcp/peer/*.c))
$(HOSTBIN)/tcp-%: tests/tcp/peer/tcp-%.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

modules: $(TCPKO)
all: $(TCPKO)
host: $(TCP_PEERS)
