/*
 * libFuzzer target for the cpio newc reader (kernel/lib/newc.c): any input
 * is walked to its end or its first error; every entry handed out must
 * lie inside the input, and an error must come with a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/newc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct newc_reader r;
	struct newc_entry e;
	char err[160];
	int rc;

	newc_init(&r, data, size);
	while ((rc = newc_next(&r, &e, err, sizeof(err))) > 0) {
		const uint8_t *p = e.data;
		size_t nl = strlen(e.name);

		if (p < data || (size_t)(p - data) > size ||
		    e.size > size - (size_t)(p - data) ||
		    (const uint8_t *)e.name < data ||
		    nl >= size - (size_t)((const uint8_t *)e.name - data))
			abort();
	}
	if (rc < 0 && err[0] == '\0')
		abort();
	return 0;
}
