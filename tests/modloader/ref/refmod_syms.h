/*
 * Addresses of the kernel symbols refmod.o needs, shared by the reference
 * link (host.mk turns each REF_SYM line into --defsym NAME=VALUE) and the
 * unit test's resolver.  One entry per line, exactly this shape.
 */
#define REF_BASE 0xd0840000
REF_SYM(printk, 0xc0101230)
REF_SYM(kmalloc, 0xc0102004)
REF_SYM(kfree, 0xc01020f8)
REF_SYM(jiffies, 0xc0345678)
