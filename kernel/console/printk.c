/*
 * printk and kprintf (see printk.h).  Messages are formatted on the stack
 * and written under the console lock, so a line from one CPU is never
 * split by another's.
 */
#include <kernel/console/printk.h>
#include <kernel/console/console.h>
#include <kernel/lib/string.h>
#include <kernel/sched/timer.h>
#include <kernel/bootparam.h>
#include <kernel/arch/cpu.h>
#include <kernel/debug/panic.h>
#include <kernel/sched/sched.h>

int console_loglevel = LOG_INFO;
BOOTPARAM_INT(loglevel, console_loglevel, 0, 7,
              "console log level: 0 emergencies only .. 7 debug", 1);

static const char *const level_tags[] = {"EMERG", "ALERT", "CRIT", "ERR",
                                         "WARN",  "NOTE",  "INFO", "DEBUG"};

static void
capture_file_line(struct out_capture *c)
{
	c->line[c->len] = '\0';
	if (c->logging)
		c->logged++;
	if (c->lines == 0)
		strlcpy(c->first, c->line, sizeof(c->first));
	strlcpy(c->last, c->line, sizeof(c->last));
	if (c->keep != NULL && strstr(c->line, c->keep) != NULL)
		strlcpy(c->kept, c->line, sizeof(c->kept));
	c->lines++;
	c->len = 0;
}

/* The calling thread's capture, if its output is to be kept. */
static struct out_capture *
capturing(void)
{
	if (panicking || in_interrupt() || current == NULL)
		return NULL;
	return current->capture;
}

static void
output(const char *buf, size_t n)
{
	struct out_capture *c = capturing();

	if (c == NULL) {
		console_write(buf, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			capture_file_line(c);
		else if (c->len < sizeof(c->line) - 1)
			c->line[c->len++] = buf[i];
	}
}

void
out_capture_begin(struct out_capture *c)
{
	memset(c, 0, sizeof(*c));
	current->capture = c;
}

void
out_capture_end(void)
{
	struct out_capture *c = current->capture;

	if (c != NULL && c->len > 0)
		capture_file_line(c);
	current->capture = NULL;
}

struct out_capture *
out_capture_suspend(void)
{
	struct out_capture *c = current->capture;

	current->capture = NULL;
	return c;
}

void
out_capture_resume(struct out_capture *c)
{
	ASSERT(current->capture == NULL);
	current->capture = c;
}

void
vkprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	output(buf, (size_t)n);
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
	output(s, strlen(s));
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
	if (level <= LOG_WARN) {
		console_write(buf, (size_t)n);
	} else {
		struct out_capture *c = capturing();

		if (c != NULL)
			c->logging = c->len == 0; /* a line of its own */
		output(buf, (size_t)n);
		if (c != NULL)
			c->logging = false;
	}
}
