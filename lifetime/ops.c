/*
 * The operations of the lifetime stress.  Each takes a 32-bit argument
 * drawn from the worker's generator (which module, which device, how
 * long, which flavour) and returns 0 or -errno.  What each may
 * legitimately fail with, given that every other operation runs at the
 * same time, is listed next to it: any other outcome is a failure of the
 * run.  Commands are run with shell_exec from the worker thread (the
 * owner rule for module commands, their argument checks and error lines
 * all take part); their output is captured, not printed.
 */
#include "lifetime/lifetime.h"
#include "modloader/module_internal.h"
#include "net/core/refmode.h"
#include "net/ipv4/inet.h"
#include <kernel/debug/hangdump.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/invariant.h>
#include <kernel/debug/panic.h>
#include <kernel/sched/sched.h>
#include <kernel/sched/schedctl.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/waitq.h>

#define INTR_MAX_MS   200 /* the Ctrl-C of rmmod comes within this */
#define DHCP_MS       3000
#define PING_MS       500
#define GATEWAY       0x0a000202 /* 10.0.2.2, QEMU user networking */
#define SOCKPROTO_NUM 253

static const char *const devnames[] = {"eth0",  "eth1",  "nsim0",
                                       "nsim1", "nsim2", "nsim3"};
#define NDEVS (sizeof(devnames) / sizeof(devnames[0]))

static const char *
mod_of(struct lt_worker *w, uint32_t arg)
{
	return w->run->mods[arg % (uint32_t)w->run->nmods];
}

static const char *
dev_of(uint32_t arg)
{
	return devnames[arg % NDEVS];
}

static bool tcp_waits_for_peer(const char *line);

/* The op's Ctrl-C.  A watchdog firing on a wait that should have ended
 * by itself (watchdog_arm) dumps the guest's state first (Ctrl-T's dump,
 * kernel/debug/hangdump.h), while the stuck thread still waits: the run then
 * fails, and its log says on what.  Not for tcp.ko waiting for TCP
 * peers, which the run accepts (rmmod_stuck); out.kept is read racily
 * here, which at worst costs or spares one dump. */
void
lt_intr_fire(struct timer *t)
{
	struct lt_worker *w = t->data;
	if (w->watched[0] != '\0' && !(strcmp(w->watched, "rmmod tcp") == 0 &&
	                               tcp_waits_for_peer(w->out.kept)))
		hangdump(w->watched);
	thread_signal(w->thread);
}

/* Under sched=pct a delay is counted in scheduling points (one per 10
 * ms asked), not in ms: where it ends is then the seed's, not the
 * host's (docs/repro.md). */
static unsigned
pct_points(unsigned ms)
{
	return 1 + ms / 10;
}

/* Arm the worker's interrupt: ms from now its op sees a Ctrl-C.  Under
 * pct after that many points; the timer stays, ten times later, for a
 * run whose members all sleep (no point passes). */
static void
intr_arm(struct lt_worker *w, unsigned ms)
{
	if (w->run->p.pct && ms < w->run->p.watchdog_ms) {
		schedctl_signal_after(pct_points(ms));
		ms = ms * 10 + 1000;
	}
	timer_add(&w->intr_timer, now_ms() + ms);
}

/* Hold what the op holds for ms: a sleep, or under pct that many points
 * (the holder keeps running; PCT lets others in at its change points). */
static void
hold_for(struct lt_worker *w, unsigned ms)
{
	if (!w->run->p.pct) {
		msleep(ms);
		return;
	}
	for (unsigned i = pct_points(ms); i > 0; i--)
		schedctl_point();
}

/* Arm the watchdog of a wait that should end by itself: what names it
 * in the hang dump if it fires. */
static void watchdog_arm(struct lt_worker *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
watchdog_arm(struct lt_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->watched, sizeof(w->watched), fmt, ap);
	va_end(ap);
	intr_arm(w, w->run->p.watchdog_ms);
}

