/*
 * The module/device lifetime protocol of modref, as Promela for SPIN.
 * docs/model.md explains it; model/modelcheck.c runs it.
 *
 * One driver module (e1000/netsim) that owns one device (eth0), holders of
 * that device, and one or two unloaders.  Parameters (spin -D...):
 *
 *   REFMODE  0 wait, 1 owner, 2 pinned, 3 legacy   (net/core/dev_refcnt.c)
 *   MODREF   0 percpu, 1 atomic                    (modloader/refcount.c)
 *   FIXED    0 the code of main today, 1 with the fixes of the races of
 *            issue 10 (docs/model.md, "The fixes the model assumes")
 *   SCEN     0 base: timed holder, ARP-like cache, in-flight packet, one
 *              rmmod (wait, -n or Ctrl-C, chosen by the model)
 *            1 race 1: two concurrent rmmod
 *            2 race 2: rmmod, Ctrl-C, and a direct unregister (netsim del)
 *            3 race 3: rmmod -n while a packet takes a new reference
 *            4 tcp: a protocol module whose TIME_WAIT entries hold it
 *            5 console: only what a person can type at one console
 *              (devhold eth0 MS; rmmod, rmmod -n or Ctrl-C): the trail
 *              that model/modelcheck.c turns into a scenario
 *
 * Every process prints "EV ..." lines at the steps a person would see or
 * type; model/modelcheck.c turns a counterexample trail (spin -t) into a
 * scenario from them.  The properties are the named flags below; each
 * is asserted the moment it would be set.
 */
#ifndef REFMODE
#define REFMODE 0
#endif
#ifndef MODREF
#define MODREF 1
#endif
#ifndef FIXED
#define FIXED 1
#endif
#ifndef SCEN
#define SCEN 0
#endif
/* the base scenario's timed holder renews once (devhold -r); PACKET 0
 * leaves the in-flight packet out (make test's owner bound) */
#ifndef RENEW
#define RENEW 0
#endif
#ifndef PACKET
#define PACKET 1
#endif
/* Ablations (each 1 removes one mechanism, to show it is needed):
 *   NO_GRACE     teardown frees the module without synchronize_rcu
 *   NO_UNREGSYNC unregister counts references without synchronize_rcu
 *   NO_RECHECK   try_dev_hold does not test REGISTERED after its increment
 *   NO_RENOTIFY  NETDEV_UNREGISTER is sent once, never again */
#ifndef NO_GRACE
#define NO_GRACE 0
#endif
#ifndef NO_UNREGSYNC
#define NO_UNREGSYNC 0
#endif
#ifndef NO_RECHECK
#define NO_RECHECK 0
#endif
#ifndef NO_RENOTIFY
#define NO_RENOTIFY 0
#endif
#if SCEN == 0
#define NPROC (3 + PACKET)
#elif SCEN == 3 || SCEN == 4
#define NPROC 2
#elif SCEN == 5
#define NPROC 1
#else
#define NPROC 3
#endif

/* tcp.ko owns no device: eth0 belongs to another driver there */
#define HAS_DEV (SCEN != 4)

#define R_WAIT   0
#define R_OWNER  1
#define R_PINNED 2
#define R_LEGACY 3

/* module states (kernel/module.h) */
#define COMING 0
#define LIVE   1
#define GOING  2
#define GONE   3

/* device registration states (net/core/netdevice.h) */
#define REGISTERED    1
#define UNREGISTERING 2
#define UNREGISTERED  3

/* ---- properties: each one a flag, asserted as soon as it is set -------- */
bool uaf;             /* module code or data used after its memory is freed */
bool dev_uaf;         /* device used or freed while listed, referenced or freed */
bool double_teardown; /* a module torn down (freed) twice */
bool nowait_waited;   /* rmmod -n waited for a reference */
bool ctrlc_broken;    /* after Ctrl-C the module or device does not work */
bool leak;            /* a reference left (or one too many dropped) at the end */
bool reset_lost;      /* a TCP connection destroyed without a RST */
byte ndone;           /* processes that reached their end */
byte nspawn;          /* processes the console started (SCEN 5) */
bool rm_end;          /* the last rmmod returned to the prompt */

