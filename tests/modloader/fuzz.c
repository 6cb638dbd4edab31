/*
 * libFuzzer target: arbitrary bytes through validate, layout, copy,
 * resolve, relocate and the lookups (pipeline.c), under ASan and UBSan.
 */
#include <stddef.h>
#include <stdint.h>

#include "tests/modloader/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];

	pipeline_run(data, size, err, sizeof(err));
	return 0;
}
