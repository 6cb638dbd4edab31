/*
 * params: one parameter of each type, printed by init, so tests can see
 * `insmod params k=v ...` reach the module before init runs.
 */
#include <kernel/module.h>
#include <kernel/console/printk.h>

static int count = 3;
static unsigned int mask = 0xff;
static bool verbose;
static char greeting[16] = "hello";

MODULE_PARAM(count, INT, "how many greetings");
MODULE_PARAM(mask, UINT, "a bit mask");
MODULE_PARAM(verbose, BOOL, "say more");
MODULE_PARAM_STRING(greeting, "what to say (at most 15 bytes)");

static int
params_init(void)
{
	kprintf("params: count=%d mask=0x%x verbose=%s greeting=%s\n", count,
	        mask, verbose ? "y" : "n", greeting);
	return 0;
}

module_init(params_init);
MODULE_DESCRIPTION("parameters of every type");
