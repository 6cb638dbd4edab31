/*
 * pkt: raw Ethernet frames from the console, for tests with a peer on the
 * host (tests/net/rawpeer.c) and for traffic during load/unload cycles.
 *
 *   pkt send [-c N] [-w MS] DEV HEX   the frame given in hex, N times,
 *                                     after waiting MS ms
 *   pkt gen [-c N] [-w MS] DEV DST TYPE LEN  LEN-byte frames from DEV's MAC to
 *                                    DST with EtherType TYPE; payload
 *                                    byte i of frame k is (i + k) & 0xff
 *   pkt gen -b [-c N] DEV DST TYPE LEN  the same from a kernel thread,
 *                                    until N are sent or the device
 *                                    goes down (traffic during rmmod)
 *   pkt dump on|off                  print every received frame:
 *       pkt: rx DEV len N fnv HASH [HEX of the first 128 bytes]
 *
 * HASH is FNV-1a 32 over the whole frame, so a test can check a long
 * frame byte for byte without printing all of it.
 */
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>
#include <kernel/console/args.h>
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

#define DUMP_MAX 128

static void
dump_rx(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt)
{
	char hex[2 * DUMP_MAX + 1];
	unsigned n = skb->len < DUMP_MAX ? skb->len : DUMP_MAX;

	(void)pt;
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", skb->data[i]);
	hex[2 * n] = '\0';
	kprintf("pkt: rx %s len %u fnv %08x %s\n", dev->name, skb->len,
	        (unsigned)fnv1a32(skb->data, skb->len), hex);
}

static struct packet_type dump_pt = {.type = 0, .func = dump_rx};
static unsigned wait_ms; /* -w: pause before the first frame */
static bool dumping;

static int
parse_mac(const char *s, uint8_t mac[ETH_ALEN])
{
	for (int i = 0; i < ETH_ALEN; i++) {
		int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);
		if (lo < 0 || (i < 5 && s[2] != ':') || (i == 5 && s[2]))
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 3;
	}
	return 0;
}

typedef void (*fill_fn)(uint8_t *p, unsigned len, unsigned long k,
                        const void *arg, struct net_device *dev);

/* Send count frames; 0 or the first error (-ENETDOWN once the device
 * went down, e.g. because its driver is being unloaded). */
static int
xmit_loop(struct net_device *dev, unsigned long count, unsigned len,
          fill_fn fill, const void *arg, unsigned long *sentp)
{
	unsigned long sent = 0;
	int r = 0;

	while (sent < count) {
		struct sk_buff *skb = netdev_alloc_skb(dev, len);
		if (skb == NULL) {
			r = -ENOMEM;
			break;
		}
		fill(skb_put(skb, len), len, sent, arg, dev);
		r = dev_queue_xmit(skb);
		if (r == 0) {
			sent++;
		} else if (r == -EBUSY) {
			/* Ring full (counted as a drop): let it drain, then
			 * send the same frame again. */
			r = 0;
			if (msleep_interruptible(1) != 0) {
				r = -EINTR;
				break;
			}
		} else {
			break;
		}
	}
	*sentp = sent;
	return r;
}

/* Send count frames built by fill(); reports the first error. */
static int
send_frames(const char *name, unsigned long count, unsigned len,
            void (*fill)(uint8_t *p, unsigned len, unsigned long k,
                         const void *arg, struct net_device *dev),
            const void *arg)
{
	struct ref_tracker t;
	struct net_device *dev = dev_get_by_name(name, &t, "pkt");
	unsigned long sent = 0;
	int r = 0;

	if (dev == NULL)
		return cmd_error("pkt", -ENODEV, "no device %s", name);
	/* Lets a host tool start listening after the command was typed. */
	if (wait_ms != 0 && msleep_interruptible(wait_ms) != 0) {
		dev_put_track(dev, &t);
		return cmd_error("pkt", -EINTR, "interrupted before sending");
	}
	if (len < ETH_HLEN || len > dev->mtu + ETH_HLEN) {
		dev_put_track(dev, &t);
		return cmd_error("pkt", -EINVAL,
		                 "%u bytes: a frame on %s is %u to %u bytes",
		                 len, name, ETH_HLEN, dev->mtu + ETH_HLEN);
	}
	r = xmit_loop(dev, count, len, fill, arg, &sent);
	dev_put_track(dev, &t);
	if (r < 0)
		return cmd_error("pkt", r, "%s: %lu of %lu frame(s) sent", name,
		                 sent, count);
	kprintf("pkt: %s: sent %lu frame(s) of %u bytes\n", name, sent, len);
	return 0;
}

static void
fill_hex(uint8_t *p, unsigned len, unsigned long k, const void *arg,
         struct net_device *dev)
{
	const char *hex = arg;

	(void)k;
	(void)dev;
	for (unsigned i = 0; i < len; i++)
		p[i] = (uint8_t)(hex_digit(hex[2 * i]) << 4 |
		                 hex_digit(hex[2 * i + 1]));
}

struct gen_arg {
	uint8_t dst[ETH_ALEN];
	uint16_t type;
};

static void
fill_gen(uint8_t *p, unsigned len, unsigned long k, const void *arg,
         struct net_device *dev)
{
	const struct gen_arg *g = arg;

