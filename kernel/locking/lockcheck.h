/*
 * Lock legends the compiler checks: clang's thread-safety analysis
 * (-Wthread-safety), behind macros that are nothing for gcc, which
 * builds the kernel.  `make lint` compiles every kernel source with
 * clang and MODREF_LOCKCHECK defined, analysis only (docs/design.md).
 *
 *   CAPABILITY("spinlock")  the type is a lock (spinlock_t, mutex)
 *   GUARDED_BY(l)           the field is read and written with l held
 *   REQUIRES(l)             the function is called with l held
 *   EXCLUDES(l)             ... and without it (it takes l itself)
 *   ACQUIRE(l) / RELEASE(l) the function takes / drops l
 *   TRY_ACQUIRE(r, l)       takes l when it returns r
 *   ASSERT_CAPABILITY(l)    the function checks (panics unless) l is held
 *   NO_LOCKCHECK            a function whose locking the analysis cannot
 *                           follow (a lock handed between functions);
 *                           say why beside it
 *
 * A field's legend, where no lock guards it, is a comment: immutable
 * (set before the object is published), atomic (the __atomic builtins
 * or kernel/locking/refcount.h), RCU (readers under rcu_read_lock, writers under
 * the lock named).
 */
#ifndef KERNEL_LOCKCHECK_H
#define KERNEL_LOCKCHECK_H

#if defined(__clang__) && defined(MODREF_LOCKCHECK)
#define LOCKCHECK_ATTR(x) __attribute__((x))
#else
#define LOCKCHECK_ATTR(x)
#endif

#define CAPABILITY(x)        LOCKCHECK_ATTR(capability(x))
#define GUARDED_BY(x)        LOCKCHECK_ATTR(guarded_by(x))
#define PT_GUARDED_BY(x)     LOCKCHECK_ATTR(pt_guarded_by(x))
#define REQUIRES(...)        LOCKCHECK_ATTR(requires_capability(__VA_ARGS__))
#define EXCLUDES(...)        LOCKCHECK_ATTR(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...)         LOCKCHECK_ATTR(acquire_capability(__VA_ARGS__))
#define RELEASE(...)         LOCKCHECK_ATTR(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...)     LOCKCHECK_ATTR(try_acquire_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) LOCKCHECK_ATTR(assert_capability(x))
#define NO_LOCKCHECK         LOCKCHECK_ATTR(no_thread_safety_analysis)

#endif
