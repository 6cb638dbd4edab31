# Host tools for network tests (included by the top Makefile).
$(HOSTBIN)/rawpeer: tests/net/rawpeer.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/rawpeer

# The host side of the guest's `udpecho` service (tests/scenarios/inet-udp.scn).
$(HOSTBIN)/udpecho-client: tests/net/udpecho-client.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/udpecho-client

# Hostile frames for the IPv4 stack (tests/scenarios/inet-fuzz.scn).
$(HOSTBIN)/inetfuzz: tests/net/inetfuzz.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $<

host: $(HOSTBIN)/inetfuzz
