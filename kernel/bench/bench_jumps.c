/*
 * bench jumps (bench_jumps.h): five loops of ITERS rounds, each round
 * ten register adds and one kind of control transfer, timed with the
 * TSC.  The loops are written in assembly so the compiler can neither
 * drop nor reorder the transfers; each loop's code sits on its own
 * page, the far targets on the next one:
 *
 *   add10      the adds alone (the loop's branch back is on its page)
 *   add20      twenty adds: what ten more plain instructions cost
 *   call       a call to a ret on the same page
 *   jmp *      an indirect jump to the next instruction
 *   call far   a call to a ret on another page
 *   jmp far    a direct jump to another page and one back
 *
 * What a transfer costs is its loop's time less add10's, per round.
 * Under TCG a direct jump within the page is chained (one host jump);
 * a return, an indirect jump and any jump to another page are looked up
 * in a hash table at run time.
 */
#include <kernel/sched/clock.h>
#include <kernel/console/printk.h>
#include <kernel/arch/x86.h>

#include "kernel/bench/bench_jumps.h"

#define ITERS 1000000u

void bench_jumps_add10(unsigned n);
void bench_jumps_add20(unsigned n);
void bench_jumps_call(unsigned n);
void bench_jumps_indirect(unsigned n);
void bench_jumps_call_far(unsigned n);
void bench_jumps_jmp_far(unsigned n);

#define ADD5                                                                   \
	"addl $1, %eax; addl $1, %eax; addl $1, %eax; addl $1, %eax; "         \
	"addl $1, %eax\n"
#define ADD10 ADD5 ADD5

/* Each loop: ecx = n; eax counts (caller-saved, like ecx and edx). */
__asm__(".pushsection .text.bench_jumps, \"ax\"\n"
        ".balign 4096\n"
        ".globl bench_jumps_add10\n"
        "bench_jumps_add10:\n"
        "	movl 4(%esp), %ecx\n"
        "1:	" ADD10 "	decl %ecx\n"
        "	jnz 1b\n"
        "	ret\n"
        ".globl bench_jumps_add20\n"
        "bench_jumps_add20:\n"
        "	movl 4(%esp), %ecx\n"
        "1:	" ADD10 ADD10 "	decl %ecx\n"
        "	jnz 1b\n"
        "	ret\n"
        ".globl bench_jumps_call\n"
        "bench_jumps_call:\n"
        "	movl 4(%esp), %ecx\n"
        "1:	" ADD10 "	call 2f\n"
        "	decl %ecx\n"
        "	jnz 1b\n"
        "	ret\n"
        "2:	ret\n"
        ".globl bench_jumps_indirect\n"
        "bench_jumps_indirect:\n"
        "	movl 4(%esp), %ecx\n"
        "	movl $3f, %edx\n"
        "1:	" ADD10 "	jmp *%edx\n"
        "3:	decl %ecx\n"
        "	jnz 1b\n"
        "	ret\n"
        ".globl bench_jumps_call_far\n"
        "bench_jumps_call_far:\n"
        "	movl 4(%esp), %ecx\n"
        "1:	" ADD10 "	call bench_jumps_far_ret\n"
        "	decl %ecx\n"
        "	jnz 1b\n"
        "	ret\n"
        ".globl bench_jumps_jmp_far\n"
        "bench_jumps_jmp_far:\n"
        "	movl 4(%esp), %ecx\n"
        "bench_jumps_jmp_far_loop:\n"
        "	" ADD10 "	jmp bench_jumps_far_jmp\n"
        "bench_jumps_jmp_far_back:\n"
        "	decl %ecx\n"
        "	jnz bench_jumps_jmp_far_loop\n"
        "	ret\n"
        ".balign 4096\n"
        "bench_jumps_far_ret:\n"
        "	ret\n"
        "bench_jumps_far_jmp:\n"
        "	jmp bench_jumps_jmp_far_back\n"
        ".popsection\n");

/* ns per round of fn, x1000 (picoseconds), the best of three runs: the
 * host may preempt the vCPU in any one. */
static uint64_t
time_ps(void (*fn)(unsigned))
{
	uint64_t best = UINT64_MAX;

	for (int r = 0; r < 3; r++) {
		uint64_t t0 = rdtsc(), ps;

		fn(ITERS);
		ps = tsc_to_ns(rdtsc() - t0) * 1000 / ITERS;
		if (ps < best)
			best = ps;
	}
	return best;
}

int
bench_jumps(void)
{
	static const struct {
		const char *name;
		void (*fn)(unsigned);
	} kinds[] = {
	    {"add20", bench_jumps_add20},
	    {"call", bench_jumps_call},
	    {"jmp *", bench_jumps_indirect},
	    {"call far", bench_jumps_call_far},
	    {"jmp far", bench_jumps_jmp_far},
	};
	uint64_t base = time_ps(bench_jumps_add10), add;

	kprintf("bench: jumps: %u rounds, best of 3: add10 %llu.%03llu ns "
	        "a round\n",
	        ITERS, (unsigned long long)(base / 1000),
	        (unsigned long long)(base % 1000));
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		uint64_t ps = time_ps(kinds[i].fn);

		add = ps > base ? ps - base : 0;
		kprintf(
		    "bench: jumps: %-8s %llu.%03llu ns a round, +%llu.%03llu "
		    "ns on add10\n",
		    kinds[i].name, (unsigned long long)(ps / 1000),
		    (unsigned long long)(ps % 1000),
		    (unsigned long long)(add / 1000),
		    (unsigned long long)(add % 1000));
	}
	return 0;
}
