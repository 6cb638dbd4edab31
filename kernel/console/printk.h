/*
 * Kernel output.  printk() is the log: a level and a timestamp, filtered by
 * the loglevel= boot parameter.  kprintf() is plain console output for
 * shell commands and KTAP.  Both are safe from any context, on any CPU;
 * one call's output is never interleaved with another CPU's.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum log_level {
	LOG_EMERG,
	LOG_ALERT,
	LOG_CRIT,
	LOG_ERR,
	LOG_WARN,
	LOG_NOTICE,
	LOG_INFO,
	LOG_DEBUG,
};

extern int console_loglevel;

void printk(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vkprintf(const char *fmt, va_list ap);
void kputs(const char *s);

/*
 * Output capture, for threads that run commands in the background (the
 * lifetime stress workers): while a thread has one installed, its
 * kprintf/kputs output and its printk below LOG_WARN are kept here, line
 * by line, instead of reaching the console.  Never from an interrupt and
 * never once a panic began, so a fault report always reaches the console;
 * warnings and errors (printk LOG_WARN and worse) always do too.
 */
#define OUT_CAPTURE_LINE 120
struct out_capture {
	unsigned lines;              /* complete lines seen */
	unsigned logged;             /* of them, printk's log lines */
	bool logging;                /* printk is filing its line */
	size_t len;                  /* bytes in line[] */
	char line[OUT_CAPTURE_LINE]; /* the line being built */
	char first[OUT_CAPTURE_LINE], last[OUT_CAPTURE_LINE];
	/* Set after out_capture_begin: kept[] is the last line containing
	 * keep (a progress line, say, that later lines would hide). */
	const char *keep;
	char kept[OUT_CAPTURE_LINE];
};
/* Install c (emptied) on the calling thread; out_capture_end removes it
 * and files a last unterminated line. */
void out_capture_begin(struct out_capture *c);
void out_capture_end(void);
/* Let the calling thread's output reach the console for a while (a
 * diagnosis), and keep capturing into c again after: nothing is lost. */
struct out_capture *out_capture_suspend(void);
void out_capture_resume(struct out_capture *c);

#define pr_err(...)    printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)   printk(LOG_WARN, __VA_ARGS__)
#define pr_notice(...) printk(LOG_NOTICE, __VA_ARGS__)
#define pr_info(...)   printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)  printk(LOG_DEBUG, __VA_ARGS__)

#endif