#define FAIL(flag) flag = 1; assert(!flag)

/* ---- the module ----------------------------------------------------- */
byte mstate = LIVE;
bool mlisted = 1;  /* on the module list (module_find finds it) */
bool mfreed = 0;   /* memory unmapped (teardown done) */
bit module_mutex;

#if MODREF == 1
byte mref = 1;     /* bias 1 + references */
#define MCOUNT (mref > 0 -> mref - 1 : 0)
#else
short pc0, pc1;    /* per-CPU deltas; only the sum means anything */
#define MCOUNT (pc0 + pc1)
#endif

/* RCU: one bit per process inside a read-side section.  A grace period
 * waits until every process that was inside at its start has left (one
 * that left and entered again is waited for too: conservative, see
 * docs/model.md). */
int rcu_in;
#define rcu_enter() rcu_in = rcu_in | (1 << _pid)
#define rcu_exit()  rcu_in = rcu_in & ~(1 << _pid)

inline synchronize_rcu(snap) {
	snap = rcu_in & ~(1 << _pid);
	(rcu_in & snap) == 0;
	snap = 0
}

inline lock(m) { atomic { m == 0 -> m = 1 } }
inline unlock(m) { m = 0 }

/* Module code runs (an ndo_*, the destructor, a hook, a timer of tcp.ko). */
inline module_code() {
	if
	:: mfreed -> FAIL(uaf)
	:: else -> skip
	fi
}

/* ---- module references (modloader/refcount.c) ------------------------ */
inline try_module_get(ok) {
#if MODREF == 1
	/* atomic_try_get: test LIVE, then increment unless zero (CAS) */
	if
	:: mstate != LIVE -> ok = 0
	:: else ->
		atomic {
			if
			:: mref == 0 -> ok = 0
			:: else -> mref++; ok = 1
			fi
		}
	fi
#else
	/* pcpu_try_get: interrupts off, so stop_machine cannot split it */
	atomic {
		if
		:: mstate == LIVE -> pc0++; ok = 1
		:: else -> ok = 0
		fi
	}
#endif
}

/* __module_get: legal only while holding a reference */
inline __module_get() {
	atomic {
		if
		:: MCOUNT <= 0 -> FAIL(leak)
		:: else -> skip
		fi;
#if MODREF == 1
		mref++
#else
		pc1++
#endif
	}
}

/* module_put: inside an RCU section; reads the module after the put */
inline module_put() {
	rcu_enter();
	atomic {
#if MODREF == 1
		if
		:: mref <= 1 -> FAIL(leak)
		:: else -> mref--
		fi
#else
		if
		:: pc0 + pc1 <= 0 -> FAIL(leak)
		:: else -> pc0--
		fi
#endif
	};
	if
	:: mfreed -> FAIL(uaf)
	:: else -> skip
	fi;
	rcu_exit()
}

/* the refcount implementation's unload check: 0 if released */
inline try_release(busy) {
#if MODREF == 1
	atomic {
		if
		:: mref == 1 -> mref = 0; busy = 0
		:: else -> busy = 1
		fi
	}
#else
	/* an unlocked look at the sum, then the exact one under stop_machine */
	psum = pc0;
	psum = psum + pc1;
	busy = (psum != 0);
	psum = 0;
	if
	:: busy -> skip
	:: else -> d_step { busy = (pc0 + pc1 != 0) }
	fi
#endif
}

/* ---- the device (net/core/dev.c, net/core/dev_refcnt.c) ------------------------ */
byte dstate = REGISTERED;
bool dlisted = 1;    /* on netdev_list: lookups find it */
bool dunreg = 0;     /* on netdev_unreg_list */
byte dunreg_by = 0;  /* _pid+1 of the caller that began its unregister */
bool dunreg_rmmod;   /* begun by rmmod's quiesce (dev->unreg_by_rmmod) */
byte drefcnt = 1;    /* the base reference: the registration */
bool dfreed = 0;
bool dup = 1;        /* IFF_UP: `ip link set eth0 up` ran */
bool was_up = 0;
bool in_xmit = 0;    /* a transmit inside the driver (xmit_lock) */
bool slot = HAS_DEV; /* the driver still has the device (netsim's devs[]) */
bit rtnl;

