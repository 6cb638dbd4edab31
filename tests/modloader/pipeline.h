/*
 * The whole load pipeline on arbitrary bytes, with invariant checks on
 * whatever it accepts.  Shared by the fuzz target and the unit tests that
 * replay tests/modloader/regress/: a crash, a sanitizer report or an
 * abort() here is a loader bug.
 */
#ifndef TESTS_MODLOADER_PIPELINE_H
#define TESTS_MODLOADER_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

/* Images larger than this are refused by the test allocator (-ENOMEM). */
#define PIPELINE_MAX_IMAGE (1u << 20)
#define PIPELINE_BASE      0xd0800000u

/* Returns what elf_mod_load() returned; err gets its message. */
int pipeline_run(const uint8_t *data, size_t size, char *err, size_t errlen);

#endif