	memcpy(p, g->dst, ETH_ALEN);
	memcpy(p + ETH_ALEN, dev->dev_addr, ETH_ALEN);
	p[12] = (uint8_t)(g->type >> 8);
	p[13] = (uint8_t)g->type;
	for (unsigned i = ETH_HLEN; i < len; i++)
		p[i] = (uint8_t)(i - ETH_HLEN + k);
}

/* pkt gen -b: the same frames from a kernel thread, so traffic flows
 * while the shell runs other commands (rmmod, ip link set down).  The
 * thread holds the device ("pkt-bg") until it has sent them all or a
 * transmit fails, e.g. -ENETDOWN once the device is closed. */
struct bg_sender {
	struct net_device *dev;
	struct ref_tracker tracker;
	unsigned long count;
	unsigned len;
	struct gen_arg g;
};

static void
bg_send(void *p)
{
	struct bg_sender *b = p;
	unsigned long sent;
	int r = xmit_loop(b->dev, b->count, b->len, fill_gen, &b->g, &sent);

	kprintf("pkt: %s: background sender stopped after %lu frame(s)%s%s\n",
	        b->dev->name, sent, r < 0 ? ": " : "",
	        r < 0 ? errno_name(r) : "");
	dev_put_track(b->dev, &b->tracker);
	kfree(b);
	thread_exit();
}

static int
gen_background(const char *name, unsigned long count, unsigned len,
               const struct gen_arg *g)
{
	struct bg_sender *b = kzalloc(sizeof(*b), "pkt");

	if (b == NULL)
		return cmd_error("pkt", -ENOMEM, "no memory for the sender");
	b->dev = dev_get_by_name(name, &b->tracker, "pkt-bg");
	if (b->dev == NULL) {
		kfree(b);
		return cmd_error("pkt", -ENODEV, "no device %s", name);
	}
	if (len < ETH_HLEN || len > b->dev->mtu + ETH_HLEN) {
		dev_put_track(b->dev, &b->tracker);
		kfree(b);
		return cmd_error("pkt", -EINVAL, "%u bytes: not a frame on %s",
		                 len, name);
	}
	b->count = count;
	b->len = len;
	b->g = *g;
	if (thread_create("pkt-gen", bg_send, b, -1) == NULL) {
		dev_put_track(b->dev, &b->tracker);
		kfree(b);
		return cmd_error("pkt", -ENOMEM, "cannot start the sender");
	}
	kprintf("pkt: %s: background sender started\n", name);
	return 0;
}

static int
cmd_pkt(int argc, char **argv)
{
	unsigned long count = 1, v = 0;
	struct gen_arg g;
	struct args a;
	bool background;

	if (args_parse(&a, "pkt", argc, argv, "bc:w:", 1, 5) < 0 ||
	    args_flag_num(&a, 'c', "N", 1, 1000000, &count) < 0 ||
	    args_flag_num(&a, 'w', "MS", 0, 60000, &v) < 0)
		return -EINVAL;
	argc = a.argc;
	argv = a.argv;
	wait_ms = (unsigned)v;
	background = args_has(&a, 'b');
	if (strcmp(argv[1], "dump") == 0) {
		bool on = argc == 3 && strcmp(argv[2], "on") == 0;
		if (a.given != 0 || argc != 3 ||
		    (!on && strcmp(argv[2], "off") != 0))
			return args_refuse(&a, "expected pkt dump on|off");
		if (on && !dumping)
			dev_add_pack(&dump_pt);
		else if (!on && dumping)
			dev_remove_pack(&dump_pt);
		dumping = on;
		return 0;
	}
	if (strcmp(argv[1], "send") == 0) {
		size_t n;
		if (background || argc != 4)
			return args_refuse(&a, "expected pkt send [-c N] "
			                       "[-w MS] DEV HEX");
		n = strlen(argv[3]);
		for (size_t i = 0; i < n; i++)
			if (hex_digit(argv[3][i]) < 0)
				return cmd_error("pkt", -EINVAL,
				                 "not hex at offset %u",
				                 (unsigned)i);
		if (n % 2 != 0)
			return cmd_error("pkt", -EINVAL,
			                 "odd number of hex digits");
		return send_frames(argv[2], count, (unsigned)(n / 2), fill_hex,
		                   argv[3]);
	}
	if (strcmp(argv[1], "gen") != 0)
		return args_refuse(&a, "unknown action '%s'", argv[1]);
	if (argc != 6)
		return args_refuse(&a, "expected pkt gen [-b] [-c N] [-w MS] "
		                       "DEV DST TYPE LEN");
	if (parse_mac(argv[3], g.dst) != 0)
		return cmd_error("pkt", -EINVAL, "'%s' is not a MAC address",
		                 argv[3]);
	if (parse_ulong(argv[4], &v) != 0 || v > 0xffff)
		return cmd_error("pkt", -EINVAL, "'%s' is not an EtherType",
		                 argv[4]);
	g.type = (uint16_t)v;
	if (parse_ulong(argv[5], &v) != 0 || v > 65535)
		return cmd_error("pkt", -EINVAL, "'%s' is not a length",
		                 argv[5]);
	if (background)
		return gen_background(argv[2], count, (unsigned)v, &g);
	return send_frames(argv[2], count, (unsigned)v, fill_gen, &g);
}
COMMAND(pkt,
        "pkt send [-c N] [-w MS] DEV HEX | pkt gen [-b] [-c N] [-w MS] DEV "
        "DST TYPE LEN | pkt dump on|off",
        "raw Ethernet frames: send, generate, print received ones", cmd_pkt);
