/*
 * Console commands of the IPv4 stack (docs/commands.md, docs/inet.md):
 *
 *   ip addr [show] | ip addr add A/N dev D | ip addr del A[/N] dev D
 *   ip route [show] | ip route add P/N|default [via G] [dev D] [metric M]
 *   ip route del P/N|default [dev D]
 *   arp                      the neighbour cache
 *   ping [-c N] [-s SIZE] [-i MS] ADDR
 *   ss                       every socket
 *   netstat -s               packet counters and drops by reason
 *   udpecho [-b DEV] [PORT] | udpecho stop
 *   udpsend [-b DEV] [-w MS] [-p SPORT] ADDR PORT TEXT|-n SIZE
 *   dhcp DEV
 *
 * `ip link` belongs to the device layer: this file's `ip` passes it to
 * ip_link_command() (net/cmd/cmd_ip.c).
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

static int cmd_inet_ip(int argc, char **argv);

/* "A/N" -> addr, len; N may be omitted when dflt >= 0. */
static int
parse_prefix(const char *s, uint32_t *addr, unsigned *len, int dflt)
{
	char buf[24];
	char *slash;
	unsigned long n;

	if (strcmp(s, "default") == 0) {
		*addr = 0;
		*len = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strlcpy(buf, s, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		if (parse_ulong(slash + 1, &n) != 0 || n > 32)
			return -EINVAL;
		*len = (unsigned)n;
	} else if (dflt >= 0) {
		*len = (unsigned)dflt;
	} else {
		return -EINVAL;
	}
	return inet_aton(buf, addr);
}

static int
get_dev_index(const char *name)
{
	struct net_device *dev;
	int idx = 0;

	rcu_read_lock();
	dev = dev_get_by_name_rcu(name);
	if (dev != NULL)
		idx = dev->ifindex;
	rcu_read_unlock();
	return idx;
}

static int
ip_addr(int argc, char **argv)
{
	struct net_device *dev;
	struct ref_tracker t;
	uint32_t a;
	unsigned len;
	int r;

	if (argc == 2 || (argc == 3 && strcmp(argv[2], "show") == 0)) {
		inet_addr_show();
		return 0;
	}
	if (argc != 6 || strcmp(argv[4], "dev") != 0 ||
	    (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0))
		return cmd_refuse("ip", "expected ip addr add|del A/N dev DEV");
	if (parse_prefix(argv[3], &a, &len,
	                 strcmp(argv[2], "del") == 0 ? 32 : -1) != 0)
		return cmd_error("ip", -EINVAL, "bad address '%s' (want A/N)",
		                 argv[3]);
	dev = dev_get_by_name(argv[5], &t, "cmd");
	if (dev == NULL)
		return cmd_error("ip", -ENODEV, "no device %s", argv[5]);
	if (strcmp(argv[2], "add") == 0)
		r = inet_addr_add(dev, a, len);
	else
		r = inet_addr_del(dev->ifindex, a);
	dev_put_track(dev, &t);
	if (r == -EBUSY)
		return cmd_error("ip", r, "%s already has an address", argv[5]);
	if (r != 0)
		return cmd_error("ip", r, "%s %s on %s", argv[2], argv[3],
		                 argv[5]);
	return 0;
}

static int
ip_route(int argc, char **argv)
{
	uint32_t prefix, gw = 0;
	unsigned len;
	unsigned long metric = 0;
	int ifindex = 0, r, i;
	char gwbuf[16];
	bool add;

	if (argc == 2 || (argc == 3 && strcmp(argv[2], "show") == 0)) {
		inet_route_show();
		return 0;
	}
	add = strcmp(argv[2], "add") == 0;
	if ((!add && strcmp(argv[2], "del") != 0) || argc < 4)
		return cmd_refuse("ip", "expected ip route add|del P/N|default "
		                        "[via G] [dev D] [metric M]");
	if (parse_prefix(argv[3], &prefix, &len, 32) != 0)
		return cmd_error("ip", -EINVAL, "bad prefix '%s'", argv[3]);
	for (i = 4; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "via") == 0) {
			if (inet_aton(argv[i + 1], &gw) != 0)
				return cmd_error("ip", -EINVAL,
				                 "bad gateway '%s'",
				                 argv[i + 1]);
		} else if (strcmp(argv[i], "dev") == 0) {
			ifindex = get_dev_index(argv[i + 1]);
			if (ifindex == 0)
				return cmd_error("ip", -ENODEV, "no device %s",
				                 argv[i + 1]);
		} else if (strcmp(argv[i], "metric") == 0) {
			if (parse_ulong(argv[i + 1], &metric) != 0)
				return cmd_error("ip", -EINVAL, "bad metric");
		} else {
			break;
		}
	}
	if (i != argc)
		return cmd_error("ip", -EINVAL, "unexpected '%s'", argv[i]);
	if (add && ifindex == 0 && gw == 0)
		return cmd_error("ip", -EINVAL, "a route needs via G or dev D");
	r = add ? inet_route_add(prefix, len, gw, ifindex, (uint32_t)metric)
	        : inet_route_del(prefix, len, ifindex);
	if (r == -ENETUNREACH)
		return cmd_error("ip", r,
		                 "%s %s: gateway %s is not on a "
		                 "connected network",
		                 argv[2], argv[3], inet_ntoa_r(gw, gwbuf));
	if (r != 0)
		return cmd_error("ip", r, "%s %s: %s", argv[2], argv[3],
		                 r == -EEXIST  ? "route exists"
		                 : r == -ESRCH ? "no such route"
		                 : r == -EINVAL
		                     ? "invalid (host bits set, or bad gateway)"
		                     : "failed");
	return 0;
}

