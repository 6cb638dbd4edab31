/*
 * The reference-check module: linked by GNU ld at a fixed address with a
 * script reproducing the loader's layout (../ref/refmod.ld), and loaded
 * by the loader at the same address; the bytes must be identical.
 * Several sections, data relocations both ways, calls to the kernel, a
 * jump table, a weak hook and a COMMON symbol.
 */
extern int printk(const char *fmt, ...);
extern void *kmalloc(unsigned int size);
extern void kfree(void *p);
extern unsigned long jiffies;
extern void ref_hook(void) __attribute__((weak));

struct ref_ops {
	int (*open)(int);
	int (*close)(int);
	const char *name;
	unsigned long *clock;
};

long ref_common __attribute__((common));
static int opened;
static char scratch[40];

static int
ref_open(int n)
{
	opened += n;
	return printk("open %d at %lu\n", n, jiffies);
}

static int
ref_close(int n)
{
	opened -= n;
	kfree(kmalloc((unsigned int)n));
	return 0;
}

struct ref_ops ref_ops = {ref_open, ref_close, "refmod", &jiffies};
struct ref_ops *ref_ops_ptr = &ref_ops;
const struct ref_ops *const ref_ops_ro = &ref_ops;

int
ref_dispatch(int op, int arg)
{
	if (ref_hook != 0)
		ref_hook();
	ref_common += op;
	scratch[op & 31] = (char)arg;
	switch (op) {
	case 0:
		return ref_ops.open(arg);
	case 1:
		return ref_ops.close(arg);
	case 2:
		return opened;
	case 3:
		return scratch[arg & 31];
	case 4:
		return printk("%s\n", ref_ops_ro->name);
	case 5:
		return (int)*ref_ops_ptr->clock;
	default:
		return -22;
	}
}
