/*
 * Whole frames as QEMU's slirp sends them, down every layer the way the
 * kernel's receive path will go; and the fuzzer's corpus replayed
 * through the fuzz pipeline, so a saved crash stays fixed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "net/apps/dhcp_fsm.h"
#include "net/ipv4/ether_hdr.h"
#include "net/ipv4/ipv4_hdr.h"
#include "net/ipv4/udp_proto.h"
#include "tests/net/nettest.h"
#include "tests/net/packets.h"
#include "tests/net/pipeline.h"

/* Ethernet -> IPv4 -> UDP 67->68 -> DHCP, as the kernel will chain it. */
static void
offer_down_the_stack(struct kt *t)
{
	struct ether_frame f;
	struct ipv4_info h;
	struct udp_dgram u;
	struct dhcp_msg m;

	KT_ASSERT(t, ether_parse(slirp_dhcp_offer, 590, &f) == NET_DROP_NONE);
	KT_EXPECT(t, ether_is_for(f.dst, guest_mac));
	KT_EXPECT_EQ(t, f.type, ETH_P_IP);
	KT_ASSERT(t, ipv4_parse(f.payload, f.payload_len, &h) == NET_DROP_NONE);
	KT_EXPECT_EQ(t, h.proto, IP_PROTO_UDP);
	KT_ASSERT(t, udp_parse(h.payload, h.payload_len, h.src, h.dst, &u) ==
	                 NET_DROP_NONE);
	KT_EXPECT_EQ(t, u.sport, DHCP_SERVER_PORT);
	KT_EXPECT_EQ(t, u.dport, DHCP_CLIENT_PORT);
	KT_EXPECT_EQ(t, u.payload_len, 548);
	KT_ASSERT(t, dhcp_parse_reply(u.payload, u.payload_len, &m) ==
	                 NET_DROP_NONE);
	KT_EXPECT_EQ(t, m.yiaddr, IP4(10, 0, 2, 15));
}

/* A DHCP client fed the two slirp frames ends BOUND to 10.0.2.15. */
static void
client_binds_from_frames(struct kt *t)
{
	static const uint8_t *const frames[] = {slirp_dhcp_offer,
	                                        slirp_dhcp_ack};
	struct dhcp_params p = dhcp_default_params;
	uint8_t buf[DHCP_BUILD_LEN];
	struct dhcp_client c;
	struct dhcp_out out;
	size_t i;

	dhcp_client_init(&c, guest_mac, 7);
	dhcp_client_start(&c, &p, 0, buf, sizeof(buf), &out);
	c.xid = SLIRP_XID; /* as if slirp had answered our DISCOVER */
	for (i = 0; i < ARRAY_LEN(frames); i++) {
		const uint8_t *bootp = frames[i] + 42;

		KT_EXPECT_DROP(t,
		               dhcp_client_input(&c, &p, 100 * i, bootp, 548,
		                                 buf, sizeof(buf), &out),
		               NET_DROP_NONE);
	}
	KT_EXPECT_EQ(t, c.state, DHCP_BOUND);
	KT_EXPECT_EQ(t, out.events, DHCP_EV_BOUND);
	KT_EXPECT_EQ(t, c.lease.addr, IP4(10, 0, 2, 15));
	KT_EXPECT_EQ(t, ipv4_mask_len(c.lease.mask), 24);
}

/* The pipeline accepts each slirp frame without counting a drop at the
 * layers it was meant for. */
static void
pipeline_on_slirp_frames(struct kt *t)
{
	size_t i;

	for (i = 0; i < slirp_npackets; i++) {
		struct net_drop_stats st;
		const char *why;

		memset(&st, 0, sizeof(st));
		why = net_pipeline(slirp_packets[i].data, slirp_packets[i].len,
		                   &st);
		if (why != NULL)
			kt_fail(t, __FILE__, __LINE__, "%s: %s",
			        slirp_packets[i].name, why);
		KT_EXPECT_EQ(t, st.count[NET_DROP_ETH_TRUNCATED], 0);
	}
}

static const struct kt_case slirp_cases[] = {
    KT_CASE(offer_down_the_stack),
    KT_CASE(client_binds_from_frames),
    KT_CASE(pipeline_on_slirp_frames),
    KT_END,
};
const struct kt_suite slirp_suite = {"slirp", slirp_cases};

#define CORPUS "tests/net/corpus"

/* Every file of the seed corpus (and any saved crash) through the fuzz
 * pipeline: no invariant may break. */
static void
replay_corpus(struct kt *t)
{
	static uint8_t data[1 << 16];
	char path[512];
	struct dirent *d;
	DIR *dir = opendir(CORPUS);
	int files = 0;

	KT_ASSERT(t, dir != NULL);
	while ((d = readdir(dir)) != NULL) {
		FILE *f;
		size_t n;
		const char *why;

		if (d->d_name[0] == '.' || strcmp(d->d_name, "README") == 0)
			continue;
		snprintf(path, sizeof(path), CORPUS "/%s", d->d_name);
		f = fopen(path, "rb");
		if (f == NULL)
			continue;
		n = fread(data, 1, sizeof(data), f);
		fclose(f);
		why = net_pipeline(data, n, NULL);
		if (why != NULL)
			kt_fail(t, __FILE__, __LINE__, "%s: %s", d->d_name,
			        why);
		files++;
	}
	closedir(dir);
	KT_EXPECT(t, files >= 9);
}

static const struct kt_case corpus_cases[] = {
    KT_CASE(replay_corpus),
    KT_END,
};
const struct kt_suite corpus_suite = {"corpus", corpus_cases};
