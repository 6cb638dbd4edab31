/* Upward inside the core: a scheduler file using a test helper. */
#include <kernel/sched/sched.h>
#include <kernel/ktest/ktest_util.h>
