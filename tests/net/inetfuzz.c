/*
 * inetfuzz: hostile frames for the guest's IPv4 stack over QEMU's dgram
 * backend (profile `dgram`), where every Ethernet frame is one UDP
 * datagram between QEMU's port and ours.  We play 10.0.2.2 with MAC
 * 02:00:00:00:00:99; the guest is 10.0.2.15 with MAC GUESTMAC.
 *
 *   inetfuzz fuzz QEMUPORT PEERPORT GUESTMAC COUNT SEED
 *       COUNT frames, each a valid ARP request, ICMP echo request or UDP
 *       datagram (to port 7 or 9) with random mutations: flipped bytes,
 *       truncation, trailing garbage, lying length fields, and, half of
 *       the time, headers re-checksummed so the damage reaches the
 *       deeper layers.  Deterministic for a SEED.
 *   inetfuzz ping QEMUPORT PEERPORT GUESTMAC MS
 *       send echo requests (answering the guest's ARP for 10.0.2.2) until
 *       a correct echo reply comes back: exit 0, or 1 after MS ms.
 *   inetfuzz unreach QEMUPORT PEERPORT GUESTMAC MS
 *       knock on closed UDP port 9 until a port unreachable comes back.
 *   inetfuzz flood QEMUPORT PEERPORT GUESTMAC COUNT WANT
 *       COUNT datagrams to closed port 9 at once, then count the port
 *       unreachables for 3 s: exit 0 if exactly WANT came back (the
 *       guest's ICMP rate limit).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const uint8_t peer_mac[6] = {2, 0, 0, 0, 0, 0x99};
static uint8_t guest_mac[6];
static const uint8_t peer_ip[4] = {10, 0, 2, 2}, guest_ip[4] = {10, 0, 2, 15};
static int fd;
static struct sockaddr_in qemu_sa;
static uint32_t rng = 1;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint16_t
csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static size_t
eth(uint8_t *f, const uint8_t *dst, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, peer_mac, 6);
	put16(f + 12, type);
	return 14;
}

static void
ip_csum(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, csum(ip, 20, 0));
}

static size_t
ip(uint8_t *f, uint8_t proto, size_t payload)
{
	uint8_t *h = f + 14;

	eth(f, guest_mac, 0x0800);
	memset(h, 0, 20);
	h[0] = 0x45;
	put16(h + 2, (uint16_t)(20 + payload));
	put16(h + 4, (uint16_t)rnd());
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, peer_ip, 4);
	memcpy(h + 16, guest_ip, 4);
	ip_csum(h);
	return 34 + payload;
}

static void
l4_csum(uint8_t *f)
{
	uint8_t *h = f + 14, *l4 = f + 34;
	size_t len = (size_t)(h[2] << 8 | h[3]) - 20;
	uint32_t pseudo = 0;

	if (len > 1500)
		return;
	if (h[9] == 1) {
		put16(l4 + 2, 0);
		put16(l4 + 2, csum(l4, len, 0));
		return;
	}
	for (int i = 12; i < 20; i += 2)
		pseudo += (uint32_t)(h[i] << 8 | h[i + 1]);
	pseudo += 17 + (uint32_t)len;
	put16(l4 + 6, 0);
	put16(l4 + 6, csum(l4, len, pseudo));
}

static size_t
icmp_echo(uint8_t *f, uint16_t seq, size_t n)
{
	uint8_t *m = f + 34;
	size_t len = ip(f, 1, 8 + n);

	m[0] = 8;
	m[1] = 0;
	put16(m + 4, 0x4655);
	put16(m + 6, seq);
	for (size_t i = 0; i < n; i++)
		m[8 + i] = (uint8_t)i;
	l4_csum(f);
	return len;
}

static size_t template(uint8_t *f)
{
	switch (rnd() % 4) {
	case 0: {
		static const uint8_t bc[6] = {255, 255, 255, 255, 255, 255};
		uint8_t *a = f + 14;
		eth(f, bc, 0x0806);
		put16(a, 1);
		put16(a + 2, 0x0800);
		a[4] = 6;
		a[5] = 4;
		put16(a + 6, 1);
		memcpy(a + 8, peer_mac, 6);
		memcpy(a + 14, peer_ip, 4);
		memset(a + 18, 0, 6);
		memcpy(a + 24, guest_ip, 4);
		return 42;
	}
	case 1:
		return icmp_echo(f, (uint16_t)rnd(), rnd() % 64);
	default: {
		size_t n = rnd() % 64;
		size_t len = ip(f, 17, 8 + n);
		uint8_t *u = f + 34;
		put16(u, 40000);
		put16(u + 2, rnd() % 3 == 0 ? 9 : 7);
		put16(u + 4, (uint16_t)(8 + n));
		for (size_t i = 0; i < n; i++)
			u[8 + i] = (uint8_t)rnd();
		l4_csum(f);
		return len;
	}
	}
}

static size_t
mutate(uint8_t *f, size_t len)
{
	int n = (int)(rnd() % 4);

	for (int k = 0; k < n; k++) {
		switch (rnd() % 5) {
		case 0: /* flip a header byte */
			if (len != 0)
				f[rnd() % (len < 64 ? len : 64)] ^=
				    (uint8_t)(1 + rnd() % 255);
			break;
		case 1: /* truncate (never to 0 bytes: QEMU's dgram backend
		         * takes an empty datagram for end of stream and stops
		         * reading) */
			len = 1 + rnd() % len;
			break;
		case 2: /* trailing garbage */
			for (int i = rnd() % 64; i > 0 && len < 1514; i--)
				f[len++] = (uint8_t)rnd();
			break;
		case 3: /* lying IP total length */
			if (len >= 18)
				put16(f + 16, (uint16_t)rnd());
			break;
		case 4: /* lying UDP length */
			if (len >= 40)
				put16(f + 38, (uint16_t)(rnd() % 128));
			break;
		}
	}
	if (len >= 34 && f[12] == 8 && f[13] == 0 && rnd() % 2 == 0) {
		if (rnd() % 2 == 0 && len >= 42)
			l4_csum(f);
		ip_csum(f + 14);
	}
	return len;
}