bool cache_held = 0; /* an ARP/route entry holds the device */

inline dev_touch() {
	if
	:: dfreed -> FAIL(dev_uaf)
	:: else -> skip
	fi
}

/* The destructor is module code; then free_netdev. */
inline destructor() {
	printf("EV destructor\n");
	module_code();
	if
	:: dfreed || dlisted || drefcnt != 0 -> FAIL(dev_uaf)
	:: else -> dfreed = 1
	fi
}

inline dev_put(n) {
	dev_touch();
	atomic { drefcnt--; n = drefcnt };
	if
	:: n == 255 -> FAIL(leak)
	:: else -> skip
	fi;
#if REFMODE == R_LEGACY
	if
	:: n == 0 && dstate == UNREGISTERED -> destructor()
	:: else -> skip
	fi;
#endif
#if REFMODE == R_OWNER
	module_put();
#endif
	n = 0
}

/* __dev_hold: the caller already holds the device */
inline dev_hold() {
	dev_touch();
#if REFMODE == R_OWNER
	__module_get();
#endif
	drefcnt++
}

/* dev_get_by_name: an RCU lookup, then __try_dev_hold */
inline dev_get_by_name(ok) {
	rcu_enter();
	if
	:: dlisted ->
		dev_touch();
#if REFMODE == R_OWNER
		try_module_get(ok);
		if
		:: ok ->
#endif
			drefcnt++;
			if
			:: dstate != REGISTERED && !NO_RECHECK ->
				drefcnt--;
#if REFMODE == R_OWNER
				module_put();
#endif
				ok = 0
			:: else -> ok = 1
			fi
#if REFMODE == R_OWNER
		:: else -> skip
		fi
#endif
	:: else -> ok = 0
	fi;
	rcu_exit()
}

/* NETDEV_UNREGISTER (rtnl held): the cache drops its entry. */
inline notify_unregister(n) {
	if
	:: cache_held -> cache_held = 0; printf("EV cache_flush\n"); dev_put(n)
	:: else -> skip
	fi
}

/* __dev_close with the owner pinned: no new transmit, then ndo_stop */
inline dev_close() {
	if
	:: dup ->
		dup = 0;
		(in_xmit == 0);   /* dev_xmit_disable */
		module_code()      /* ndo_stop */
	:: else -> skip
	fi
}

inline unreg_begin(n) {
	dev_touch();
	was_up = dup;
	dev_close();
	dstate = UNREGISTERING;
	dlisted = 0;
	dunreg = 1;
	dunreg_by = _pid + 1;
	printf("EV unreg_begin\n");
	notify_unregister(n)
}

inline unreg_abort() {
	printf("EV rollback\n");
	dunreg_rmmod = 0;
	dunreg = 0;
	dlisted = 1;
	dstate = REGISTERED;
	dunreg_by = 0;
	if
	:: was_up -> module_code(); dup = 1   /* ndo_open */
	:: else -> skip
	fi
}

inline unreg_finish(n) {
	printf("EV finish\n");
	dev_touch();
	dunreg = 0;
	dstate = UNREGISTERED;
	printf("EV unregistered\n");
#if REFMODE == R_LEGACY
	atomic { drefcnt--; n = drefcnt };
	if
	:: n == 0 -> destructor()
	:: else -> printf("EV legacy_left\n")
	fi;
#else
	drefcnt--;
	destructor();
#endif
	n = 0
}

/* unregister_netdev(dev); exit_nowait: called from the exit of rmmod -n.
 * r: 0 done, 1 -EINVAL, 2 done by another caller (FIXED only) */
