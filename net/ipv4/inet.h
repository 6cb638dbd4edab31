/*
 * The kernel IPv4 stack: the layer that wraps the pure protocol files
 * (docs/net-protocols.md) with devices, skbs, locks, threads and time.
 * docs/inet.md explains it; this header is what its files share.
 *
 *   inet_addr.c  one IPv4 address per device, drop counters, init
 *   arp.c        the neighbour cache (entries hold their device)
 *   route.c      the routing table and the dst cache (entries hold their
 *                device; moved to the blackhole device on unregister)
 *   ip_input.c   ETH_P_IP receive, validation, delivery by protocol
 *   ip_output.c  route, build the header, resolve, transmit
 *   icmp.c       echo reply, ping waiters, port unreachable
 *   udp.c        UDP sockets;  socket.c the in-kernel socket API
 *   dhcp.c       the DHCP client thread;  tftp.c the TFTP client
 *   cmd_inet.c   ip addr/route, arp, ping, ss, netstat, udpecho, ...
 *
 * The reference rule: every object here that points at a device holds
 * it with a tracked reference whose tag names the holder class ("arp",
 * "dst", "socket", "skb"), and drops it on NETDEV_DOWN (arp) or
 * NETDEV_UNREGISTER (everything), so `refs eth0` shows who is left and
 * rmmod of the driver completes once the caches have let go.
 */
#ifndef NET_INET_H
#define NET_INET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/core/netdevice.h>
#include <net/core/skbuff.h>
#include <kernel/locking/refcount.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/list.h>
#include <kernel/sched/waitq.h>
#include "net/ipv4/net_drop.h"
#include "net/ipv4/proto_lib.h"

#define INET_TAG "inet" /* kmalloc tag of everything in this layer */

/* ---- counters (inet_addr.c) --------------------------------------------- */

/* Count one dropped packet/frame; returns reason. */
enum net_drop inet_drop(enum net_drop reason);
/* Count and free. */
void inet_drop_skb(struct sk_buff *skb, enum net_drop reason);
void inet_drop_snapshot(struct net_drop_stats *out);

struct inet_mib {
	uint32_t ip_in, ip_delivered, ip_out, arp_in, arp_ok, arp_out;
	uint32_t icmp_in, icmp_out, udp_in, udp_out;
	/* ICMP errors sent, and held back by the host / a peer's limit */
	uint32_t icmp_err_out, icmp_rl_global, icmp_rl_peer;
};
/*
 * Counted per CPU (cpu_local_fetch_add: no locked add, five a round
 * trip on the packet path), read as the sum (inet_mib_read); no CPU
 * writes a line another CPU writes.
 */
struct inet_mib_slot {
	struct inet_mib m;
} __attribute__((aligned(CACHE_LINE)));
extern struct inet_mib_slot inet_mib_slots[MAX_CPUS];
void inet_mib_read(struct inet_mib *sum);

#define INET_INC(field)                                                        \
	cpu_local_fetch_add((volatile int *)&inet_mib_slots[cpu_id()].m.field, \
	                    1)

/* ---- addresses (inet_addr.c) --------------------------------------------- */

/* 0 or -EEXIST (another address on the device), -ENOSPC, -EINVAL. */
int inet_addr_add(struct net_device *dev, uint32_t addr, unsigned plen);
int inet_addr_del(int ifindex, uint32_t addr);
/* The device's address (0 if none) and prefix length. */
uint32_t inet_addr_get(int ifindex, unsigned *plen);
/* The ifindex whose address is addr, or 0. */
int inet_addr_local(uint32_t addr);
/* addr is the directed broadcast of the subnet on ifindex? */
bool inet_addr_is_bcast(int ifindex, uint32_t addr);
void inet_addr_show(void);
/* Format a.b.c.d into buf (16 bytes); returns buf. */
char *inet_ntoa_r(uint32_t a, char *buf);
/* "a.b.c.d" -> host order; -EINVAL if it is not one. */
int inet_aton(const char *s, uint32_t *out);

/* ---- neighbours (arp.c) -------------------------------------------------- */

void arp_init(void);
/* Send skb (an IPv4 packet, data at the IP header) to nexthop on dev:
 * prepends the Ethernet header once the MAC is known, or the broadcast
 * MAC when bcast (the route says nexthop is a broadcast address on dev).
 * Consumes skb. */
int arp_output(struct sk_buff *skb, struct net_device *dev, uint32_t nexthop,
               bool bcast);
void arp_show(void);
size_t arp_count_dev(int ifindex);
/* Remove every entry of dev (the NETDEV_DOWN/UNREGISTER flush). */
void arp_ifdown(struct net_device *dev);
/* Periodic work (from the inet thread). */
void arp_tick(uint64_t now);
/* ktest hooks: an entry held like an in-use one, and its release. */
struct neighbour;
struct neighbour *neigh_lookup_hold(struct net_device *dev, uint32_t ip,
                                    bool create);
