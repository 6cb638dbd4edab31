/*
 * printk and kprintf (see printk.h).  Messages are formatted on the stack
 * and written under the console lock, so a line from one CPU is never
 * split by another's.
 */
#include <kernel/printk.h>
#include <kernel/console.h>
#include <kernel/string.h>
#include <kernel/timer.h>
#include <kernel/bootparam.h>

int console_loglevel = LOG_INFO;
BOOTPARAM_INT(loglevel, console_loglevel, 0, 7,
              "console log level: 0 emergencies only .. 7 debug", 1);

static const char *const level_tags[] = {"EMERG", "ALERT", "CRIT", "ERR",
                                         "WARN",  "NOTE",  "INFO", "DEBUG"};

void
vkprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	console_write(buf, (size_t)n);
}

void
kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
}

void
kputs(const char *s)
{
	console_write(s, strlen(s));
}

void
printk(int level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	uint64_t ms;
	int n;

	if (level > console_loglevel)
		return;
	ms = now_ms();
	n = snprintf(buf, sizeof(buf), "[%5u.%03u] %s: ", (unsigned)(ms / 1000),
	             (unsigned)(ms % 1000),
	             level_tags[level < 0   ? 0
	                        : level > 7 ? 7
	                                    : level]);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	console_write(buf, (size_t)n);
}