inline unregister_netdev(r, exit_nowait, n, snap) {
	do
	:: lock(rtnl);
		if
		:: dstate == REGISTERED -> unreg_begin(n); unlock(rtnl); break
#if FIXED
		:: dstate == UNREGISTERING && dunreg_by != _pid + 1 ->
			/* another thread began it and finishes it: EBUSY */
			unlock(rtnl); r = 2; break
		:: dstate == UNREGISTERING && dunreg_by == _pid + 1 ->
			unlock(rtnl); break
#else
		:: dstate == UNREGISTERING -> unlock(rtnl); break
#endif
		:: else -> unlock(rtnl); r = 1; break
		fi
	od;
	if
	:: r == 0 ->
#if REFMODE != R_LEGACY
#if !NO_UNREGSYNC
		synchronize_rcu(snap);
#endif
		do
		:: drefcnt <= 1 -> break
		:: drefcnt > 1 ->
			printf("EV unreg_waiting\n");
			if
			:: exit_nowait == 1 -> FAIL(nowait_waited)
			:: else -> skip
			fi;
			if
			:: cache_held && !NO_RENOTIFY ->
				lock(rtnl); notify_unregister(n); unlock(rtnl)
			:: drefcnt <= 1 -> skip
			fi
		od;
#else
		synchronize_rcu(snap);
#endif
		lock(rtnl);
		unreg_finish(n);
		unlock(rtnl)
	:: else -> skip
	fi
}

/* ---- the driver's unload hooks (net/core/driver_unload.c) ------------------------ */
inline quiesce(n) {
#if HAS_DEV
	lock(rtnl);
	if
	:: dstate == REGISTERED -> unreg_begin(n); dunreg_rmmod = 1
	:: else -> skip
	fi;
	unlock(rtnl)
#else
	tcp_going = 1   /* tcp_quiesce: new SYNs get a RST */
#endif
}

/* netdev_module_can_unload + busy_reason: busy = 0 if rmmod may go on;
 * release: also the refcount's unload check (try_release), else a look */
inline can_unload(busy, n, release) {
	busy = 0;
#if HAS_DEV
	lock(rtnl);
#if FIXED
	/* another thread's unregister of our device: wait for it to end */
	if
	:: dunreg && !dunreg_rmmod -> busy = 1
	:: else -> skip
	fi;
#endif
#if REFMODE != R_LEGACY
	if
	:: busy -> skip
	:: !busy && dlisted && drefcnt > 1 -> busy = 1
#if FIXED
	:: !busy && dunreg && dunreg_rmmod && drefcnt > 1 ->
#else
	:: !busy && dunreg && drefcnt > 1 ->
#endif
		busy = 1;
		if
		:: !NO_RENOTIFY -> notify_unregister(n)
		:: else -> skip
		fi
	:: else -> skip
	fi;
#endif
	unlock(rtnl);
#endif
#if SCEN == 4
	if
	:: !busy && pcbs > 0 -> busy = 1
	:: else -> skip
	fi;
#endif
	if
	:: !busy && release -> try_release(busy)
	:: !busy && !release -> busy = (MCOUNT != 0)
	:: else -> skip
	fi
}

inline resume(n) {
#if HAS_DEV
	lock(rtnl);
	if
#if FIXED
	:: dunreg && dunreg_rmmod -> unreg_abort()
#else
	:: dunreg -> unreg_abort()
#endif
	:: else -> skip
	fi;
	/* Ctrl-C returns what this rmmod took down */
	if
	:: began && !(dstate == REGISTERED && dlisted && (dup || !was_up)) ->
		FAIL(ctrlc_broken)
	:: else -> skip
	fi;
	unlock(rtnl)
#else
	tcp_going = 0
#endif
}

/* ---- tcp.ko (SCEN 4): TIME_WAIT entries hold the module ------------- */
#if SCEN == 4
byte pcbs = 0;       /* connections and TIME_WAIT entries */
bool tcp_going = 0;  /* quiesce: new SYNs get a RST */
bool tcp_done = 0;   /* the peer process is finished */

