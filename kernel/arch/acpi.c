/*
 * Minimal ACPI table walk: RSDP -> RSDT -> MADT and FADT (ACPI 6.4
 * sections 5.2.5, 5.2.7, 5.2.12, 5.2.9).  Firmware tables are input like any
 * other: every signature, checksum and length is checked before a field is
 * used, and a table outside the direct map is not followed.
 */
#include <kernel/arch/acpi.h>
#include <kernel/mm/page_alloc.h>
#include <kernel/console/printk.h>
#include <kernel/lib/string.h>
#include <kernel/lib/errno.h>

struct madt_info madt;

struct sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem[6];
	char oem_table[8];
	uint32_t oem_revision;
	uint32_t creator, creator_revision;
} __attribute__((packed));

static int
sum_ok(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	for (uint32_t i = 0; i < len; i++)
		s += b[i];
	return s == 0;
}

static int
phys_ok(uint32_t pa, uint32_t len)
{
	return pa < DIRECT_MAP_SIZE && len <= DIRECT_MAP_SIZE - pa;
}

static uint32_t
find_rsdp_in(uint32_t start, uint32_t len)
{
	for (uint32_t a = start; a + 20 <= start + len; a += 16) {
		const char *p = P2V(a);
		if (memcmp(p, "RSD PTR ", 8) == 0 && sum_ok(p, 20))
			return a;
	}
	return 0;
}

/* A table header at pa that is in RAM, long enough and sums to zero. */
static const struct sdt_header *
table_at(uint32_t pa, const char *sig)
{
	const struct sdt_header *h;

	if (!phys_ok(pa, sizeof(*h)))
		return NULL;
	h = P2V(pa);
	if (memcmp(h->sig, sig, 4) != 0 || h->length < sizeof(*h) ||
	    h->length > (1u << 20) || !phys_ok(pa, h->length) ||
	    !sum_ok(h, h->length))
		return NULL;
	return h;
}

static void
parse_madt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h + sizeof(*h) + 8;
	const uint8_t *end = (const uint8_t *)h + h->length;

	if (h->length < sizeof(*h) + 8)
		return;
	memcpy(&madt.lapic_phys, (const uint8_t *)h + sizeof(*h), 4);
	for (int i = 0; i < 16; i++)
		madt.isa[i] = (struct isa_override){(uint32_t)i, 0};
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		uint8_t type = p[0], len = p[1];
		if (type == 0 && len >= 8) { /* processor local APIC */
			uint32_t flags;
			memcpy(&flags, p + 4, 4);
			if (flags & 1) {
				if (madt.ncpus < MAX_CPUS)
					madt.apic_ids[madt.ncpus++] = p[3];
				else
					madt.cpus_ignored++;
			}
		} else if (type == 1 && len >= 12 && madt.ioapic_phys == 0) {
			memcpy(&madt.ioapic_phys, p + 4, 4);
			memcpy(&madt.ioapic_gsi_base, p + 8, 4);
		} else if (type == 2 && len >= 10 && p[2] == 0 && p[3] < 16) {
			struct isa_override *o = &madt.isa[p[3]];
			memcpy(&o->gsi, p + 4, 4);
			memcpy(&o->flags, p + 8, 2);
		}
		p += len;
	}
	madt.found = madt.ncpus > 0 && madt.lapic_phys != 0;
}

/* The first RSDT entry with signature sig, or NULL (reason printed if
 * quiet is false). */
static const struct sdt_header *
find_table(const char *sig, bool quiet)
{
	uint32_t rsdp, ebda = (uint32_t)(*(uint16_t *)P2V(0x40e)) << 4;
	const struct sdt_header *rsdt;
	uint32_t rsdt_pa;

	rsdp = ebda >= 0x80000 && ebda < 0xa0000 ? find_rsdp_in(ebda, 1024) : 0;
	if (rsdp == 0)
		rsdp = find_rsdp_in(0xe0000, 0x20000);
	if (rsdp == 0) {
		if (!quiet)
			pr_warn("acpi: no RSDP found\n");
		return NULL;
	}
	memcpy(&rsdt_pa, (const uint8_t *)P2V(rsdp) + 16, 4);
	rsdt = table_at(rsdt_pa, "RSDT");
	if (rsdt == NULL) {
		if (!quiet)
			pr_warn("acpi: RSDT at %08x missing or corrupt\n",
			        rsdt_pa);
		return NULL;
	}
	for (uint32_t off = sizeof(*rsdt); off + 4 <= rsdt->length; off += 4) {
		uint32_t pa;
		const struct sdt_header *t;
		memcpy(&pa, (const uint8_t *)rsdt + off, 4);
		t = table_at(pa, sig);
		if (t != NULL)
			return t;
	}
	return NULL;
}

int
acpi_init(void)
{
	const struct sdt_header *t = find_table("APIC", false);

	if (t != NULL)
		parse_madt(t);
	if (!madt.found) {
		pr_warn("acpi: no usable MADT\n");
		return -ENOENT;
	}
	if (madt.cpus_ignored > 0)
		pr_warn("acpi: %d CPU(s) beyond the %d supported ignored\n",
		        madt.cpus_ignored, MAX_CPUS);
	return 0;
}

/* FADT fields (ACPI 6.4 section 5.2.9, table 5.9): PM_TMR_BLK at byte 76,
 * PM_TMR_LEN at 91 (4 when there is a timer), Flags at 112 with
 * TMR_VAL_EXT (bit 8): the counter has 32 bits instead of 24. */
#define FADT_PM_TMR_BLK  76
#define FADT_PM_TMR_LEN  91
#define FADT_FLAGS       112
#define FADT_TMR_VAL_EXT (1u << 8)

int
acpi_pm_timer(uint16_t *port, int *bits)
{
	const struct sdt_header *f = find_table("FACP", true);
	uint32_t blk, flags;

	if (f == NULL || f->length < FADT_FLAGS + 4)
		return -ENOENT;
	memcpy(&blk, (const uint8_t *)f + FADT_PM_TMR_BLK, 4);
	memcpy(&flags, (const uint8_t *)f + FADT_FLAGS, 4);
	/* An I/O port block; 0 means the platform has no PM timer. */
	if (blk == 0 || blk > 0xfffc ||
	    ((const uint8_t *)f)[FADT_PM_TMR_LEN] != 4)
		return -ENOENT;
	*port = (uint16_t)blk;
	*bits = flags & FADT_TMR_VAL_EXT ? 32 : 24;
	return 0;
}
