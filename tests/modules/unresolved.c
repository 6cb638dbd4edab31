/* unresolved: uses symbols nobody exports; insmod must name them all. */
#include <kernel/module.h>

int no_such_function(void);
extern int no_such_variable;
int printk_but_not_exported(int);

static int
unresolved_init(void)
{
	return no_such_function() + no_such_variable +
	       printk_but_not_exported(1);
}

module_init(unresolved_init);
