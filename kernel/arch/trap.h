/*
 * Hooks into exception handling for layers above the core: the module
 * loader's use-after-unload detector adds its diagnosis to a fault report.
 */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdint.h>

struct trapframe;

/* Called during a fatal exception report, before the registers. */
typedef void (*fault_hook_fn)(const struct trapframe *tf, uint32_t cr2);
/* Hooks are called in the order they were added (at most 4). */
void trap_add_fault_hook(fault_hook_fn fn);

#endif
