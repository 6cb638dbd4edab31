/*
 * Host unit tests for the pure IPv4 protocol layer in net/ (listed in
 * docs/net-protocols.md), printed as KTAP v1.  Run from the repository
 * root: the corpus suite reads tests/net/corpus.
 */
#include "tests/net/nettest.h"

extern const struct kt_suite csum_suite, ether_suite, arp_suite, neigh_suite,
    ipv4_suite, icmp_suite, udp_suite, route_suite, dhcp_proto_suite,
    dhcp_fsm_suite, slirp_suite, corpus_suite, tbucket_suite, drop_suite;

int
main(void)
{
	/* drop_suite last: it checks what the others exercised. */
	static const struct kt_suite *const suites[] = {
	    &csum_suite,       &ether_suite,    &arp_suite,   &neigh_suite,
	    &ipv4_suite,       &icmp_suite,     &udp_suite,   &route_suite,
	    &dhcp_proto_suite, &dhcp_fsm_suite, &slirp_suite, &corpus_suite,
	    &tbucket_suite,    &drop_suite,
	};

	return kt_run(suites, ARRAY_LEN(suites));
}