/* A peer connects: the SYN reaches tcp.ko's handler inside an RCU
 * section without a module reference (inet_protocol.rcu_rx), also while
 * the module is GOING; the connection closes into TIME_WAIT, whose timer
 * (tcp.ko's own) expires it. */
bool tcp_registered = 1; /* the IP protocol handler is registered */

proctype tcp_peer()
{
	printf("EV syn\n");
	rcu_enter();
	if
	:: tcp_registered ->
		module_code();
		/* under tcp_lock: the going test and the insert are one step */
		if
		:: atomic { tcp_going -> skip }; printf("EV syn_rst\n")
		:: atomic { !tcp_going -> pcbs++ }; printf("EV accepted\n")
		fi
	:: else -> printf("EV syn_noproto\n")
	fi;
	rcu_exit();
	if
	:: atomic { pcbs > 0 -> module_code(); pcbs-- };
		printf("EV time_wait_expired\n")
	:: atomic { pcbs == 0 -> skip }
	fi;
	ndone++
}
#endif

/* ---- rmmod (modloader/unload.c) -------------------------------------- */
/* module_teardown_locked: module_mutex held, dropped */
inline teardown_locked(snap) {
	printf("EV teardown\n");
	mlisted = 0;
	unlock(module_mutex);
#if !NO_GRACE
	synchronize_rcu(snap);
#endif
	lock(module_mutex);
	if
	:: mfreed -> FAIL(double_teardown)
	:: else -> mfreed = 1
	fi;
	unlock(module_mutex)
}

/* the module's exit: the driver unregisters what it still has; tcp.ko
 * destroys what is left of its table (without a RST) */
inline module_exit(r, nowait, n, snap) {
	printf("EV exit\n");
	module_code();
	if
	:: slot ->
		unregister_netdev(r, nowait, n, snap);
		slot = 0;
		r = 0
	:: else -> skip
	fi;
#if SCEN == 4
	tcp_registered = 0;       /* inet_del_protocol: waits for handlers */
	synchronize_rcu(snap);
	atomic {
		if
		:: pcbs > 0 -> FAIL(reset_lost)   /* destroyed without a RST */
		:: else -> skip
		fi
	};
#endif
	skip
}

/* abandon()/rollback(): the old code makes the module LIVE, then calls
 * resume; the fixed one resumes first, so a LIVE module always works */
inline rollback(n) {
#if FIXED
	module_code();
	resume(n);
	lock(module_mutex);
	mstate = LIVE;
	unlock(module_mutex)
#else
	lock(module_mutex);
	mstate = LIVE;
	unlock(module_mutex);
	module_code();
	resume(n)
#endif
}

/* rmmod's 10 ms poll, as a wait: true in every state in which
 * can_unload and the count could say "free" (or a cache is to be told
 * again), so no outcome of a poll is lost */
#if SCEN == 4
#define MAYBE_FREE (MCOUNT == 0 && pcbs == 0)
#elif REFMODE == R_LEGACY
#define MAYBE_FREE (MCOUNT == 0 && (!FIXED || !dunreg || dunreg_rmmod))
#else
#define MAYBE_FREE                                                      \
	((drefcnt <= 1 && MCOUNT == 0 && (!FIXED || !dunreg || dunreg_rmmod)) \
	 || (cache_held && !NO_RENOTIFY))
#endif

