/*
 * A small module in the shape the kernel's module layer expects: text,
 * read-only data, data with pointers, bss, a COMMON symbol, calls to the
 * kernel, a weak hook that may be missing, and the special sections
 * (.modinfo, __ksymtab) the loader must be able to find.
 */
extern int printk(const char *fmt, ...);
extern void *kmalloc(unsigned int size);
extern int jiffies;
extern void optional_hook(void) __attribute__((weak));

int basic_common __attribute__((common, aligned(16)));
static int counter;
int basic_table[4] = {1, 2, 3, 4};
int *basic_ptr = &jiffies;
const char *const basic_greeting = "hello from basic";

__attribute__((section(".modinfo"), used)) static const char modinfo[] =
    "name=basic\0license=GPL";

static __attribute__((noinline)) int
bump(int x)
{
	counter += x;
	return counter;
}

int
basic_init(void)
{
	if (optional_hook != 0)
		optional_hook();
	printk("%s %d\n", basic_greeting, jiffies);
	basic_common = bump(basic_table[2]);
	return kmalloc(16) == 0 ? -12 : 0;
}

void
basic_exit(void)
{
	bump(-counter);
}

/* What an EXPORT_SYMBOL(basic_init) would leave behind. */
__attribute__((section("__ksymtab"), used)) static const struct {
	int (*fn)(void);
	const char *name;
} ksym_basic_init = {basic_init, "basic_init"};
