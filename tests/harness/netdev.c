/*
 * Network arguments for QEMU: one netdev backend per NIC (user, dgram),
 * host port forwards and packet capture.  New backends (dgram, socket) and
 * options such as tftp=DIR belong in backend_args(); the NIC side does not
 * change.
 */
#include "tests/harness/qemu.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Netdev id "nN" goes with the NIC model in slot N. */
static const char *const nic_models[] = {"e1000", "virtio-net-pci"};

/* QEMU's defaults for the first and second NIC, made explicit so they do
 * not depend on which NICs a profile has. */
const char *const guest_macs[2] = {"52:54:00:12:34:56", "52:54:00:12:34:57"};

static void
backend_args(const struct qemu_config *q, struct argv *a, int slot, bool first)
{
	struct strbuf sb;

	sb_init(&sb);
	switch (q->prof->net) {
	case NET_USER:
		sb_addf(&sb, "user,id=n%d", slot);
		if (q->prof->subnet[slot][0] != '\0')
			sb_addf(&sb, ",net=%s", q->prof->subnet[slot]);
		/* QEMU's built-in TFTP server answers at 10.0.2.2 on every
		 * NIC's network. */
		if (q->tftp_dir != NULL)
			sb_addf(&sb, ",tftp=%s", q->tftp_dir);
		/* Forwards go to the first NIC (that is where DHCP lands),
		 * or with `second` to the second one. */
		for (int i = 0; i < q->nfwd; i++)
			if (q->fwd[i].second != first)
				sb_addf(
				    &sb, ",hostfwd=%s:127.0.0.1:%d-:%d",
				    q->fwd[i].proto == FWD_UDP ? "udp" : "tcp",
				    q->fwd_host_port[i], q->fwd[i].guest_port);
		break;
	case NET_DGRAM:
		/* Each frame is one UDP datagram between QEMU's port and the
		 * peer's (a host tool in tests/net/), both on loopback. */
		sb_addf(&sb,
		        "dgram,id=n%d,local.type=inet,local.host=127.0.0.1,"
		        "local.port=%d,remote.type=inet,remote.host=127.0.0.1,"
		        "remote.port=%d",
		        slot, q->dgram_port[slot][0], q->dgram_port[slot][1]);
		break;
	case NET_TAP:
		/* The harness opened the tap inside the run's namespace
		 * (tap.c); QEMU inherits it. */
		sb_addf(&sb, "tap,id=n%d,fd=%d", slot, q->tap_fd[slot]);
		break;
	case NET_NONE:
		sb_free(&sb);
		return;
	}
	argv_add(a, "-netdev");
	argv_add(a, sb.buf);
	sb_free(&sb);
	if (q->prof->rr[0] != '\0') {
		argv_add(a, "-object");
		argv_addf(a, "filter-replay,id=r%d,netdev=n%d", slot, slot);
	}
	if (q->pcap_prefix != NULL) {
		argv_add(a, "-object");
		argv_addf(a, "filter-dump,id=f%d,netdev=n%d,file=%s-n%d.pcap",
		          slot, slot, q->pcap_prefix, slot);
	}
}

void
netdev_add_args(const struct qemu_config *q, struct argv *a)
{
	bool want[2] = {q->prof->nic == NIC_E1000 || q->prof->nic == NIC_BOTH,
	                q->prof->nic == NIC_VIRTIO || q->prof->nic == NIC_BOTH};
	bool first = true;

	for (int slot = 0; slot < 2; slot++) {
		if (!want[slot])
			continue;
		backend_args(q, a, slot, first);
		first = false;
		argv_add(a, "-device");
		if (q->prof->net == NET_NONE)
			argv_addf(a, "%s", nic_models[slot]);
		else
			argv_addf(a, "%s,netdev=n%d,mac=%s", nic_models[slot],
			          slot, guest_macs[slot]);
	}
}

int
pick_free_port(enum fwd_proto proto)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd =
	    socket(AF_INET, proto == FWD_UDP ? SOCK_DGRAM : SOCK_STREAM, 0);
	int port = -1;

	if (fd < 0)
		return -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}
