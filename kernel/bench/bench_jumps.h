/*
 * bench jumps: what a call, a return and a jump to another page cost
 * the CPU modref runs on, against straight-line instructions (under
 * QEMU's TCG, the run-time lookup of a target it could not chain:
 * docs/bench.md).
 */
#ifndef KERNEL_KTEST_BENCH_JUMPS_H
#define KERNEL_KTEST_BENCH_JUMPS_H

/* Prints "bench: jumps: ..." lines; 0. */
int bench_jumps(void);

#endif /* KERNEL_KTEST_BENCH_JUMPS_H */
