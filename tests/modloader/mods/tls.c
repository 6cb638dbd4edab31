/* Thread-local storage: modules cannot have it. */
__thread int per_thread = 1;

int
tls_get(void)
{
	return per_thread;
}