void neigh_release(struct neighbour *n);
bool neigh_is_dead(const struct neighbour *n);

/* ---- routes and the dst cache (route.c) --------------------------------- */

/* The routing table and the dst cache (route.c). */
extern spinlock_t route_lock;

/* A resolved path: where a packet to daddr goes.  Holds its device
 * ("dst"); after NETDEV_UNREGISTER it points at blackhole_dev, which
 * drops everything, until its last user lets go.  The legend: which
 * lock guards each field (GUARDED_BY ones checked by make lint). */
struct dst_entry {
	/* RCU: in the cache while not obsolete; writers hold route_lock */
	struct list_head link;
	/* out of the cache: dst_inuse, or a free list private to the
	 * thread that unlinked it */
	struct list_head aux GUARDED_BY(route_lock);
	struct rcu_head rcu; /* freed a grace period after the last put */
	refcount_t refcnt;   /* atomic: users; the cache holds one */
	/* held; swapped for blackhole_dev under route_lock, read without
	 * it (the one read is as good as the other: both are held) */
	struct net_device *dev;
	struct ref_tracker tracker;     /* dev's: with dev */
	uint32_t daddr, saddr, nexthop; /* immutable */
	bool bcast; /* immutable: nexthop is a broadcast address */
	int oif;    /* immutable: the lookup key, 0 = any */
	/* set under route_lock, never cleared: a reader without it may
	 * see false a little longer, and looks again next time */
	bool obsolete;
	uint64_t lastuse; /* now_ms_coarse(); stored by lockless readers too */
};
extern struct net_device *blackhole_dev;

void route_init(void);
/* 0, -EINVAL, -EEXIST, -ENOSPC, -ENODEV.  ifindex 0 with a gateway: the
 * device of the gateway's connected route, or -ENETUNREACH. */
int inet_route_add(uint32_t prefix, unsigned len, uint32_t gw, int ifindex,
                   uint32_t metric);
int inet_route_del(uint32_t prefix, unsigned len, int ifindex);
void inet_route_flush_dev(int ifindex);
void inet_route_show(void);
/* A held dst for daddr (out through oif if > 0); -ENETUNREACH. */
int ip_route_output(uint32_t daddr, int oif, struct dst_entry **out);
void dst_release(struct dst_entry *dst);
/* Where one packet goes: its device (held by the skb), next hop and
 * the route's source address. */
struct ip_nexthop {
	struct net_device *dev;
	uint32_t nexthop, saddr;
	bool bcast; /* as the dst's */
};
/* Through a held dst: skb takes its own reference on the dst's current
 * device (blackhole_dev after an unregister), *out says where. */
void dst_route_skb(struct dst_entry *dst, struct sk_buff *skb,
                   struct ip_nexthop *out);
/* Route skb to daddr (out through oif if > 0): skb takes its own
 * reference on the device, *out says where; -ENETUNREACH. */
int ip_route_skb(uint32_t daddr, int oif, struct sk_buff *skb,
                 struct ip_nexthop *out);
/* NETDEV_UNREGISTER: move dsts of dev to the blackhole device. */
void dst_ifdown(struct net_device *dev);
size_t dst_count_dev(struct net_device *dev);
void route_tick(void);

/* ---- IPv4 (ip_input.c, ip_output.c) ------------------------------------- */

/* A transport receiver; handler owns skb (data at the transport header,
 * len its length, trimmed).  try_module_get(owner) around each call. */
struct inet_rx_info {
	uint32_t src, dst;
	uint8_t proto, ttl;
	int ifindex;
	bool link_bcast;    /* the frame was a link broadcast/multicast */
	const uint8_t *iph; /* the IP header, inside skb (for ICMP errors) */
	size_t ip_len;      /* header + payload */
};
struct inet_protocol {
	uint8_t proto;
	void (*handler)(struct sk_buff *skb, const struct inet_rx_info *ri);
	struct module *owner;
	/* Deliver while the owner is GOING too (TCP must, to finish its
	 * connections while rmmod waits): the handler then runs inside
	 * rcu_read_lock with no module reference, must not sleep, and the
	 * owner's exit calls inet_del_protocol, which waits for it. */
	bool rcu_rx;
};
int inet_add_protocol(const struct inet_protocol *p);
void inet_del_protocol(const struct inet_protocol *p);

void ip_input_init(void);
/*
 * Send the transport payload at skb->data (skb from inet_alloc_skb).
 * saddr 0: the route's source.  daddr 255.255.255.255 needs oif and
 * goes to the link broadcast (DHCP).  Consumes skb.  0 or -errno.
 */
int ip_send(struct sk_buff *skb, uint32_t saddr, uint32_t daddr, uint8_t proto,
            int oif);
