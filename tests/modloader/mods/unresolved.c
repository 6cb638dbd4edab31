/* Needs five kernel symbols the tests do not provide, one of them weak. */
extern void missing_one(void);
extern void missing_two(void);
extern int missing_var;
extern void missing_weak(void) __attribute__((weak));
extern int printk(const char *fmt, ...);

int
unresolved_init(void)
{
	missing_one();
	missing_two();
	if (missing_weak != 0)
		missing_weak();
	return printk("%d\n", missing_var);
}