/* nowait: 0 wait, 1 -n; ctrlc: may press Ctrl-C while waiting */
proctype rmmod(bool nowait; bool ctrlc)
{
	byte r = 0, n = 0;
	int snap = 0;
	bool busy = 0, began = 0;
	short psum = 0;

	if
	:: nowait -> printf("EV rmmod_n\n")
	:: else -> printf("EV rmmod\n")
	fi;
	lock(module_mutex);
	if
	:: !mlisted -> unlock(module_mutex); printf("EV enoent\n"); goto out
	:: else -> skip
	fi;
	/* begin() */
	if
	:: mstate == GONE ->
		/* a kept failed-init module, begin() says; in the old code
		 * also one that another rmmod is tearing down */
		printf("EV found_gone\n");
#if FIXED
		teardown_locked(snap);    /* before the mutex is dropped */
#else
		unlock(module_mutex);
		lock(module_mutex);
		teardown_locked(snap);
#endif
		printf("EV freed_failed_init\n");
		goto out
	:: mstate == GOING ->
		unlock(module_mutex); printf("EV ebusy_going\n"); goto out
	:: mstate == LIVE && REFMODE == R_PINNED ->
		unlock(module_mutex); printf("EV eperm\n"); goto out
	:: mstate == LIVE && REFMODE != R_PINNED ->
		mstate = GOING;
		printf("EV going\n");
		if
		:: nowait ->
			/* old: the check that decides; fixed: a look only */
			can_unload(busy, n, !FIXED);
			if
			:: busy -> mstate = LIVE
			:: else -> skip
			fi
		:: else -> skip
		fi
	fi;
	unlock(module_mutex);
	if
	:: nowait && busy -> printf("EV ebusy\n"); goto out
	:: else -> skip
	fi;
	if
	:: nowait ->
#if FIXED
		/* nowait_quiesced(): quiesce, then check once more */
		module_code();
		quiesce(n);
		began = (dunreg_by == _pid + 1);
		can_unload(busy, n, 1);
		if
		:: busy -> rollback(n); printf("EV ebusy\n"); goto out
		:: else -> skip
		fi
#else
		skip
#endif
	:: !nowait ->
		module_code();
		quiesce(n);
		began = (dunreg_by == _pid + 1);
		do
		:: can_unload(busy, n, 1);
			if
			:: !busy -> break
			:: busy ->
				printf("EV rmmod_waiting\n");
				if
				:: ctrlc ->
					ctrlc = 0;
					printf("EV ctrlc\n");
					rollback(n);
					printf("EV eintr\n");
					goto out
				:: !ctrlc || 1 ->
					/* sleep until something may have changed */
					MAYBE_FREE
				fi
			fi
		od
	fi;
	module_exit(r, nowait, n, snap);
#if FIXED
	lock(module_mutex);
	mstate = GONE;
	printf("EV gone\n");
	teardown_locked(snap);   /* GONE and unlisted in one hold */
#else
	mstate = GONE;           /* set_state without the mutex */
	printf("EV gone\n");
	lock(module_mutex);
	teardown_locked(snap);
#endif
	printf("EV unloaded\n");
out:
	rm_end = 1;
	ndone++
}

/* ---- holders ------------------------------------------------------- */

/* devhold eth0 MS: a lookup, a hold, the lookup's reference dropped; a
 * timer drops the hold later, ignoring NETDEV_UNREGISTER.  renew: the
 * devhold -r kind, which takes a new reference with try_dev_hold once. */
proctype devhold(bool renew)
{
	bool ok;
	byte n;

	dev_get_by_name(ok);
	if
	:: ok ->
		printf("EV devhold\n");
		dev_hold();
		dev_put(n);
		if
		:: renew ->
			dev_get_by_name(ok);
			if
			:: ok -> dev_put(n); printf("EV renewed\n")
			:: else -> printf("EV renew_refused\n")
			fi
		:: else -> skip
		fi;
		/* the timer fires: holder_expire, kernel text */
		printf("EV expire\n");
		dev_put(n)
	:: else -> printf("EV devhold_enodev\n")
	fi;
	ndone++
}

/* An ARP entry: learnt from a packet while the device is listed; dropped
 * by the NETDEV_UNREGISTER notifier (under rtnl). */
proctype cache()
{
	bool ok;

	dev_get_by_name(ok);
	if
	:: ok ->
		lock(rtnl);
		/* the entry is inserted under the cache's lock (rtnl here);
		 * an unregister that notified before this is re-sent */
		cache_held = 1;
		printf("EV cache_hold\n");
		unlock(rtnl)
	:: else -> skip
	fi;
	ndone++
}