/* Disarm, and forget a signal that came after the op ended. */
static void
intr_disarm(struct lt_worker *w)
{
	schedctl_signal_after(0);
	timer_del(&w->intr_timer); /* waits for a running lt_intr_fire */
	w->watched[0] = '\0';
	clear_signal();
}

static int exec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int
exec(const char *fmt, ...)
{
	char line[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return shell_exec(line);
}

/* ---- modules ------------------------------------------------------------ */

/* Module parameters that keep a load/unload cycle short: netsim with
 * 1..3 devices, busy with 0..2 objects draining in 1..50 ms each,
 * selfput running 0..50 ms of module code after its last put, hello
 * quiet. */
static int
insmod_args(const char *name, uint32_t arg, char (*buf)[16], char **argv)
{
	uint32_t x = arg >> 8;

	if (strcmp(name, "netsim") == 0) {
		snprintf(buf[0], sizeof(buf[0]), "count=%u", 1 + x % 3);
		argv[0] = buf[0];
		return 1;
	}
	if (strcmp(name, "busy") == 0) {
		snprintf(buf[0], sizeof(buf[0]), "objects=%u", x % 3);
		snprintf(buf[1], sizeof(buf[1]), "drain_ms=%u",
		         1 + (x >> 2) % 50);
		argv[0] = buf[0];
		argv[1] = buf[1];
		return 2;
	}
	if (strcmp(name, "selfput") == 0) {
		snprintf(buf[0], sizeof(buf[0]), "tail_ms=%u", x % 51);
		argv[0] = buf[0];
		return 1;
	}
	if (strcmp(name, "hello") == 0) {
		snprintf(buf[0], sizeof(buf[0]), "quiet=1");
		argv[0] = buf[0];
		return 1;
	}
	return 0;
}

static int
op_insmod(struct lt_worker *w, uint32_t arg)
{
	const char *name = mod_of(w, arg);
	char err[160], buf[2][16];
	char *argv[2];
	int argc = insmod_args(name, arg, buf, argv);
	int r = module_load(name, argc, argv, NULL, err, sizeof(err));

	if (r == 0)
		lt_count_cycle(w, arg, true);
	return r;
}

void
lt_count_cycle(struct lt_worker *w, uint32_t arg, bool load)
{
	struct lt_run *run = w->run;
	unsigned m = arg % (uint32_t)run->nmods;

	if (load) {
		__atomic_add_fetch(&run->loads[m], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&run->unloads[m], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&run->cycles, 1, __ATOMIC_SEQ_CST);
}

/* The sample is uniform over every wait (reservoir sampling: wait i
 * replaces a random slot with probability LT_WAITS/i); its random
 * numbers come from a hash of i, not from the workers' generators, so
 * the op sequences stay those of the seed. */
static uint32_t
hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ (x >> 16);
}

void
lt_wait_sample(struct lt_run *run, uint32_t us)
{
	uint32_t i = __atomic_fetch_add(&run->nwaits, 1, __ATOMIC_RELAXED);
	uint32_t v;

	if (i < LT_WAITS)
		run->waits[i] = us;
	else if ((v = hash32(i) % (i + 1)) < LT_WAITS)
		run->waits[v] = us;
	/* wait_min starts at UINT32_MAX (engine.c): a wait under 1 us
	 * is 0 and must stay the minimum. */
	v = __atomic_load_n(&run->wait_min, __ATOMIC_RELAXED);
	while (us < v &&
	       !__atomic_compare_exchange_n(&run->wait_min, &v, us, false,
	                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	v = __atomic_load_n(&run->wait_max, __ATOMIC_RELAXED);
	while (us > v &&
	       !__atomic_compare_exchange_n(&run->wait_max, &v, us, false,
	                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* tcp.ko's wait line names what it waits for by connection state:
 * "rmmod: tcp: waiting 30 s: refcount 0; 1 ESTABLISHED, 2 TIME_WAIT
 * (longest 1 s left); ...".  TIME_WAIT ends on its own (2 * tcp_msl_ms,
 * 1 s in these runs); every other state ends only when the peer answers
 * or TCP gives up on it: 60 s of FIN_WAIT_2, about a minute of
 * retransmissions, never for an idle ESTABLISHED connection (no
 * keepalive, as in Linux).  The host's clients reach tcpecho through
 * both NICs, and the workers unload a NIC's driver under them: their
 * FIN or ACK is then lost, and a guest connection can wait for its peer
 * far longer than the watchdog.  A user's rmmod would wait the same way
 * until Ctrl-C or rmmod -f, so that wait is legitimate: counted, not a
 * failure.  (CLOSE_WAIT counts too: tcpecho closes only once its echo
 * reached the peer.) */
static bool
tcp_waits_for_peer(const char *line)
{
	static const char *const states[] = {
	    " SYN_SENT",   " SYN_RECEIVED", " ESTABLISHED", " FIN_WAIT_1",
	    " FIN_WAIT_2", " CLOSE_WAIT",   " CLOSING",     " LAST_ACK"};

	if (strncmp(line, "rmmod: tcp: waiting ", 20) != 0)
		return false;
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (strstr(line, states[i]) != NULL)
			return true;
	return false;
}

/* The watchdog fired on a waiting rmmod of name: print its last wait
 * line, and for tcp its connections (ss), so that what it waited for is
 * on the console whatever the verdict.  -ETIMEDOUT (counted, accepted)
 * if it is a tcp wait for peers, else -EINTR (a failure). */
static int
rmmod_stuck(struct lt_worker *w, const char *name, int flags)
{
	struct out_capture *c;
	bool peer = flags == 0 && strcmp(name, "tcp") == 0 &&
	            tcp_waits_for_peer(w->out.kept);

	printk(LOG_WARN,
	       "stress: rmmod%s %s: stopped by the %u s watchdog; "
	       "last wait line: '%s'%s\n",
	       flags & RMMOD_FORCE ? " -f" : "", name,
	       w->run->p.watchdog_ms / 1000, w->out.kept,
	       peer ? " (a wait for TCP peers: counted, not a failure)" : "");
	if (strcmp(name, "tcp") == 0) {
		c = out_capture_suspend();
		exec("ss");
		out_capture_resume(c);
	}
	if (!peer)
		return -EINTR;
	__atomic_add_fetch(&w->run->tcp_peer_waits, 1, __ATOMIC_RELAXED);
	return -ETIMEDOUT;
}

/* Under refmode=pinned a module, once LIVE, stays loaded for good, so
 * every rmmod flavour of a module that was LIVE when the op began must
 * answer EPERM: not EBUSY (a policy checked too late), not success.
 * One not loaded, still COMING or kept after a failed init may
 * legitimately answer ENOENT, EBUSY or 0 (freed).  pinned_live says,
 * before the op, whether the rule applies; pinned_check judges after. */
static bool
pinned_live(const char *name)
{
	struct module *mod;
	bool live;

	if (netdev_refmode != REFMODE_PINNED)
		return false;
	mutex_lock(&module_mutex);
	mod = module_find(name);
	live = mod != NULL && mod->state == MODULE_STATE_LIVE;
	mutex_unlock(&module_mutex);
	return live;
}

static int
pinned_check(struct lt_worker *w, bool live, int r)
{
	if (live && r != -EPERM)
		w->verdict = "refmode=pinned: rmmod of a LIVE module must "
		             "answer EPERM";
	return r;
}

/* rmmod and rmmod -f wait (for holders the run lets go of by itself):
 * a watchdog turns a stuck wait into EINTR, which is not an accepted
 * outcome, unless it is tcp.ko waiting for TCP peers (rmmod_stuck). */
static int
rmmod_waiting(struct lt_worker *w, uint32_t arg, int flags)
{
	const char *name = mod_of(w, arg);
	bool live = pinned_live(name);
	uint64_t t0 = now_us();
	int r;

	w->out.keep = ": waiting ";
	watchdog_arm(w, flags & RMMOD_FORCE ? "rmmod -f %s" : "rmmod %s", name);
	r = module_unload(name, flags | RMMOD_QUIET);
	intr_disarm(w);
	/* The engine's verdict below is the only ETIMEDOUT of this op. */
	ASSERT(r != -ETIMEDOUT);
	if (r == 0) {
		lt_wait_sample(w->run, (uint32_t)(now_us() - t0));
		lt_count_cycle(w, arg, false);
	} else if (r == -EINTR) {
		r = rmmod_stuck(w, name, flags);
	}
	return pinned_check(w, live, r);
}

static int
op_rmmod(struct lt_worker *w, uint32_t arg)
{
	return rmmod_waiting(w, arg, 0);
}

static int
op_rmmod_f(struct lt_worker *w, uint32_t arg)
{
	return rmmod_waiting(w, arg, RMMOD_FORCE);
}

static int
op_rmmod_n(struct lt_worker *w, uint32_t arg)
{
	const char *name = mod_of(w, arg);
	bool live = pinned_live(name);
	unsigned waits = current->drain_waits;
	int r = module_unload(name, RMMOD_NOWAIT | RMMOD_QUIET);

	/* rmmod -n never waits: a module busy after its quiesce hook is
	 * left LIVE; one that waited for a reference somewhere (a
	 * driver's unregister_netdev) let one be taken after its check */
	if (current->drain_waits != waits && w->verdict == NULL)
		w->verdict = "rmmod -n waited for a reference";
	if (r == 0)
		lt_count_cycle(w, arg, false);
	return pinned_check(w, live, r);
}

/* A waiting rmmod that the user interrupts after 0..200 ms. */
static int
op_rmmod_intr(struct lt_worker *w, uint32_t arg)
{
	const char *name = mod_of(w, arg);
	bool live = pinned_live(name);
	int r;

	intr_arm(w, (arg >> 8) % INTR_MAX_MS);
	r = module_unload(name, RMMOD_QUIET);
	intr_disarm(w);
	if (r == 0)
		lt_count_cycle(w, arg, false);
	return pinned_check(w, live, r);
}

/* ---- devices ------------------------------------------------------------ */

static int
op_nsim_add(struct lt_worker *w, uint32_t arg)
{
	return exec("netsim add");
}

/* netsim del waits for the device's holders; one in four is
 * interrupted after 0..200 ms (the unregister rolls back). */
static int
op_nsim_del(struct lt_worker *w, uint32_t arg)
{
	bool intr = ((arg >> 8) & 3) == 0;
	int r;

	if (intr)
		intr_arm(w, (arg >> 10) % INTR_MAX_MS);
	else
		watchdog_arm(w, "netsim del nsim%u", arg % 4);
	r = exec("netsim del nsim%u", arg % 4);
	intr_disarm(w);
	if (r == -EINTR && !intr)
		r = -ETIMEDOUT; /* the watchdog: stuck */
	return r;
}

static int
op_link_up(struct lt_worker *w, uint32_t arg)
{
	return exec("ip link set %s up", dev_of(arg));
}

static int
op_link_down(struct lt_worker *w, uint32_t arg)
{
	return exec("ip link set %s down", dev_of(arg));
}

static int
op_devhold(struct lt_worker *w, uint32_t arg)
{
	unsigned ms = (arg >> 8) % (w->run->p.holdmax_ms + 1);
	struct net_device *dev;
	struct ref_tracker t;

	if (!w->run->p.pct) /* the command: a timer drops it */
		return exec("devhold %s %u", dev_of(arg), ms);
	/* pct: the op holds it itself, for schedule time */
	dev = dev_get_by_name(dev_of(arg), &t, "devhold");
	if (dev == NULL)
		return -ENODEV;
	hold_for(w, ms);
	dev_put_track(dev, &t);
	return 0;
}

static int
op_dhcp(struct lt_worker *w, uint32_t arg)
{
	char msg[96];
	int r;

	intr_arm(w, w->run->p.watchdog_ms);
	r = dhcp_start(devnames[arg % 2], DHCP_MS, msg, sizeof(msg));
	intr_disarm(w);
	if (r < 0)
		kprintf("dhcp: %s: %s\n", errno_name(r), msg);
	return r;
}

/* ---- sockets ------------------------------------------------------------ */

static int
op_udp(struct lt_worker *w, uint32_t arg)
{
	struct sockaddr_in4 to = {GATEWAY, (uint16_t)w->run->p.udpport};
	struct socket *sk;
	int r;

	r = sock_create(SOCK_DGRAM, 0, &sk);
	if (r < 0)
		return r;
	if ((arg >> 8) & 1)
		r = sock_bind_device(sk, dev_of(arg));
	if (r == 0 && to.port != 0) {
		r = sock_sendto(sk, "stress", 6, &to);
		if (r >= 0)
			__atomic_add_fetch(&w->run->udp_sent, 1,
			                   __ATOMIC_RELAXED);
	}
	sock_close(sk);
	return r < 0 ? r : 0;
}

/* With a host echo server: connect, echo, close (TIME_WAIT here);
 * without: a socket bound to a device, closed unconnected. */
static int
op_tcp(struct lt_worker *w, uint32_t arg)
{
	struct socket *sk;
	int r;

	if (w->run->p.tcpport != 0) {
		intr_arm(w, w->run->p.watchdog_ms);
		r = exec("tcpconnect 10.0.2.2 %u w%d-%u", w->run->p.tcpport,
		         w->id, arg % 1000);
		intr_disarm(w);
		if (r == 0)
			__atomic_add_fetch(&w->run->tcp_echoed, 1,
			                   __ATOMIC_RELAXED);
		return r;
	}
	r = sock_create(SOCK_STREAM, 0, &sk);
	if (r < 0)
		return r;
	r = sock_bind_device(sk, dev_of(arg));
	sock_close(sk);
	return r;
}

/* The tcp.ko echo service, for the host's TCP streams through hostfwd
 * (make stress); it ends with its module. */
static int
op_tcpecho(struct lt_worker *w, uint32_t arg)
{
	return exec("tcpecho");
}

/* A socket of the sockproto module held for a while: rmmod sockproto
 * must wait for it (or -n refuse, or -f ... wait too: no force hook). */
static int
op_sockproto(struct lt_worker *w, uint32_t arg)
{
	struct socket *sk;
	int r;

	r = sock_create(SOCK_DGRAM, SOCKPROTO_NUM, &sk);
	if (r < 0)
		return r;
	hold_for(w, (arg >> 8) % (w->run->p.holdmax_ms + 1));
	sock_close(sk);
	return 0;
}

/* The guest pings the gateway (10.0.2.2) while the run loads and
 * unloads its drivers: one echo request, routed like any other packet
 * (through whichever device has an address and a route), and up to
 * PING_MS for the reply.  No route, no device, a device going down or
 * its driver being unloaded between send and reply are all legitimate
 * (ENETUNREACH, EHOSTUNREACH, ENODEV, ENETDOWN); the reply, when it
 * comes, must be the one we sent (same id and seq). */
static int
op_ping(struct lt_worker *w, uint32_t arg)
{
	static volatile uint16_t ping_id = 0x5354;
	struct ping_waiter pw = {0};
	DEFINE_WAITQ(wq);
	uint16_t seq = (uint16_t)(1 + arg % 1000);
	int r;

	pw.id = __atomic_add_fetch(&ping_id, 1, __ATOMIC_RELAXED);
	pw.wq = &wq;
	ping_register(&pw);
	r = icmp_send_echo(GATEWAY, pw.id, seq, (arg >> 10) % 64);
	if (r == 0) {
		r = wait_event_interruptible_timeout(
		    wq, pw.replies != 0 && pw.last_seq == seq, PING_MS);
		if (r != 0)
			r = -EHOSTUNREACH; /* no reply (or the watchdog) */
	}
	ping_unregister(&pw);
	if (r == 0 && pw.bad != 0)
		r = -EIO; /* a reply whose data differed: never legitimate */
	return r;
}

/* ---- readers and checks ------------------------------------------------- */

static int
op_read(struct lt_worker *w, uint32_t arg)
{
	static const char *const readers[] = {
	    "lsmod", "refs", "ss", "arp", "ip route", "ip link", "ip addr"};
	return exec("%s", readers[arg % 7]);
}

static int
op_refs_dev(struct lt_worker *w, uint32_t arg)
{
	return exec("refs %s", dev_of(arg));
}

static int
op_check(struct lt_worker *w, uint32_t arg)
{
	return invariants_check("during the run") == 0 ? 0 : -EIO;
}

/* ---- the table ---------------------------------------------------------- */

static const int ok_none[] = {0};
static const int ok_insmod[] = {EEXIST, EBUSY, ENOENT, ENODEV, 0};
static const int ok_rmmod[] = {ENOENT, EBUSY, EPERM, 0};
/* ETIMEDOUT: the engine's verdict on a tcp wait for peers (rmmod_stuck) */
static const int ok_rmmod_wait[] = {ENOENT, EBUSY, EPERM, ETIMEDOUT, 0};
static const int ok_rmmod_intr[] = {ENOENT, EBUSY, EPERM, EINTR, 0};
static const int ok_cmd[] = {ENOENT, ESRCH, ENODEV, ENOSPC, 0};
static const int ok_del[] = {ENOENT, ESRCH, ENODEV, EINTR, EBUSY, 0};
static const int ok_link[] = {ENODEV, EIO, EBUSY, 0}; /* EBUSY: owner GOING */
static const int ok_dhcp[] = {
    ENODEV, ETIMEDOUT, ENETDOWN,
    EBUSY,  EAGAIN,    EADDRINUSE, /* both NICs leased one address */
    0};
static const int ok_sock[] = {
    ENODEV,          ENETUNREACH,  EHOSTUNREACH, ENETDOWN,
    EPROTONOSUPPORT, ECONNREFUSED, ECONNRESET,   ETIMEDOUT,
    EAGAIN,          EADDRINUSE,   ENOTCONN,     EPIPE,
    ENOENT,          ESRCH,        EINTR,        0};
static const int ok_ping[] = {ENETUNREACH, EHOSTUNREACH, ENODEV, ENETDOWN, 0};
static const int ok_refs[] = {ENOENT, 0};
static const int ok_tcpecho[] = {ENOENT,     ESRCH,           EALREADY,
                                 EADDRINUSE, EPROTONOSUPPORT, /* tcp.ko GOING */
                                 0};

const struct lt_op lt_ops[] = {
    {"insmod", op_insmod, ok_insmod, 12},
    {"rmmod", op_rmmod, ok_rmmod_wait, 4},
    {"rmmod-n", op_rmmod_n, ok_rmmod, 3},
    {"rmmod-f", op_rmmod_f, ok_rmmod, 2},
    {"rmmod-intr", op_rmmod_intr, ok_rmmod_intr, 3},
    {"nsim-add", op_nsim_add, ok_cmd, 4},
    {"nsim-del", op_nsim_del, ok_del, 3},
    {"link-up", op_link_up, ok_link, 6},
    {"link-down", op_link_down, ok_link, 3},
    {"devhold", op_devhold, ok_link, 5},
    {"dhcp", op_dhcp, ok_dhcp, 1},
    {"udp", op_udp, ok_sock, 6},
    {"tcp", op_tcp, ok_sock, 4},
    {"sockproto", op_sockproto, ok_sock, 3},
    {"tcpecho", op_tcpecho, ok_tcpecho, 1},
    {"read", op_read, ok_none, 6},
    {"refs-dev", op_refs_dev, ok_refs, 2},
    {"check", op_check, ok_none, 1},
    {"ping", op_ping, ok_ping, 2},
};
const unsigned lt_nops = sizeof(lt_ops) / sizeof(lt_ops[0]);

int
lt_op_find(const char *name)
{
	for (unsigned i = 0; i < lt_nops; i++)
		if (strcmp(lt_ops[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
lt_arg_name(const struct lt_op *op, uint32_t arg, char *buf, size_t size)
{
	(void)op;
	snprintf(buf, size, "%08x", (unsigned)arg);
	return buf;
}
