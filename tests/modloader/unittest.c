/*
 * Host unit tests for the ELF loader core (modloader/elf_*.c), printed
 * as KTAP v1.  Run from the repository root after `make host`; the test
 * modules come from build/host/modloader/mods.
 */
#include "tests/lib/ktap.h"

extern const struct kt_suite check_suite, layout_suite, reloc_suite,
    lookup_suite, pipeline_suite, ref_suite, modinfo_suite;

int
main(void)
{
	static const struct kt_suite *const suites[] = {
	    &check_suite,    &layout_suite, &reloc_suite,   &lookup_suite,
	    &pipeline_suite, &ref_suite,    &modinfo_suite,
	};

	return kt_run(suites, sizeof(suites) / sizeof(suites[0]));
}
