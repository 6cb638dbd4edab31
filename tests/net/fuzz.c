/*
 * libFuzzer target over the protocol layer: arbitrary bytes through
 * every parser, rebuild and state machine (pipeline.c), under ASan and
 * UBSan.  A broken invariant aborts with its description.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/net/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = net_pipeline(data, size, NULL);

	if (why != NULL) {
		fprintf(stderr, "net-fuzz: invariant broken: %s\n", why);
		abort();
	}
	return 0;
}
