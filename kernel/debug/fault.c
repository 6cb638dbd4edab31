/*
 * Fault injection (fault.h) and the `failnth` command:
 *
 *   failnth [-s SITE,..] [-p PERMILLE] [-r SEED] N COMMAND [ARGS..]
 *
 * runs COMMAND with the Nth call at the chosen sites (default: all)
 * failing, and says afterwards what was injected, so a sweep over N
 * walks every failure path of the command once.
 */
#include <kernel/debug/fault.h>
#include <kernel/console/console.h>
#include <kernel/arch/cpu.h>
#include <kernel/lib/errno.h>
#include <kernel/debug/ksyms.h>
#include <kernel/console/printk.h>
#include <kernel/sched/sched.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>

const char *const fault_site_names[FAULT_NSITES] = {
    "kmalloc", "pages",  "modget", "devhold", "irq",
    "sock",    "thread", "vmarea", "iomap"};

/* Interrupt context's, for fault_set_on(NULL, ...). */
static struct fault_ctx *volatile irq_fault;

static void
reset(struct fault_ctx *ctx)
{
	if (ctx != NULL) {
		ctx->calls = ctx->injected = 0;
		ctx->last_site = -1;
		ctx->last_caller = 0;
	}
}

void
fault_set(struct fault_ctx *ctx)
{
	reset(ctx);
	current->fault = ctx;
}

void
fault_set_on(struct thread *t, struct fault_ctx *ctx)
{
	reset(ctx);
	__atomic_store_n(t != NULL ? &t->fault
	                           : (struct fault_ctx **)&irq_fault,
	                 ctx, __ATOMIC_RELEASE);
}

static uint32_t
fault_rand(struct fault_ctx *c)
{
	c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(c->rng >> 33);
}

bool
__fault_should_fail(enum fault_site site, uintptr_t caller)
{
	struct thread *t = current;
	struct fault_ctx *c = irq_fault;
	uint32_t n;
	bool fail = false;

	if (t == NULL || (t->fault == NULL && c == NULL))
		return false;
	/* An interrupt runs on the stack of the thread it interrupted:
	 * that thread's context is not the interrupt's. */
	c = in_interrupt() ? c : __atomic_load_n(&t->fault, __ATOMIC_ACQUIRE);
	if (c == NULL || !(c->sites & (1u << site)))
		return false;
	n = __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
	if (c->nth != 0 && n == c->nth)
		fail = true;
	if (c->permille != 0 && fault_rand(c) % 1000 < c->permille)
		fail = true;
	if (fail) {
		__atomic_add_fetch(&c->injected, 1, __ATOMIC_RELAXED);
		c->last_site = (int)site;
		c->last_caller = caller;
	}
	return fail;
}

unsigned
fault_parse_sites(const char *list)
{
	unsigned mask = 0;

	while (*list != '\0') {
		size_t n = 0;
		int i;

		while (list[n] != '\0' && list[n] != ',')
			n++;
		for (i = 0; i < FAULT_NSITES; i++)
			if (strlen(fault_site_names[i]) == n &&
			    strncmp(fault_site_names[i], list, n) == 0)
				break;
		if (i == FAULT_NSITES)
			return 0;
		mask |= 1u << i;
		list += n;
		if (*list == ',')
			list++;
	}
	return mask;
}

static int
cmd_failnth(int argc, char **argv)
{
	struct fault_ctx ctx = {.sites = FAULT_ALL};
	char line[CONSOLE_LINE_MAX], where[96];
	unsigned long v;
	size_t n = 0;
	int i = 1, r;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "-s") == 0) {
			ctx.sites = fault_parse_sites(argv[i + 1]);
			if (ctx.sites == 0)
				return cmd_error(
				    "failnth", -EINVAL,
				    "'%s': sites are kmalloc, pages, "
				    "modget, devhold, irq, sock, "
				    "thread, vmarea, iomap",
				    argv[i + 1]);
		} else if (strcmp(argv[i], "-p") == 0 &&
		           parse_ulong(argv[i + 1], &v) == 0 && v <= 1000) {
			ctx.permille = (uint32_t)v;
		} else if (strcmp(argv[i], "-r") == 0 &&
		           parse_ulong(argv[i + 1], &v) == 0) {
			ctx.rng = v;
		} else {
			return cmd_usage("failnth");
		}
	}
	if (argc - i < 2 || parse_ulong(argv[i], &v) != 0 || v > 1000000 ||
	    strcmp(argv[i + 1], "failnth") == 0)
		return cmd_usage("failnth");
	ctx.nth = (uint32_t)v;
	for (int j = i + 1; j < argc && n < sizeof(line); j++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s",
		              j > i + 1 ? " " : "", argv[j]);
	if (n >= sizeof(line))
		return cmd_error("failnth", -E2BIG, "command line too long");
	fault_set(&ctx);
	r = shell_exec(line);
	fault_set(NULL);
	if (ctx.injected == 0) {
		kprintf("failnth: nothing injected (%u calls counted)\n",
		        (unsigned)ctx.calls);
	} else {
		ksym_format(ctx.last_caller, where, sizeof(where));
		kprintf("failnth: injected %u failure(s), the last at call %u: "
		        "%s in %s\n",
		        (unsigned)ctx.injected, (unsigned)ctx.calls,
		        fault_site_names[ctx.last_site], where);
	}
	return r;
}
COMMAND(failnth, "failnth [-s SITE,..] [-p PERMILLE] [-r SEED] N COMMAND..",
        "run COMMAND with its Nth allocation/get/hold/irq/socket/thread "
        "call failing (or a random fraction)",
        cmd_failnth);
