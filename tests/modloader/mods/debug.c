/* Built with -g: .rel.debug_* relocate sections that are not loaded and
 * must be skipped, not applied or refused. */
extern int printk(const char *fmt, ...);
static int calls;

int
debug_fn(int x)
{
	calls++;
	return printk("%d %d\n", x, calls);
}
