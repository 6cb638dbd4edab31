/*
 * libFuzzer target for the trace dump reader and the writers
 * (tests/trace/tracelog.c, perfetto.c): any bytes as a serial log.  The
 * reader must refuse or accept without a sanitizer report, and whatever
 * it accepts the JSON writer must turn into a trace the checker
 * (tracecheck.c) passes, counters ending at the dump's counts or not:
 * counts the dump made up need not match, so only the format is held to.
 */
#include "tests/trace/perfetto.h"
#include "tests/trace/tracecheck.h"
#include "tests/trace/tracelog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracelog t;
	char err[512], *json = NULL;
	size_t len = 0, n;
	FILE *in, *out;

	if (size == 0)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (in == NULL)
		return 0;
	if (tracelog_read_file(in, "fuzz", &t, err, sizeof(err)) < 0) {
		fclose(in);
		return 0;
	}
	fclose(in);
	out = open_memstream(&json, &len);
	if (out == NULL) {
		tracelog_free(&t);
		return 0;
	}
	perfetto_write_json(&t, out);
	fclose(out);
	if (t.nev != 0 && tracecheck(json, NULL, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "converted trace fails the check: %s\n", err);
		abort();
	}
	out = fopen("/dev/null", "w");
	if (out != NULL) {
		perfetto_write_ftrace(&t, out);
		fclose(out);
	}
	free(json);
	tracelog_free(&t);
	return 0;
}
