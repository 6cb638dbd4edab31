/*
 * refmode=legacy catches its own bug when asked to.  The 2.5.68
 * behaviour (dev.c) lets rmmod finish while a device is still referenced,
 * so the last dev_put calls a destructor in an unloaded module.  By
 * default that call is made and the use-after-unload detector reports
 * the fault and panics (net-refmode-legacy.scn).  With the sysctl
 * legacy_catch=1 (the lifetime stress sets it, so one run can see the
 * bug many times) the call is checked first: a destructor whose module is
 * gone is reported the same way, counted, and not called; the kernel
 * frees the device itself, which is all every tree driver's destructor
 * does, so nothing leaks.
 */
#include <net/core/netdevice.h>
#include "net/core/netdev_internal.h"
#include <kernel/bootparam.h>
#include <kernel/debug/ksyms.h>
#include <kernel/arch/layout.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/locking/rcu.h>

int legacy_catch;
BOOTPARAM_BOOL(legacy_catch, legacy_catch,
               "refmode=legacy: report and count a destructor call into an "
               "unloaded module instead of making it",
               1);
volatile unsigned legacy_caught;

bool
netdev_destructor_gone(struct net_device *dev)
{
	uintptr_t fn = (uintptr_t)dev->destructor;
	char sym[96];
	bool gone;

	if (!legacy_catch || fn < MODULE_BASE || fn >= MODULE_END)
		return false;
	rcu_read_lock();
	gone = module_by_addr(fn) == NULL;
	rcu_read_unlock();
	if (!gone)
		return false;
	ksym_format(fn, sym, sizeof(sym));
	pr_err("use-after-unload: caught: %s: destructor %s not called "
	       "(refmode=legacy, legacy_catch=1); %u caught since boot\n",
	       dev->name, sym,
	       __atomic_add_fetch(&legacy_caught, 1, __ATOMIC_SEQ_CST));
	free_netdev(dev);
	return true;
}
