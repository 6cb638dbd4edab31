/*
 * A TFTP client (RFC 1350, octet mode, read requests only) on the
 * in-kernel socket API, for fetching modules from QEMU's built-in server
 * (`-netdev user,tftp=DIR`, at 10.0.2.2).
 *
 * Lock-step: RRQ to port 69, then each DATA block from the server's port
 * (its TID, fixed by the first reply) is ACKed; a block shorter than 512
 * bytes ends the transfer.  A timeout (1 s) resends the last packet, at
 * most TFTP_TRIES times; a duplicate block is ACKed again; packets from
 * another address or port are ignored (another TID gets ERROR 5, RFC
 * 1350 sec. 4); an ERROR ends it (code 1 -> ENOENT).  Ctrl-C aborts.
 * Files are limited to TFTP_MAX bytes.
 */
#include "net/ipv4/inet.h"
#include "net/ipv4/ipv4_hdr.h"
#include <kernel/lib/errno.h>
#include <kernel/mm/kmalloc.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>

#define TFTP_PORT  69
#define TFTP_BLOCK 512
#define TFTP_TRIES 5
#define TFTP_MAX   (4u << 20)
#define TFTP_TAG   "tftp"

enum { OP_RRQ = 1, OP_DATA = 3, OP_ACK = 4, OP_ERROR = 5 };

struct tftp_xfer {
	struct socket *sk;
	struct sockaddr_in4 server; /* port 69 until the first DATA */
	bool have_tid;
	uint8_t pkt[TFTP_BLOCK + 4], last[TFTP_BLOCK + 4];
	size_t last_len;
	uint8_t *buf;
	size_t len, cap;
	uint16_t block; /* expected next */
};

static int
send_last(struct tftp_xfer *x)
{
	int r = sock_sendto(x->sk, x->last, x->last_len, &x->server);
	return r < 0 ? r : 0;
}

static int
send_ack(struct tftp_xfer *x, uint16_t block)
{
	put_be16(x->last, OP_ACK);
	put_be16(x->last + 2, block);
	x->last_len = 4;
	return send_last(x);
}

static void
send_error_tid(struct tftp_xfer *x, const struct sockaddr_in4 *to)
{
	static const char m[] = "\0\5\0\5unknown transfer ID";

	sock_sendto(x->sk, m, sizeof(m), to);
}

static int
append(struct tftp_xfer *x, const uint8_t *p, size_t n)
{
	if (x->len + n > TFTP_MAX)
		return -EFBIG;
	if (x->len + n > x->cap) {
		size_t cap = x->cap == 0 ? 16384 : x->cap * 2;
		uint8_t *b = kmalloc(cap, TFTP_TAG);
		if (b == NULL)
			return -ENOMEM;
		memcpy(b, x->buf, x->len);
		kfree(x->buf);
		x->buf = b;
		x->cap = cap;
	}
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	return 0;
}

/* One received packet: 1 = transfer complete, 0 = go on, <0 = error. */
static int
tftp_input(struct tftp_xfer *x, size_t n, const struct sockaddr_in4 *from,
           char *msg, size_t size)
{
	uint16_t op, block;
	int r;

	if (from->addr != x->server.addr || n < 4)
		return 0;
	if (x->have_tid && from->port != x->server.port) {
		send_error_tid(x, from);
		return 0;
	}
	op = get_be16(x->pkt);
	if (op == OP_ERROR) {
		uint16_t code = get_be16(x->pkt + 2);
		x->pkt[n < sizeof(x->pkt) ? n : sizeof(x->pkt) - 1] = '\0';
		snprintf(msg, size, "server error %u: %.60s", code,
		         (const char *)x->pkt + 4);
		return code == 1 ? -ENOENT : -EIO;
	}
	if (op != OP_DATA)
		return 0;
	if (!x->have_tid) {
		x->server.port = from->port;
		x->have_tid = true;
	}
	block = get_be16(x->pkt + 2);
	if (block == (uint16_t)(x->block - 1))
		return send_ack(x, block); /* our ACK was lost */
	if (block != x->block)
		return 0;
	r = append(x, x->pkt + 4, n - 4);
	if (r != 0) {
		snprintf(msg, size, "file larger than %u bytes", TFTP_MAX);
		return r;
	}
	r = send_ack(x, block);
	if (r != 0)
		return r;
	x->block++;
	return n - 4 < TFTP_BLOCK ? 1 : 0;
}

static int
tftp_run(struct tftp_xfer *x, const char *name, char *msg, size_t size)
{
	size_t nlen = strlen(name);
	int tries = 0, r;

	if (nlen == 0 || nlen > 200) {
		snprintf(msg, size, "bad file name");
		return -EINVAL;
	}
	put_be16(x->last, OP_RRQ);
	memcpy(x->last + 2, name, nlen + 1);
	memcpy(x->last + 3 + nlen, "octet", 6);
	x->last_len = 2 + nlen + 1 + 6;
	r = send_last(x);
	while (r == 0) {
		struct sockaddr_in4 from;
		int n = sock_recvfrom(x->sk, x->pkt, sizeof(x->pkt), &from, 0);
		if (n == -ETIMEDOUT) {
			if (++tries == TFTP_TRIES) {
				snprintf(msg, size,
				         "no answer from the server"
				         " (block %u)",
				         x->block);
				return -ETIMEDOUT;
			}
			r = send_last(x);
			continue;
		}
		if (n < 0) {
			snprintf(msg, size, "%s",
			         n == -EINTR ? "interrupted"
			                     : "receive failed");
			return n;
		}
		tries = 0;
		r = tftp_input(x, (size_t)n, &from, msg, size);
		if (r == 1)
			return 0;
	}
	if (msg[0] == '\0')
		snprintf(msg, size, "cannot send to the server");
	return r;
}

int
tftp_get(uint32_t server, const char *name, uint8_t **data, size_t *len,
         char *msg, size_t size)
{
	struct tftp_xfer *x = kzalloc(sizeof(*x), TFTP_TAG);
	int r;

	msg[0] = '\0';
	if (x == NULL)
		return -ENOMEM;
	x->server.addr = server;
	x->server.port = TFTP_PORT;
	x->block = 1;
	r = sock_create(SOCK_DGRAM, IP_PROTO_UDP, &x->sk);
	if (r != 0) {
		snprintf(msg, size, "cannot create a UDP socket");
		kfree(x);
		return r;
	}
	x->sk->rcvtimeo_ms = 1000;
	r = tftp_run(x, name, msg, size);
	sock_close(x->sk);
	if (r == 0) {
		*data = x->buf;
		*len = x->len;
	} else {
		kfree(x->buf);
	}
	kfree(x);
	return r;
}
