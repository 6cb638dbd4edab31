/*
 * trace: the reference timeline's console command (kernel/debug/trace.h).
 *
 *   trace start   empty the ring, record the existing devices and
 *                 modules with their counts, record from now on
 *   trace stop    stop recording (the ring is kept)
 *   trace dump    stop and print the ring (build/host/modref-trace reads
 *                 it from the serial log)
 *   trace         on or off, events kept, events overwritten
 */
#include <kernel/console/args.h>
#include <kernel/console/printk.h>
#include <kernel/console/shell.h>
#include <kernel/debug/trace.h>
#include <kernel/lib/errno.h>
#include <kernel/lib/string.h>

static int
cmd_trace(int argc, char **argv)
{
	struct args a;
	unsigned events, lost;
	const char *w;

	if (args_parse(&a, "trace", argc, argv, "", 0, 1) < 0)
		return -EINVAL;
	w = a.npos != 0 ? a.pos[0] : "status";
	if (strcmp(w, "start") == 0) {
		trace_start();
	} else if (strcmp(w, "stop") == 0) {
		trace_stop();
	} else if (strcmp(w, "dump") == 0) {
		trace_dump();
		return 0;
	} else if (strcmp(w, "status") != 0) {
		return cmd_error("trace", -EINVAL,
		                 "'%s': not start, stop, dump or status", w);
	}
	trace_stats(&events, &lost);
	kprintf("trace: %s, %u events kept (ring of %u), %u overwritten\n",
	        trace_on ? "on" : "off", events, (unsigned)TRACE_EVENTS, lost);
	return 0;
}
COMMAND(trace, "trace [start|stop|dump|status]",
        "the reference timeline: record device and module references, "
        "module and unregister phases; dump prints it for "
        "build/host/modref-trace",
        cmd_trace);