static void
xmit(const uint8_t *f, size_t len)
{
	if (sendto(fd, f, len, 0, (struct sockaddr *)&qemu_sa,
	           sizeof(qemu_sa)) < 0)
		perror("inetfuzz: sendto");
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Answer ARP for 10.0.2.2; 1 when f is the echo reply we want. */
static int
handle(const uint8_t *f, size_t len)
{
	uint8_t out[64];

	if (len >= 42 && f[12] == 8 && f[13] == 6 && f[21] == 1 &&
	    memcmp(f + 38, peer_ip, 4) == 0) {
		memset(out, 0, sizeof(out));
		eth(out, f + 6, 0x0806);
		memcpy(out + 14, f + 14, 8);
		put16(out + 20, 2);
		memcpy(out + 22, peer_mac, 6);
		memcpy(out + 28, peer_ip, 4);
		memcpy(out + 32, f + 22, 10);
		xmit(out, 60);
		return 0;
	}
	return len >= 42 + 16 && f[12] == 8 && f[13] == 0 && f[23] == 1 &&
	       f[34] == 0 && f[38] == 0x46 && f[39] == 0x55 &&
	       memcmp(f + 26, guest_ip, 4) == 0;
}

static int
ping(unsigned ms)
{
	uint64_t end = now_ms() + ms, next = 0;
	uint8_t f[2048];
	uint16_t seq = 0;

	while (now_ms() < end) {
		struct pollfd p = {fd, POLLIN, 0};
		if (now_ms() >= next) {
			size_t n = icmp_echo(f, ++seq, 16);
			xmit(f, n);
			next = now_ms() + 200;
		}
		if (poll(&p, 1, 50) > 0) {
			ssize_t n = recv(fd, f, sizeof(f), 0);
			if (n > 0 && handle(f, (size_t)n)) {
				printf(
				    "inetfuzz: echo reply after %u requests\n",
				    seq);
				return 0;
			}
		}
	}
	printf("inetfuzz: no echo reply in %u ms\n", ms);
	return 1;
}

/* A UDP datagram from 10.0.2.2:40000 to the guest's port dport. */
static size_t
udp_to(uint8_t *f, uint16_t dport)
{
	size_t len = ip(f, 17, 8 + 4);
	uint8_t *u = f + 34;

	put16(u, 40000);
	put16(u + 2, dport);
	put16(u + 4, 12);
	memcpy(u + 8, "knck", 4);
	l4_csum(f);
	return len;
}

/* 1 when f is an ICMP port unreachable (RFC 792 type 3 code 3) from the
 * guest that quotes our datagram to dport: IP header, then the first 8
 * bytes of the UDP header. */
static int
is_port_unreach(const uint8_t *f, size_t len, uint16_t dport)
{
	const uint8_t *q = f + 34 + 8; /* the quoted IP header */

	return len >= 34 + 8 + 28 && f[12] == 8 && f[13] == 0 &&
	       f[14] == 0x45 && f[23] == 1 &&
	       memcmp(f + 26, guest_ip, 4) == 0 && f[34] == 3 && f[35] == 3 &&
	       q[0] == 0x45 && q[9] == 17 && memcmp(q + 16, guest_ip, 4) == 0 &&
	       (q[22] << 8 | q[23]) == dport;
}

/* Knock on a closed UDP port until the guest answers port unreachable. */
static int
unreach(unsigned ms, uint16_t dport)
{
	uint64_t end = now_ms() + ms, next = 0;
	uint8_t f[2048];
	unsigned sent = 0;

	while (now_ms() < end) {
		struct pollfd p = {fd, POLLIN, 0};
		if (now_ms() >= next) {
			xmit(f, udp_to(f, dport));
			sent++;
			next = now_ms() + 200;
		}
		if (poll(&p, 1, 50) > 0) {
			ssize_t n = recv(fd, f, sizeof(f), 0);
			if (n > 0 && handle(f, (size_t)n) == 0 &&
			    is_port_unreach(f, (size_t)n, dport)) {
				printf("inetfuzz: port %u unreachable after %u "
				       "datagrams\n",
				       dport, sent);
				return 0;
			}
		}
	}
	printf("inetfuzz: no port unreachable for %u in %u ms\n", dport, ms);
	return 1;
}

static int
flood(unsigned count, unsigned want)
{
	uint64_t end;
	uint8_t f[2048];
	unsigned got = 0;

	for (unsigned i = 0; i < count; i++) {
		xmit(f, udp_to(f, 9));
		if (i % 8 == 7)
			usleep(2000); /* let the guest's RX ring drain */
	}
	end = now_ms() + 3000;
	while (now_ms() < end) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 50) > 0) {
			ssize_t n = recv(fd, f, sizeof(f), 0);
			if (n > 0 && handle(f, (size_t)n) == 0 &&
			    is_port_unreach(f, (size_t)n, 9))
				got++;
		}
	}
	printf("inetfuzz: %u datagrams to port 9, %u port unreachables "
	       "(want %u)\n",
	       count, got, want);
	return got == want ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in me = {0};
	unsigned m[6];

	if (argc != 6 && argc != 7) {
		fprintf(stderr,
		        "usage: inetfuzz fuzz QPORT PPORT MAC COUNT SEED"
		        " | inetfuzz ping|unreach QPORT PPORT MAC MS"
		        " | inetfuzz flood QPORT PPORT MAC COUNT WANT\n");
		return 2;
	}
	if (sscanf(argv[4], "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
	           &m[4], &m[5]) != 6)
		return 2;
	for (int i = 0; i < 6; i++)
		guest_mac[i] = (uint8_t)m[i];
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	me.sin_family = AF_INET;
	me.sin_port = htons((uint16_t)atoi(argv[3]));
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	qemu_sa = me;
	qemu_sa.sin_port = htons((uint16_t)atoi(argv[2]));
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0) {
		perror("inetfuzz: bind");
		return 2;
	}
	if (strcmp(argv[1], "ping") == 0 && argc == 6)
		return ping((unsigned)atoi(argv[5]));
	if (strcmp(argv[1], "unreach") == 0 && argc == 6)
		return unreach((unsigned)atoi(argv[5]), 9);
	if (strcmp(argv[1], "flood") == 0 && argc == 7)
		return flood((unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]));
	if (strcmp(argv[1], "fuzz") != 0 || argc != 7)
		return 2;
	rng = (uint32_t)strtoul(argv[6], NULL, 0) * 2654435761u + 1;
	long count = atol(argv[5]);
	for (long i = 0; i < count; i++) {
		uint8_t f[2048];
		size_t len = mutate(f, template(f));
		xmit(f, len);
		if (i % 8 == 7)
			usleep(2000); /* let the guest's RX ring drain */
		uint8_t junk[2048];
		while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
	}
	printf("inetfuzz: %ld frames sent\n", count);
	return 0;
}
