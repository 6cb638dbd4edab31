/*
 * The tcpecho service: a listener and its connections, all pcbs the
 * module holds itself (no struct socket, no thread).  Events queue the
 * module's work, which accepts, reads and writes back without blocking.
 * A connection whose peer closed is closed once its data went out (the
 * host closes first, the host ends in TIME_WAIT).
 *
 * While rmmod waits the listener is closed (tcp_echo_pause: stop taking
 * new work) and reopened on the same port if the unload is abandoned;
 * connections already open carry on either way, also those the
 * handshake completed but the work has not yet accepted: the pause
 * accepts them first, since closing a listener resets the children it
 * still owns.  Everything here is under tcp_lock.
 */
#include "net/tcp/ko/tcp_mod.h"
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/list.h>
#include <kernel/module.h>
#include <kernel/debug/panic.h>
#include <kernel/console/printk.h>
#include <kernel/sched/timer.h>

#define ECHO_BUF     2048
#define ECHO_BACKLOG 16

struct echo_conn {
	struct tcp_user u; /* first */
	struct list_head link;
	struct tcp_pcb *pcb;
	size_t off, len;
	bool eof;
	uint8_t buf[ECHO_BUF];
};

static struct tcp_user listener_user = {TCP_USER_ECHO};
static struct tcp_pcb *listener;
static uint16_t echo_port; /* nonzero while the service is on */
static bool paused;
static unsigned long served;
static LIST_HEAD(conns);

/* A server slow to accept, for tests of what an unload does with the
 * connections waiting in the listener's accept queue (tcp-unload.scn). */
static bool echo_hold;
MODULE_PARAM(echo_hold, BOOL,
             "test: the echo work leaves new connections in the accept "
             "queue (only an unload's pause takes them)");

uint16_t
tcp_echo_port(void)
{
	return echo_port;
}

void
tcp_echo_event(struct tcp_user *u)
{
	(void)u;
	tcp_kick();
}

/* Lock held. */
static int
open_listener(uint16_t port)
{
	struct tcp_pcb *l;
	int r = tcp_new(tcp_stack, &l);

	if (r != 0)
		return r;
	r = tcp_bind(l, 0, port);
	if (r == 0)
		r = tcp_listen(l, ECHO_BACKLOG);
	if (r != 0) {
		tcp_close(&l, now_ms());
		return r;
	}
	tcp_set_user(l, &listener_user);
	listener = l;
	return 0;
}

/* Lock held. */
static void
close_listener(void)
{
	if (listener == NULL)
		return;
	tcp_set_user(listener, NULL);
	tcp_close(&listener, now_ms());
}

int
tcp_echo_start(uint16_t port)
{
	uint32_t f = tcp_lock_irqsave();
	int r = -EALREADY;

	if (echo_port == 0) {
		r = open_listener(port);
		if (r == 0) {
			echo_port = port;
			served = 0;
		}
	}
	tcp_unlock_flush(f);
	return r;
}

int
tcp_echo_stop(unsigned long *n)
{
	uint32_t f = tcp_lock_irqsave();
	int r = echo_port != 0 ? 0 : -ENOENT;

	close_listener();
	echo_port = 0;
	paused = false;
	*n = served;
	tcp_unlock_flush(f);
	return r;
}

/* Lock held: give the pcb back (abort: with a RST) and forget it. */
static void
conn_end(struct echo_conn *c, bool abort)
{
	tcp_set_user(c->pcb, NULL);
	if (abort)
		tcp_abort(c->pcb, now_ms());
	tcp_close(&c->pcb, now_ms());
	list_del_init(&c->link);
	kfree(c);
}

/* Lock held: move data; false when the connection is finished. */
static bool
conn_pump(struct echo_conn *c)
{
	uint64_t now = now_ms();
	long n;

	for (;;) {
		if (c->len == 0 && !c->eof) {
			n = tcp_recv(c->pcb, c->buf, sizeof(c->buf), now);
			if (n == -EAGAIN)
				return true;
			if (n < 0) {
				conn_end(c, true);
				return false;
			}
			c->off = 0;
			c->len = (size_t)n;
			c->eof = n == 0;
		}
		if (c->len > 0) {
			n = tcp_send(c->pcb, c->buf + c->off, c->len, now);
			if (n == -EAGAIN)
				return true;
			if (n < 0) {
				conn_end(c, true);
				return false;
			}
			c->off += (size_t)n;
			c->len -= (size_t)n;
			continue;
		}
		if (c->eof) {
			served++;
			conn_end(c, false);
			return false;
		}
	}
}

/* Lock held: every connection waiting in the listener's accept queue
 * becomes one of ours (with no memory for it, it is reset); how many
 * did. */
static unsigned
accept_all(void)
{
	struct echo_conn *c;
	struct tcp_pcb *p;
	unsigned n = 0;

	ASSERT(spin_held(&tcp_lock));
	while (listener != NULL && tcp_accept(listener, &p) == 0) {
		c = kmalloc(sizeof(*c), TCP_TAG);
		if (c == NULL) {
			tcp_abort(p, now_ms());
			tcp_close(&p, now_ms());
			continue;
		}
		c->u.kind = TCP_USER_ECHO;
		c->pcb = p;
		c->off = c->len = 0;
		c->eof = false;
		tcp_set_user(p, c);
		list_add_tail(&c->link, &conns);
		n++;
	}
	return n;
}

void
tcp_echo_work(void)
{
	struct echo_conn *c, *next;
	uint32_t f = tcp_lock_irqsave();

	if (!echo_hold)
		accept_all();
	list_for_each_entry_safe(c, next, &conns, link)
		conn_pump(c);
	tcp_unlock_flush(f);
}

void
tcp_echo_pause(void)
{
	unsigned adopted = 0;
	uint32_t f = tcp_lock_irqsave();

	if (echo_port != 0 && listener != NULL) {
		/* Established connections are open ones: keep them, so
		 * that only half-open children go with the listener. */
		adopted = accept_all();
		close_listener();
		paused = true;
	}
	tcp_unlock_flush(f);
	if (adopted != 0)
		tcp_kick(); /* their data may be waiting already */
}

void
tcp_echo_unpause(void)
{
	uint32_t f = tcp_lock_irqsave();

	if (paused && echo_port != 0 && open_listener(echo_port) != 0) {
		kprintf("tcpecho: could not listen on port %u again\n",
		        echo_port);
		echo_port = 0;
	}
	paused = false;
	tcp_unlock_flush(f);
}

/* rmmod -f: reset every echo connection (the peer sees a RST). */
unsigned
tcp_echo_abort_all(void)
{
	struct echo_conn *c, *next;
	unsigned n = 0;
	uint32_t f = tcp_lock_irqsave();

	list_for_each_entry_safe(c, next, &conns, link) {
		conn_end(c, true);
		n++;
	}
	tcp_unlock_flush(f);
	return n;
}

void
tcp_echo_exit(void)
{
	tcp_echo_pause(); /* first: it may adopt connections to abort */
	tcp_echo_abort_all();
	echo_port = 0;
	paused = false;
}
