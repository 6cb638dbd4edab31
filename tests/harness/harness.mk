# Host test harness: modref-harness (runs scenarios against QEMU), its
# unit tests, and the fake QEMU + end-to-end checker used by its
# self-tests.  Included by the top-level Makefile; see docs/harness.md.

HARNESS_DIR := tests/harness
HARNESS_OBJDIR := $(HOSTBIN)/obj/harness
HARNESS_LIB := util profile script ktap console netdev qemu report run hostcmd \
	stamp initrd audit tap kcidbrun
HARNESS_LIBOBJS := $(HARNESS_LIB:%=$(HARNESS_OBJDIR)/%.o) \
	$(HARNESS_OBJDIR)/newc_write.o $(HOSTBIN)/obj/kcidb/kcidb.o \
	$(HOSTBIN)/obj/kcidb/json.o
HARNESS_UTOBJS := $(patsubst %,$(HARNESS_OBJDIR)/%.o,unittest ut_script ut_ktap ut_io ut_audit ut_kcidb)

$(HARNESS_OBJDIR)/%.o: $(HARNESS_DIR)/%.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

# The archive writer is shared with scripts/mkinitrd.c; the KCIDB writer
# (--kcidb) is tests/kcidb/kcidb.c with the JSON quoting of
# tests/lava/json.c, both built by tests/kcidb/kcidb.mk.
$(HARNESS_OBJDIR)/newc_write.o: scripts/newc_write.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

$(HOSTBIN)/modref-harness: $(HARNESS_LIBOBJS) $(HARNESS_OBJDIR)/main.o
	$(HOSTCC) -o $@ $^

# The audit's crafted capture takes its checksums from net/ipv4/inet_csum.c
# (tshark is the independent judge).
$(HARNESS_OBJDIR)/inet_csum.o: net/ipv4/inet_csum.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

$(HOSTBIN)/harness-unittest: $(HARNESS_LIBOBJS) $(HARNESS_UTOBJS) \
		$(HARNESS_OBJDIR)/inet_csum.o
	$(HOSTCC) -o $@ $^

$(HOSTBIN)/fake-qemu: $(HARNESS_OBJDIR)/fake-qemu.o
	$(HOSTCC) -o $@ $^

$(HOSTBIN)/harness-e2e: $(HARNESS_OBJDIR)/e2e.o $(HARNESS_OBJDIR)/util.o
	$(HOSTCC) -o $@ $^

host: $(HOSTBIN)/modref-harness $(HOSTBIN)/harness-unittest \
	$(HOSTBIN)/fake-qemu $(HOSTBIN)/harness-e2e
