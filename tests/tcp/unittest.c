/*
 * tcp-unittest: the TCP core (net/tcp/) on the host, two cores talking
 * through tests/tcp/tnet.c, KTAP v1 on stdout.
 */
#include "tests/tcp/tests.h"

int
main(void)
{
	static const struct kt_suite *const suites[] = {
	    &tcp_suite_hdr,   &tcp_suite_open, &tcp_suite_data,
	    &tcp_suite_close, &tcp_suite_rst,  &tcp_suite_table,
	    &tcp_suite_abort,
	};

	return kt_run(suites, sizeof(suites) / sizeof(suites[0]));
}
