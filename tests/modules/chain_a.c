/*
 * chain_a: the bottom of a dependency chain (chain_a <- chain_b <-
 * chain_c).  Exports a function and a variable.
 */
#include <kernel/module.h>
#include <kernel/console/printk.h>

int chain_a_calls;

int
chain_a_value(int x)
{
	chain_a_calls++;
	return x + 1;
}

EXPORT_SYMBOL(chain_a_value);
EXPORT_SYMBOL(chain_a_calls);
MODULE_DESCRIPTION("dependency chain: exports chain_a_value");
