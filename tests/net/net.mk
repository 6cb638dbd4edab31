# Host tools for network tests (included by the top Makefile).
$(HOSTBIN)/rawpeer: tests/net/rawpeer.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/rawpeer
