/*
 * Kernel output.  printk() is the log: a level and a timestamp, filtered by
 * the loglevel= boot parameter.  kprintf() is plain console output for
 * shell commands and KTAP.  Both are safe from any context, on any CPU;
 * one call's output is never interleaved with another CPU's.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>

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

#define pr_err(...)    printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)   printk(LOG_WARN, __VA_ARGS__)
#define pr_notice(...) printk(LOG_NOTICE, __VA_ARGS__)
#define pr_info(...)   printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)  printk(LOG_DEBUG, __VA_ARGS__)

#endif
