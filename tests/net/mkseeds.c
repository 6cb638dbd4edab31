/*
 * Writes the fuzzer's seed corpus: the slirp frames of packets.c, and
 * their inner layers on their own (IPv4 packet, ARP packet, DHCP
 * message), since the pipeline also feeds raw bytes to each layer.
 *
 *   build/host/net-mkseeds tests/net/corpus
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/net/packets.h"

static void
put(const char *dir, const char *name, const uint8_t *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.seed", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < slirp_npackets; i++)
		put(argv[1], slirp_packets[i].name, slirp_packets[i].data,
		    slirp_packets[i].len);
	put(argv[1], "ip_dhcp_offer", slirp_dhcp_offer + 14,
	    sizeof(slirp_dhcp_offer) - 14);
	put(argv[1], "bootp_dhcp_ack", slirp_dhcp_ack + 42,
	    sizeof(slirp_dhcp_ack) - 42);
	put(argv[1], "arp_only", slirp_arp_reply + 14, 28);
	put(argv[1], "ip_icmp_echo_reply", slirp_icmp_echo_reply + 14,
	    sizeof(slirp_icmp_echo_reply) - 14);
	return 0;
}