static int
cmd_inet_ip(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "ip", argc, argv, "", 1, ARGS_ANY) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	if (argc >= 2 && strcmp(argv[1], "addr") == 0)
		return ip_addr(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "route") == 0)
		return ip_route(argc, argv);
	if (strcmp(argv[1], "link") != 0)
		return cmd_error("ip", -EINVAL,
		                 "unknown object '%s' (ip link|addr|route)",
		                 argv[1]);
	return ip_link_command(argc, argv);
}
COMMAND(ip,
        "ip link [show [DEV] | set DEV up|down] | "
        "ip addr [add|del A/N dev D] | "
        "ip route [add|del P/N|default [via G] [dev D] [metric M]]",
        "devices (link), addresses, routes", cmd_inet_ip);

static int
cmd_arp(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "arp", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	arp_show();
	return 0;
}
COMMAND(arp, "arp", "the neighbour (ARP) cache", cmd_arp);

static int
cmd_ss(int argc, char **argv)
{
	struct args a;

	if (args_parse(&a, "ss", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	sock_show_all();
	return 0;
}
COMMAND(ss, "ss", "sockets: protocol, state, addresses, device", cmd_ss);

/* Every frame that reached the stack was accepted or dropped for one
 * counted reason; "unexplained" must stay 0 (exact when traffic rests).
 * Output-side reasons (a packet we sent) are not frames. */
static void
frame_account(const struct net_drop_stats *st, const struct inet_mib *mib)
{
	uint64_t in = (uint64_t)mib->ip_in + mib->arp_in;
	uint64_t ok = (uint64_t)mib->ip_delivered + mib->arp_ok;
	uint64_t dropped = 0;

	for (int r = 1; r < NET_DROP_COUNT; r++) {
		const char *l = net_drop_layer(r);
		if (r == NET_DROP_ARP_QUEUE_FULL ||
		    r == NET_DROP_ARP_UNRESOLVED || r == NET_DROP_IP_NO_ROUTE)
			continue;
		if (strcmp(l, "ether") == 0 || strcmp(l, "arp") == 0 ||
		    strcmp(l, "ip") == 0)
			dropped += st->count[r];
	}
	kprintf("frames: %llu in, %llu accepted, %llu dropped, %lld "
	        "unexplained\n",
	        in, ok, dropped, (long long)(in - ok - dropped));
}

static int
cmd_netstat(int argc, char **argv)
{
	struct net_drop_stats st;
	struct inet_mib mib;
	const char *layer = "";

	struct args a;

	if (args_parse(&a, "netstat", argc, argv, "s", 0, 0) < 0)
		return -EINVAL;
	if (!args_has(&a, 's'))
		return args_refuse(&a, "only -s is implemented");
	inet_mib_read(&mib);
	kprintf("ip: %u received, %u delivered, %u sent\n", mib.ip_in,
	        mib.ip_delivered, mib.ip_out);
	kprintf("arp: %u received, %u accepted, %u sent\n", mib.arp_in,
	        mib.arp_ok, mib.arp_out);
	kprintf("icmp: %u received, %u sent\n", mib.icmp_in, mib.icmp_out);
	kprintf("icmp errors: %u sent, rate-limited %u per destination, %u "
	        "host-wide\n",
	        mib.icmp_err_out, mib.icmp_rl_peer, mib.icmp_rl_global);
	kprintf("udp: %u received, %u sent\n", mib.udp_in, mib.udp_out);
	inet_drop_snapshot(&st);
	frame_account(&st, &mib);
	kprintf("drops:\n");
	for (int r = 1; r < NET_DROP_COUNT; r++) {
		if (st.count[r] == 0)
			continue;
		if (strcmp(layer, net_drop_layer(r)) != 0) {
			layer = net_drop_layer(r);
			kprintf("  %s:\n", layer);
		}
		kprintf("    %s %llu (%s)\n", net_drop_name(r), st.count[r],
		        net_drop_desc(r));
	}
	return 0;
}
COMMAND(netstat, "netstat -s", "packet counters and drops by reason",
        cmd_netstat);

/* ---- ping ------------------------------------------------------------------
 */

static int
cmd_ping(int argc, char **argv)
{
	static volatile uint16_t ping_id = 0x4d52;
	unsigned long count = 4, size = 56, interval = 1000;
	uint64_t rtt_min = ~0ull, rtt_max = 0, rtt_sum = 0;
	unsigned sent = 0, received = 0, bad0;
	struct ping_waiter w = {0};
	DEFINE_WAITQ(wq);
	uint32_t daddr;
	char b[16];
	struct args a;
	int i = 1, r = 0;

	if (args_parse(&a, "ping", argc, argv, "c:s:i:", 1, 1) < 0 ||
	    args_flag_num(&a, 'c', "N", 0, ~0ul, &count) < 0 ||
	    args_flag_num(&a, 's', "SIZE", 0, ~0ul, &size) < 0 ||
	    args_flag_num(&a, 'i', "MS", 0, ~0ul, &interval) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	if (inet_aton(argv[i], &daddr) != 0)
		return cmd_error("ping", -EINVAL, "bad address '%s'", argv[i]);
	if (size > ETH_DATA_LEN - 28 || count == 0 || count > 100000)
		return cmd_error("ping", -EINVAL,
		                 "size must be 0..1472, count 1..100000");
	w.id = __atomic_add_fetch(&ping_id, 1, __ATOMIC_RELAXED);
	w.wq = &wq;
	ping_register(&w);
	kprintf("PING %s: %lu data bytes\n", inet_ntoa_r(daddr, b), size);
	for (unsigned seq = 1; seq <= count; seq++) {
		uint64_t t0 = now_us(), rtt;
		uint32_t before = w.replies;

		bad0 = w.bad;
		r = icmp_send_echo(daddr, w.id, (uint16_t)seq, size);
		sent++;
		if (r != 0 && r != -EHOSTUNREACH) {
			cmd_error("ping", r, "%s: cannot send",
			          inet_ntoa_r(daddr, b));
			break;
		}
		r = wait_event_interruptible_timeout(
		    wq, w.replies != before && w.last_seq == seq, 1000);
		if (r == -EINTR)
			break;
		if (r == 0) {
			rtt = w.last_rx_us - t0;
			received++;
			rtt_sum += rtt;
			rtt_min = rtt < rtt_min ? rtt : rtt_min;
			rtt_max = rtt > rtt_max ? rtt : rtt_max;
			kprintf("%u bytes from %s: icmp_seq=%u ttl=%u "
			        "time=" USEC_MS_FMT " ms%s\n",
			        w.last_len + 8, b, seq, w.last_ttl,
			        USEC_MS(rtt),
			        w.bad != bad0 ? " (BAD DATA)" : "");
		} else {
			kprintf("no reply for icmp_seq=%u\n", seq);
		}
		r = 0;
		if (seq < count && (now_us() - t0) / 1000 < interval &&
		    msleep_interruptible(
		        (unsigned)(interval - (now_us() - t0) / 1000)) != 0)
			break;
	}
	ping_unregister(&w);
	kprintf("--- %s ping statistics ---\n", b);
	kprintf("%u packets transmitted, %u received, %u%% packet loss\n", sent,
	        received, sent != 0 ? (sent - received) * 100 / sent : 0);
	if (received != 0)
		kprintf("rtt min/avg/max = " USEC_MS_FMT "/" USEC_MS_FMT
		        "/" USEC_MS_FMT " ms\n",
		        USEC_MS(rtt_min), USEC_MS(rtt_sum / received),
		        USEC_MS(rtt_max));
	if (r != 0)
		return r;
	if (received == 0 && !signal_pending())
		return cmd_error("ping", -EHOSTUNREACH, "no reply from %s", b);
	return 0;
}
COMMAND(ping, "ping [-c N] [-s SIZE] [-i MS] ADDR",
        "ICMP echo with round-trip times (Ctrl-C stops)", cmd_ping);