/* A packet: a lookup takes a reference, the transmit enters the driver
 * if the device is up, the reference is dropped. */
proctype packet()
{
	bool ok;
	byte n;

	dev_get_by_name(ok);
	if
	:: ok ->
		printf("EV packet_hold\n");
		if
		:: atomic { dup -> in_xmit = 1 } ->
			module_code();      /* ndo_start_xmit */
			in_xmit = 0
		:: else -> skip
		fi;
		dev_put(n)
	:: else -> skip
	fi;
	ndone++
}

/* netsim del eth0: a module command, so the shell holds netsim while it
 * runs (a ktest thread calling the command does the same); its
 * unregister_netdev is a direct one, not rmmod's (race 2 of issue 10). */
proctype netdel()
{
	byte r = 0, n = 0;
	int snap = 0;
	bool ok;

	printf("EV netdel\n");
	try_module_get(ok);
	if
	:: ok && slot ->
		unregister_netdev(r, 0, n, snap);
		if
		:: r == 0 -> slot = 0
		:: else -> printf("EV netdel_ebusy\n")
		fi;
		module_put()
	:: ok && !slot -> module_put()
	:: !ok -> printf("EV netdel_refused\n")
	fi;
	ndone++
}

#if SCEN == 5
/* The timer of `devhold`: drops the reference whenever it fires. */
proctype holdtimer()
{
	byte n;

	/* dev_put, with the event at the decrement */
	dev_touch();
	atomic { drefcnt--; n = drefcnt; printf("EV expire\n") };
	if
	:: n == 255 -> FAIL(leak)
	:: else -> skip
	fi;
#if REFMODE == R_LEGACY
	if
	:: n == 0 && dstate == UNREGISTERED -> destructor()
	:: else -> skip
	fi;
#endif
#if REFMODE == R_OWNER
	module_put();
#endif
	ndone++
}

/* One console: each command runs to the prompt before the next one is
 * typed (Ctrl-C is typed while rmmod waits); timers run on their own. */
#ifndef STEPS
#define STEPS 2
#endif
proctype console()
{
	bool ok;
	byte i, n;

	do
	:: i < STEPS ->
		i++;
		if
		:: dev_get_by_name(ok);
			if
			:: ok ->
				dev_hold();
				dev_put(n);
				printf("EV devhold\n");
				nspawn++;
				run holdtimer()
			:: else -> printf("EV devhold_enodev\n")
			fi
		:: rm_end = 0; nspawn++; run rmmod(0, 1); rm_end
		:: rm_end = 0; nspawn++; run rmmod(1, 0); rm_end
		fi
	:: break
	od;
	(ndone == nspawn);
	ndone++
}
#endif

/* ---- the end: every reference accounted for ------------------------- */
proctype final(byte nproc)
{
	(ndone == nproc + nspawn);
	atomic {
		if
		:: HAS_DEV && mfreed && !dfreed ->
			FAIL(leak)   /* a device of a GONE module */
		:: !mfreed && (mstate != LIVE ||
		                MCOUNT != (REFMODE == R_OWNER -> cache_held : 0)) ->
			FAIL(leak)
		:: HAS_DEV && !dfreed && drefcnt != 1 + cache_held -> FAIL(leak)
		:: else -> skip
		fi
	}
}

init {
	atomic {
#if SCEN == 0
		run devhold(RENEW);
		run cache();
#if PACKET
		run packet();
#endif
		if
		:: run rmmod(0, 1)
		:: run rmmod(1, 0)
		fi;
#elif SCEN == 1
		run devhold(0);
		run rmmod(0, 0);
		run rmmod(0, 0);
#elif SCEN == 2
		run devhold(0);
		run netdel();
		run rmmod(0, 1);
#elif SCEN == 3
		run packet();
		run rmmod(1, 0);
#elif SCEN == 5
		run console();
#elif SCEN == 4
		run tcp_peer();
		if
		:: run rmmod(0, 1)
		:: run rmmod(1, 0)
		fi;
#endif
		run final(NPROC)
	}
}
