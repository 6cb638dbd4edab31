/*
 * Per-CPU data and segmentation.  modref runs only in ring 0 with flat
 * segments; the one use of segmentation is %gs, whose base on each CPU is
 * that CPU's struct cpu (see cpu.h).
 */
#include <kernel/arch/cpu.h>
#include <kernel/sched/sched.h>

struct cpu cpus[MAX_CPUS];
int nr_cpus = 1;

struct gdt_entry {
	uint16_t limit_lo;
	uint16_t base_lo;
	uint8_t base_mid;
	uint8_t access;
	uint8_t gran;
	uint8_t base_hi;
} __attribute__((packed));

#define GDT_CODE   1
#define GDT_DATA   2
#define GDT_PERCPU 3 /* one %gs descriptor per CPU from here */
static struct gdt_entry gdt[GDT_PERCPU + MAX_CPUS];

static void
gdt_set(int i, uint32_t base, uint32_t limit, uint8_t access, uint8_t gran)
{
	gdt[i].limit_lo = limit & 0xffff;
	gdt[i].base_lo = base & 0xffff;
	gdt[i].base_mid = (base >> 16) & 0xff;
	gdt[i].access = access;
	gdt[i].gran = (uint8_t)((gran & 0xf0) | ((limit >> 16) & 0x0f));
	gdt[i].base_hi = (base >> 24) & 0xff;
}

void
cpu_init_segments(int id)
{
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) d = {sizeof(gdt) - 1, (uint32_t)gdt};
	struct cpu *c = &cpus[id];

	if (id == 0) {
		gdt_set(GDT_CODE, 0, 0xfffff, 0x9a, 0xc0); /* ring 0 code */
		gdt_set(GDT_DATA, 0, 0xfffff, 0x92, 0xc0); /* ring 0 data */
	}
	gdt_set(GDT_PERCPU + id, (uint32_t)c, sizeof(*c) - 1, 0x92, 0x40);
	c->self = c;
	c->id = id;
	__asm__ volatile("lgdt %0\n\t"
	                 "ljmp $0x08, $1f\n"
	                 "1:\n\t"
	                 "movw $0x10, %%ax\n\t"
	                 "movw %%ax, %%ds\n\t"
	                 "movw %%ax, %%es\n\t"
	                 "movw %%ax, %%ss\n\t"
	                 "movw %%ax, %%fs\n\t"
	                 "movw %1, %%ax\n\t"
	                 "movw %%ax, %%gs\n\t"
	                 :
	                 : "m"(d), "r"((uint16_t)((GDT_PERCPU + id) * 8))
	                 : "eax", "memory");
}
