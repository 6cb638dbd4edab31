/*
 * busy: a module that manages its own removal, the way the netdev thread
 * wanted (can_unload + quiesce): it owns `objects` things that stay in
 * use until they drain (think sockets in TIME_WAIT).
 *
 *   can_unload   vetoes while objects remain, saying how many
 *   quiesce      starts draining: one object every drain_ms
 *   resume       (rmmod interrupted) stops draining; the module works on
 *   force        (rmmod -f) drops every object at once
 *   status       what rmmod is waiting for
 *
 * The console command `busy` shows the state and `busy add N` makes more
 * objects, so a test can prove the module still works after Ctrl-C.
 */
#include <kernel/console/args.h>
#include <kernel/module.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/lib/errno.h>

static int objects = 3;
static int drain_ms = 400;
MODULE_PARAM(objects, INT, "objects in use at load time");
MODULE_PARAM(drain_ms, INT, "ms to drain one object after rmmod starts");

static volatile int live_objects;
static volatile bool draining;
static struct timer drain_timer;

static void
drain_one(struct timer *t)
{
	if (!draining || live_objects <= 0)
		return;
	live_objects--;
	if (live_objects > 0)
		timer_add(t, now_ms() + (unsigned)drain_ms);
}

static int
busy_can_unload(char *reason, size_t size)
{
	if (live_objects == 0)
		return 0;
	snprintf(reason, size, "%d objects in use", live_objects);
	return -EBUSY;
}

static void
busy_quiesce(void)
{
	draining = true;
	if (live_objects > 0)
		timer_add(&drain_timer, now_ms() + (unsigned)drain_ms);
}

static void
busy_resume(void)
{
	draining = false;
	timer_del(&drain_timer);
	kprintf("busy: resumed with %d objects\n", live_objects);
}

static int
busy_force(char *msg, size_t size)
{
	snprintf(msg, size, "purged %d objects", live_objects);
	live_objects = 0;
	return 0;
}

static void
busy_status(char *buf, size_t size)
{
	snprintf(buf, size, "%s, next in %d ms", draining ? "draining" : "idle",
	         drain_ms);
}

static int
cmd_busy(int argc, char **argv)
{
	unsigned long n;
	struct args a;

	if (args_parse(&a, "busy", argc, argv, "", 0, 2) < 0)
		return -EINVAL;
	if (a.npos > 0 && (a.npos != 2 || strcmp(a.pos[0], "add") != 0))
		return args_refuse(&a, "expected busy add N");
	if (a.npos == 2) {
		if (args_num(&a, "N", a.pos[1], 0, 999, &n) < 0)
			return -EINVAL;
		live_objects += (int)n;
		return 0;
	}
	kprintf("busy: %s, %d objects, %s\n",
	        module_state_name(THIS_MODULE->state), live_objects,
	        draining ? "draining" : "not draining");
	return 0;
}

static struct command busy_cmd = {.name = "busy",
                                  .usage = "busy [add N]",
                                  .help = "state of the busy test module",
                                  .fn = cmd_busy};

static int
busy_init(void)
{
	if (objects < 0 || drain_ms < 1)
		return -EINVAL;
	live_objects = objects;
	timer_init(&drain_timer, drain_one, NULL);
	command_register(&busy_cmd);
	return 0;
}

static void
busy_exit(void)
{
	timer_del(&drain_timer);
	command_unregister(&busy_cmd);
	kprintf("busy: exit\n");
}

module_init(busy_init);
module_exit(busy_exit);
MODULE_CAN_UNLOAD(busy_can_unload);
MODULE_QUIESCE(busy_quiesce);
MODULE_RESUME(busy_resume);
MODULE_FORCE(busy_force);
MODULE_UNLOAD_STATUS(busy_status);
MODULE_DESCRIPTION("objects that drain slowly: can_unload, quiesce, force");