/* The same through an already resolved dst (held by the caller). */
int ip_send_dst(struct sk_buff *skb, struct dst_entry *dst, uint32_t saddr,
                uint32_t daddr, uint8_t proto);
/* The same through a route from ip_route_skb (skb holds nh->dev). */
int ip_send_nexthop(struct sk_buff *skb, const struct ip_nexthop *nh,
                    uint32_t saddr, uint32_t daddr, uint8_t proto);
/* An skb with room for the Ethernet and IP headers before len bytes. */
struct sk_buff *inet_alloc_skb(size_t len);

/* ---- ICMP (icmp.c) ----------------------------------------------------- */

void icmp_init(void);
/* Destination unreachable about the received packet ri describes
 * (rate limited: icmp.c). */
void icmp_send_unreach(const struct inet_rx_info *ri, uint8_t code);
/* ktest hook: every rate-limit bucket full again. */
void icmp_rate_reset(void);

/* An echo waiter for ping: replies with its id are recorded. */
#define PING_SLOTS 64
struct ping_waiter {
	struct list_head link;
	uint16_t id;
	struct waitq *wq;
	volatile uint32_t replies;    /* count */
	volatile uint16_t last_seq;   /* of the latest reply */
	volatile uint64_t last_rx_us; /* when it came (now_us) */
	volatile uint32_t last_len;   /* its data bytes */
	volatile uint32_t last_ttl;
	volatile uint32_t bad;     /* replies whose data differed */
	volatile uint32_t unreach; /* destination unreachable about us */
};
void ping_register(struct ping_waiter *w);
void ping_unregister(struct ping_waiter *w);
int icmp_send_echo(uint32_t daddr, uint16_t id, uint16_t seq, size_t size);

/* ---- sockets (socket.c, udp.c) ----------------------------------------- */

#define SOCK_DGRAM   2
#define SOCK_STREAM  1
#define MSG_DONTWAIT 0x40

struct sockaddr_in4 {
	uint32_t addr; /* host order */
	uint16_t port; /* host order */
};

struct socket;

/* One protocol: an ops table with an owner (the owner rule). */
struct socket;
/* A receive handler (sock_set_rx_handler): called in the receive path
 * (the NIC's net_rx thread) with one datagram, in place of queueing it
 * for sock_recvfrom.  As lwIP's raw API hands a pbuf to its receive
 * callback, the handler gets the skb itself: the payload at skb->data,
 * skb->len bytes, still holding the device it came in on, as a frame in
 * flight does.  The handler owns it and passes it on before it returns,
 * with sock_send_skb (an echo sends it back: no allocation, no copy, and
 * out through the same device no new reference) or kfree_skb; one it
 * keeps must let go of the device first (skb_set_dev(skb, NULL)), or
 * the device cannot go.  The skb carries the payload's verified sum
 * (csum_rx), which a reply of the same bytes reuses: a handler that
 * changes them in place calls skb_csum_rx_forget first.  It may send
 * on this socket too, and may run on several CPUs at once; it must not
 * close the socket (sock_close waits for running handlers). */
typedef void (*sock_rx_handler)(struct socket *sk, struct sk_buff *skb,
                                const struct sockaddr_in4 *from, void *arg);

struct proto_ops {
	const char *name;
	int type, protocol;
	struct module *owner;
	int (*init)(struct socket *sk);
	void (*release)(struct socket *sk);
	int (*bind)(struct socket *sk, const struct sockaddr_in4 *a);
	int (*connect)(struct socket *sk, const struct sockaddr_in4 *a);
	int (*sendto)(struct socket *sk, const void *buf, size_t len,
	              const struct sockaddr_in4 *to);
	/* Optional: send skb's payload (consumed, also on failure). */
	int (*send_skb)(struct socket *sk, struct sk_buff *skb,
	                const struct sockaddr_in4 *to);
	/* Non-blocking: -EAGAIN when nothing is queued. */
	int (*recvfrom)(struct socket *sk, void *buf, size_t len,
	                struct sockaddr_in4 *from);
	/* NETDEV_UNREGISTER of the device the socket is bound to. */
	void (*dev_gone)(struct socket *sk);
	/* `ss` state column and timers. */
	void (*show)(struct socket *sk, char *buf, size_t size);
	/* Optional: `ss` lines for what has no struct socket (TCP's
	 * orphans, TIME_WAIT, accepted children); called with a module
	 * reference, may not sleep. */
	void (*show_all)(void);
	/* Optional: take datagrams with a handler instead of rxq; before
	 * bind only (-EINVAL after). */
	int (*set_rx_handler)(struct socket *sk, sock_rx_handler fn, void *arg);
	struct list_head link;
};

/* The socket list and each socket's bound device (socket.c). */
extern spinlock_t sock_lock;

