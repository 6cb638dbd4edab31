/*
 * KTAP suite "pci_caps": the one capability walk (drivers/pci.c) over a
 * fake config space, with the lists a broken or hostile device can show.
 *
 *   finds_each_of_an_id   every capability with the id, in list order
 *   no_list_no_walk       STATUS without CAP_LIST: nothing, whatever the
 *                         pointer says
 *   loop_ends             a list that points back at itself ends after
 *                         PCI_CAP_TTL entries, also across calls
 *   header_pointer_ends   a pointer into the header (< 0x40) ends the
 *                         list; reserved low bits are ignored
 */
#include <kernel/debug/ktest.h>
#include <kernel/lib/string.h>
#include <drivers/pci.h>

static uint8_t cfg[256];

static uint8_t
fake_read8(void *ctx, unsigned off)
{
	return ((uint8_t *)ctx)[off & 0xff];
}

/* A capability with id at off whose next pointer is next. */
static void
cap(unsigned off, uint8_t id, uint8_t next)
{
	cfg[off] = id;
	cfg[off + 1] = next;
}

static void
list_start(uint8_t first)
{
	memset(cfg, 0, sizeof(cfg));
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = first;
}

static void
finds_each_of_an_id(struct ktest *t)
{
	int ttl = PCI_CAP_TTL;
	unsigned off;

	list_start(0x40);
	cap(0x40, 0x09, 0x50);
	cap(0x50, 0x05, 0x60);
	cap(0x60, 0x09, 0x00);
	off = pci_cap_walk(fake_read8, cfg, 0, 0x09, &ttl);
	KEXPECT_EQ(t, off, 0x40);
	off = pci_cap_walk(fake_read8, cfg, off, 0x09, &ttl);
	KEXPECT_EQ(t, off, 0x60);
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, off, 0x09, &ttl), 0);
	ttl = PCI_CAP_TTL;
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x05, &ttl), 0x50);
	ttl = PCI_CAP_TTL;
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x10, &ttl), 0);
}

static void
no_list_no_walk(struct ktest *t)
{
	int ttl = PCI_CAP_TTL;

	list_start(0x40);
	cap(0x40, 0x09, 0x00);
	cfg[PCI_STATUS] = 0;
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x09, &ttl), 0);
}

static void
loop_ends(struct ktest *t)
{
	int ttl = PCI_CAP_TTL, found = 0;
	unsigned off;

	/* Two entries pointing at each other, neither the id asked. */
	list_start(0x40);
	cap(0x40, 0x01, 0x80);
	cap(0x80, 0x05, 0x40);
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x09, &ttl), 0);
	KEXPECT_EQ(t, ttl, 0);
	/* One entry of the id asked, pointing at itself: a caller looping
	 * over every match still stops. */
	list_start(0x40);
	cap(0x40, 0x09, 0x40);
	ttl = PCI_CAP_TTL;
	for (off = pci_cap_walk(fake_read8, cfg, 0, 0x09, &ttl); off != 0;
	     off = pci_cap_walk(fake_read8, cfg, off, 0x09, &ttl))
		found++;
	KEXPECT_EQ(t, found, PCI_CAP_TTL);
}

static void
header_pointer_ends(struct ktest *t)
{
	int ttl = PCI_CAP_TTL;

	list_start(0x43); /* reserved low bits: 0x40 */
	cap(0x40, 0x01, 0x3c);
	cap(0x3c, 0x09, 0x00); /* inside the header: never read as one */
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x01, &ttl), 0x40);
	ttl = PCI_CAP_TTL;
	KEXPECT_EQ(t, pci_cap_walk(fake_read8, cfg, 0, 0x09, &ttl), 0);
}

KTEST_SUITE(pci_caps, KTEST_CASE(finds_each_of_an_id),
            KTEST_CASE(no_list_no_walk), KTEST_CASE(loop_ends),
            KTEST_CASE(header_pointer_ends));
