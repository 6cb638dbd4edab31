/* chain_b: uses chain_a, exports chain_b_twice to chain_c. */
#include <kernel/module.h>
#include <kernel/console/printk.h>

int chain_a_value(int x);

int
chain_b_twice(int x)
{
	return 2 * chain_a_value(x);
}

static int
chain_b_init(void)
{
	kprintf("chain_b: chain_a_value(1) = %d\n", chain_a_value(1));
	return 0;
}

module_init(chain_b_init);
EXPORT_SYMBOL(chain_b_twice);
MODULE_DESCRIPTION("dependency chain: uses chain_a, exports chain_b_twice");
