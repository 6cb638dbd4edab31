/*
 * Multiprocessor support: bringing up application processors, IPIs, and
 * the primitives built on them.  With one CPU every call here is correct
 * and cheap.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

void smp_init(void);

#endif
