/* chain_c: the top of the chain; uses chain_b (and so, indirectly, a). */
#include <kernel/module.h>
#include <kernel/console/printk.h>

int chain_b_twice(int x);
extern int chain_a_calls;

static int
chain_c_init(void)
{
	kprintf("chain_c: chain_b_twice(20) = %d\n", chain_b_twice(20));
	return 0;
}

module_init(chain_c_init);
MODULE_DESCRIPTION("dependency chain: uses chain_b");
