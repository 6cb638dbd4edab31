/*
 * badparam: a well-formed ELF whose parameter table lies: the variable
 * of "limit" is read-only data.  The loader must refuse it (a module
 * must not be able to make insmod write into its text or rodata).
 */
#include <kernel/module.h>

static const int limit = 5;

static const struct module_param __param_limit
    __attribute__((section("__param"), used, aligned(4))) = {
        "limit", "lies about its variable", (void *)&limit, MODULE_PARAM_INT,
        sizeof(int)};

static int
badparam_init(void)
{
	return 0;
}

module_init(badparam_init);
