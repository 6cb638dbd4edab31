#include "tests/tcp/tests.h"

static const struct kt_case cases[] = {
    KT_END,
};

const struct kt_suite tcp_suite_data = {"tcp_data", cases};