/* The legend: which lock guards each field (GUARDED_BY ones checked by
 * make lint).  The rest belongs to the socket's user, one thread at a
 * time (the socket calls are not to be made on one socket from two
 * threads at once), or to its protocol, under the protocol's lock. */
struct socket {
	struct list_head link GUARDED_BY(sock_lock); /* all sockets, for ss */
	const struct proto_ops *ops;                 /* immutable */
	struct ref_tracker owner_tracker; /* ops->owner's reference */
	refcount_t refcnt;                /* atomic */
	struct sockaddr_in4 local, remote;
	bool connected;
	bool nonblock;
	long rcvtimeo_ms; /* -1: forever */
	int err;          /* pending error (e.g. -ENODEV) for the next call */
	/* Bound device: held ("socket") until close or NETDEV_UNREGISTER,
	 * which takes it away under sock_lock. */
	struct net_device *dev GUARDED_BY(sock_lock);
	struct ref_tracker dev_tracker; /* dev's: with dev */
	int bound_ifindex;
	char bound_name[IFNAMSIZ];
	struct dst_entry *dst; /* connected sockets cache their route */
	struct waitq wq;       /* readers wait here */
	struct list_head rxq;  /* skbs (protocol's) */
	unsigned rxq_len;
	uint64_t created_ms;
	void *proto_data;
};

int sock_register(struct proto_ops *ops);
void sock_unregister(struct proto_ops *ops);
/* -EPROTONOSUPPORT: no such protocol, or its module is not LIVE. */
int sock_create(int type, int protocol, struct socket **out);
int sock_bind(struct socket *sk, const struct sockaddr_in4 *a);
int sock_bind_device(struct socket *sk, const char *ifname);
int sock_connect(struct socket *sk, const struct sockaddr_in4 *a);
int sock_sendto(struct socket *sk, const void *buf, size_t len,
                const struct sockaddr_in4 *to);
/* Send the skb->len bytes at skb->data as one datagram; the skb is
 * consumed, also on failure.  Zero-copy when the skb has room in front
 * for the headers (a received one has); else the payload is copied.
 * Returns the bytes sent or an error; -ENOSYS if the protocol cannot. */
int sock_send_skb(struct socket *sk, struct sk_buff *skb,
                  const struct sockaddr_in4 *to);
/* Waits up to rcvtimeo_ms (-ETIMEDOUT), or Ctrl-C (-EINTR); flags
 * MSG_DONTWAIT or a nonblocking socket: -EAGAIN. */
int sock_recvfrom(struct socket *sk, void *buf, size_t len,
                  struct sockaddr_in4 *from, int flags);
/* -ENOSYS if the protocol has no receive handlers (only UDP has). */
int sock_set_rx_handler(struct socket *sk, sock_rx_handler fn, void *arg);
void sock_close(struct socket *sk);
void sock_show_all(void);
size_t sock_count_dev(int ifindex);
void socket_init(void);
/* Sockets bound to a device drop it (notifier). */
void sock_ifdown(struct net_device *dev);
/* Wake every reader (used when a socket's state changes under it). */
void sock_wake(struct socket *sk);

void udp_init(void);
extern struct proto_ops udp_proto_ops;
/* UDP's receive handler and send_skb, which the packet path calls by
 * name when they are the ones asked for (INDIRECT_CALL_1). */
void udp_rcv(struct sk_buff *skb, const struct inet_rx_info *ri);
int udp_send_skb(struct socket *sk, struct sk_buff *skb,
                 const struct sockaddr_in4 *to);

/*
 * f(...), called by name when f is expected: the packet path's indirect
 * calls (a protocol's handler, a socket's send_skb) nearly always reach
 * UDP's, and under TCG an indirect call is a run-time lookup where a
 * direct one within a page is chained (`bench jumps`; Linux's
 * INDIRECT_CALL_1, there against retpolines).
 */
#define INDIRECT_CALL_1(f, expected, ...)                                      \
	(__builtin_expect((f) == (expected), 1) ? (expected)(__VA_ARGS__)      \
	                                        : (f)(__VA_ARGS__))

/* ---- DHCP, TFTP -------------------------------------------------------- */

/* Acquire a lease on dev (waits up to timeout_ms; Ctrl-C); the client
 * thread stays for renewals until the device goes. */
/* msg: why it failed, or on success "DEV: address A/N". */
int dhcp_start(const char *ifname, long timeout_ms, char *msg, size_t size);
int dhcp_stop(const char *ifname, char *msg, size_t size);
void dhcp_show(void);
/* Fetch NAME from server into a kmalloc'd buffer (tag "tftp"). */
int tftp_get(uint32_t server, const char *name, uint8_t **data, size_t *len,
             char *msg, size_t size);

/* Runs every 100 ms in the "inet" thread. */
void inet_thread_start(void);

#endif
