/* Built with -fpic: its GOT-relative relocations must be refused. */
extern int shared_counter;

int
pic_get(void)
{
	return shared_counter;
}
