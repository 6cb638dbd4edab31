/*
 * hello_ext: an out-of-tree module, built against the kernel's exported
 * API with `make modules M=docs/examples/hello-ext` (docs/modules.md).
 * It exports a function, takes a parameter, and registers a console
 * command whose owner is the module itself.
 */
#include <kernel/console/args.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>

static int times = 1;
MODULE_PARAM(times, INT, "how many times `hello-ext` greets");

int
hello_ext_answer(void)
{
	return 42;
}
EXPORT_SYMBOL(hello_ext_answer);

static int
cmd_hello_ext(int argc, char **argv)
{
	struct args a;

	/* No flags, no words: refuse anything else with the usage line. */
	if (args_parse(&a, "hello-ext", argc, argv, "", 0, 0) < 0)
		return -EINVAL;
	for (int i = 0; i < times; i++)
		kprintf("hello from outside the tree (%d)\n", i + 1);
	return 0;
}

static struct command hello_ext_cmd = {.name = "hello-ext",
                                       .usage = "hello-ext",
                                       .help =
                                           "greet from an out-of-tree module",
                                       .fn = cmd_hello_ext};

static int
hello_ext_init(void)
{
	command_register(&hello_ext_cmd);
	kprintf("hello_ext: loaded, times=%d\n", times);
	return 0;
}

static void
hello_ext_exit(void)
{
	command_unregister(&hello_ext_cmd);
}

module_init(hello_ext_init);
module_exit(hello_ext_exit);
MODULE_DESCRIPTION("out-of-tree example");
MODULE_LICENSE("MIT");
