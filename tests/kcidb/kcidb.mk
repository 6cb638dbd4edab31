# KCIDB report data (docs/lava.md, "KCIDB"): the writer shared by
# modref-harness (--kcidb FILE) and lava-results (kcidb), and kcidb-check,
# which validates a file against the schema's required fields and types.
# Included by the top Makefile after HOSTBIN, HOSTCC and HOSTCFLAGS are
# set; tests/scenarios/kcidb.scn runs it all in make test.

KCIDB_OBJDIR := $(HOSTBIN)/obj/kcidb
KCIDB_OBJ    := $(KCIDB_OBJDIR)/kcidb.o

$(KCIDB_OBJDIR)/%.o: tests/kcidb/%.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

$(HOSTBIN)/kcidb-check: $(KCIDB_OBJDIR)/kcidb-check.o $(KCIDB_OBJ) \
		$(HOSTBIN)/obj/harness/util.o $(KCIDB_OBJDIR)/json.o
	$(HOSTCC) -o $@ $^

# The JSON reader and quoting are lava-results' (tests/lava/json.c).
$(KCIDB_OBJDIR)/json.o: tests/lava/json.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

host: $(HOSTBIN)/kcidb-check
