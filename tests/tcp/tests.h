/* The suites of tcp-unittest (one file each) and what they share. */
#ifndef TESTS_TCP_TESTS_H
#define TESTS_TCP_TESTS_H

#include "net/ipv4/inet_csum.h"
#include "tests/tcp/tnet.h"

extern const struct kt_suite tcp_suite_hdr;
extern const struct kt_suite tcp_suite_open;
extern const struct kt_suite tcp_suite_data;
extern const struct kt_suite tcp_suite_close;
extern const struct kt_suite tcp_suite_rst;
extern const struct kt_suite tcp_suite_table;
extern const struct kt_suite tcp_suite_abort;

#endif
