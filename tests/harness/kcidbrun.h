/*
 * The harness's runs as KCIDB tests (modref-harness test --kcidb FILE;
 * docs/harness.md).  Paths:
 *   modref.SCENARIO.PROFILE                    the run
 *   modref.SCENARIO.PROFILE.SUITE.CASE         each KTAP case
 *   modref.SCENARIO.PROFILE.bench.GROUP.LABEL  each figure of a
 *                                              "bench: GROUP: LABEL N UNIT"
 *                                              line in the run's log
 *   modref.SCENARIO                            a scenario that does not parse
 * each component reduced to [A-Za-z0-9_-] (kcidb_path_add).
 */
#ifndef HARNESS_KCIDBRUN_H
#define HARNESS_KCIDBRUN_H

#include <sys/time.h>

#include "tests/harness/report.h"
#include "tests/kcidb/kcidb.h"

/* The KCIDB status of a harness point: PASS, FAIL, SKIP, or ERROR when
 * the harness itself lost the run. */
const char *kcidb_point_status(const struct point *p);

/* One finished run: its points from r, its figures from the log. */
void kcidb_add_run(struct kcidb *k, const char *scenario, const char *profile,
                   const struct report *r, const char *log_path,
                   const struct timeval *start, double seconds);

/* A scenario that did not parse: one ERROR test with the reason. */
void kcidb_add_broken(struct kcidb *k, const char *scenario,
                      const char *reason);

#endif
