/*
 * tcp.ko: the TCP core (net/tcp/) wrapped for the kernel.  Shared by the
 * module's files:
 *
 *   tcp_mod.c     the stack, its lock, IP input and output, the clock
 *                 (a timer that queues work running tcp_tick), init/exit
 *   tcp_sock.c    proto_ops for SOCK_STREAM over the socket layer
 *   tcp_echo.c    the tcpecho service (event driven, no thread)
 *   tcp_unload.c  can_unload / quiesce / resume / force / status
 *   cmd_tcp.c     tcpconnect, tcplisten, tcpbulk, tcpecho, ss lines
 *
 * Locking: tcp_lock (irqsave) around every call into the core.  The
 * core's emit callback only queues built skbs; whoever called the core
 * unlocks with tcp_unlock_flush(), which sends them with the lock
 * dropped, one flusher at a time so they leave in the order the core
 * emitted them (a caller that finds a flush running leaves its segments
 * to it).  The event callback only wakes and queues work.
 */
#ifndef NET_TCP_KO_TCP_MOD_H
#define NET_TCP_KO_TCP_MOD_H

#include "net/ipv4/inet.h"
#include "net/tcp/tcp.h"
#include <kernel/locking/spinlock.h>
#include <kernel/sched/waitq.h>

#define TCP_TAG "tcp" /* kmalloc tag of everything in tcp.ko */

/* What a pcb's user pointer points at. */
enum tcp_user_kind { TCP_USER_SOCK = 1, TCP_USER_ECHO };
struct tcp_user {
	enum tcp_user_kind kind;
};

extern struct tcp_stack *tcp_stack;
extern spinlock_t tcp_lock;
extern struct waitq tcp_wq; /* blocking callers wait here */
/* Bumped by every event tcp_wq is woken for (busy polling watches it). */
extern volatile uint32_t tcp_events;

uint32_t tcp_lock_irqsave(void) ACQUIRE(tcp_lock);
/* Unlock, then send what the core emitted meanwhile, in order (or leave
 * it to the flush already running).  Lock held. */
void tcp_unlock_flush(uint32_t flags) RELEASE(tcp_lock);
/* Run the clock and the services soon (from any context). */
void tcp_kick(void);
/* Apply the MSL sysctl if it changed; lock held. */
void tcp_sync_config(void) REQUIRES(tcp_lock);

/* tcp_sock.c */
extern struct proto_ops tcp_proto_ops;
void tcp_sock_event(struct tcp_pcb *pcb, struct tcp_user *u, unsigned ev);
void tcp_show_all(void);
/* Bind to a kernel-chosen ephemeral port (net/tcp/resident/tcp_persist.c); lock held. */
int tcp_bind_ephemeral(struct tcp_pcb *pcb, uint32_t addr);
/* Wait (Ctrl-C-able, ms < 0: forever) until tcp_poll(pcb) & mask. */
int tcp_wait_pcb(struct tcp_pcb *pcb, unsigned mask, long ms);
struct tcp_pcb *tcp_sock_pcb(struct socket *sk);
/* connect() gives up with -ETIMEDOUT after ms (< 0: only the SYN
 * retries bound it, the default). */
void tcp_sock_set_connect_timeout(struct socket *sk, long ms);

/* tcp_echo.c */
int tcp_echo_start(uint16_t port);
int tcp_echo_stop(unsigned long *served);
void tcp_echo_work(void);
void tcp_echo_event(struct tcp_user *u);
uint16_t tcp_echo_port(void);
/* Quiesce/resume: the listener closes while rmmod waits. */
void tcp_echo_pause(void);
void tcp_echo_unpause(void);
void tcp_echo_exit(void);
unsigned tcp_echo_abort_all(void);

/* tcp_unload.c */
void tcp_unload_tick(void);

/* cmd_tcp.c */
void tcp_cmds_register(void);
void tcp_cmds_unregister(void);

#endif
