/*
 * Suite "string": memcpy, memmove and memset (kernel/lib/string.c) against a
 * byte-at-a-time reference, for every alignment of source and
 * destination, every length up to a few words and a long one, and every
 * overlap of a memmove in both directions.  memcpy and memset work in
 * blocks of 32 bytes, then words, then bytes (lengths up to 40 and 130
 * cross each step); memmove copies backwards with the string
 * instructions and the direction flag set: the bytes around the
 * destination must stay untouched and the flag must be clear again
 * afterwards (the ABI assumes it).
 */
#include <kernel/debug/ktest.h>
#include <kernel/lib/string.h>
#include <stdint.h>

#define BUF     192
#define MAXLEN  40
#define LONGLEN 130

static uint8_t src_buf[BUF], dst_buf[BUF], want[BUF];

static void
fill(uint8_t *b, uint8_t seed)
{
	for (int i = 0; i < BUF; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static bool
direction_flag_clear(void)
{
	uint32_t flags;

	__asm__ volatile("pushfl\n\tpopl %0" : "=r"(flags));
	return (flags & (1u << 10)) == 0;
}

/* The first byte where dst_buf and want differ, or -1. */
static int
first_difference(void)
{
	for (int i = 0; i < BUF; i++)
		if (dst_buf[i] != want[i])
			return i;
	return -1;
}

static void
check_copy(struct ktest *t, size_t doff, size_t soff, size_t len)
{
	int at;

	fill(src_buf, 1);
	fill(dst_buf, 100);
	fill(want, 100);
	for (size_t i = 0; i < len; i++)
		want[doff + i] = src_buf[soff + i];
	KEXPECT_TRUE(t, memcpy(dst_buf + doff, src_buf + soff, len) ==
	                    dst_buf + doff);
	at = first_difference();
	KEXPECT_MSG(t, at < 0, "memcpy dst+%zu src+%zu len %zu: byte %d", doff,
	            soff, len, at);
}

static void
memcpy_alignments(struct ktest *t)
{
	for (size_t d = 8; d < 16; d++)
		for (size_t s = 8; s < 16; s++) {
			for (size_t n = 0; n <= MAXLEN; n++)
				check_copy(t, d, s, n);
			check_copy(t, d, s, LONGLEN);
		}
	KEXPECT_TRUE(t, direction_flag_clear());
}

static void
check_set(struct ktest *t, size_t off, size_t len, int c)
{
	int at;

	fill(dst_buf, 50);
	fill(want, 50);
	for (size_t i = 0; i < len; i++)
		want[off + i] = (uint8_t)c;
	KEXPECT_TRUE(t, memset(dst_buf + off, c, len) == dst_buf + off);
	at = first_difference();
	KEXPECT_MSG(t, at < 0, "memset off %zu len %zu value %#x: byte %d", off,
	            len, c, at);
}

static void
memset_alignments(struct ktest *t)
{
	/* 0x1a5: only the low byte is stored. */
	static const int values[] = {0, 0xff, 0x5a, 0x1a5};

	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
		for (size_t off = 8; off < 16; off++) {
			for (size_t n = 0; n <= MAXLEN; n++)
				check_set(t, off, n, values[v]);
			check_set(t, off, LONGLEN, values[v]);
		}
	KEXPECT_TRUE(t, direction_flag_clear());
}

/* memmove within dst_buf from offset s to offset d. */
static void
check_move(struct ktest *t, size_t d, size_t s, size_t len)
{
	uint8_t orig[BUF];
	int at;

	fill(dst_buf, 9);
	fill(orig, 9);
	fill(want, 9);
	for (size_t i = 0; i < len; i++)
		want[d + i] = orig[s + i];
	KEXPECT_TRUE(t, memmove(dst_buf + d, dst_buf + s, len) == dst_buf + d);
	at = first_difference();
	KEXPECT_MSG(t, at < 0, "memmove dst+%zu src+%zu len %zu: byte %d", d, s,
	            len, at);
}

static void
memmove_overlaps(struct ktest *t)
{
	/* Every distance from -9 to +9 bytes (overlapping both ways, and
	 * the same buffer), at every alignment of the source. */
	for (size_t s = 16; s < 24; s++)
		for (size_t d = s - 9; d <= s + 9; d++) {
			for (size_t n = 0; n <= MAXLEN; n++)
				check_move(t, d, s, n);
			check_move(t, d, s, LONGLEN);
		}
	KEXPECT_TRUE(t, direction_flag_clear());
}

KTEST_SUITE(string, KTEST_CASE(memcpy_alignments),
            KTEST_CASE(memset_alignments), KTEST_CASE(memmove_overlaps));
