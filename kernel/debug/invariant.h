/*
 * Invariant checkers that run where the data lives (lwIP's
 * tcp_pcbs_sane, run in the kernel).  A subsystem declares a checker
 * next to its data with INVARIANT() (collected by the linker), a module
 * registers one at run time with invariant_register() and removes it in
 * its exit.  A checker takes its subsystem's locks, must not sleep for
 * long, and returns NULL when everything holds or a short description of
 * the first broken rule (in buf or a string constant).
 *
 * invariants_check() runs them all (`stress check`, the lifetime
 * stress, periodically and at the end).  With the sysctl
 * debug_invariants=1 subsystems also check their own tables on every
 * change where that is cheap (tcp.ko: tcp_pcbs_sane on every unlock),
 * and panic at the first broken rule, where the culprit still is on the
 * stack.
 */
#ifndef KERNEL_INVARIANT_H
#define KERNEL_INVARIANT_H

#include <stddef.h>
#include <kernel/lib/list.h>
#include <kernel/module.h>

#define INVARIANT_WHY_MAX 160

struct invariant {
	const char *name;
	const char *(*check)(char *buf, size_t size);
	struct list_head link; /* run-time registration only */
	struct module *owner;  /* set by invariant_register */
};

#define INVARIANT(n, fn)                                                       \
	static struct invariant __invariant_##n                                \
	    __attribute__((section(".invariants"), used, aligned(4))) = {      \
	        #n, fn, {0, 0}, NULL}

void __invariant_register(struct invariant *inv, struct module *owner);
#define invariant_register(inv) __invariant_register((inv), THIS_MODULE)
void invariant_unregister(struct invariant *inv);

/* Run every checker; print "invariant: NAME: WHY (WHEN)" for each that
 * fails; return how many failed. */
int invariants_check(const char *when);

extern int debug_invariants;

#endif
