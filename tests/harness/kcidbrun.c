/* The harness's runs as KCIDB tests (see kcidbrun.h). */
#include "tests/harness/kcidbrun.h"

#include <stdlib.h>
#include <string.h>

const char *
kcidb_point_status(const struct point *p)
{
	switch (p->status) {
	case PT_PASS:
		return "PASS";
	case PT_SKIP:
		return "SKIP";
	default:
		/* main.c's finish_job: the run's process died unreported. */
		return starts_with(p->reason, "harness run process") ? "ERROR"
		                                                     : "FAIL";
	}
}

static void
base_path(struct strbuf *path, const char *scenario, const char *profile)
{
	sb_init(path);
	kcidb_path_add1(path, "modref");
	kcidb_path_add1(path, scenario);
	if (profile != NULL)
		kcidb_path_add1(path, profile);
}

static void
add_figures(struct kcidb *k, const char *scenario, const char *profile,
            const char *log_path, const char *log_url, const char *start)
{
	char *text = read_file(log_path), *line, *save = NULL;
	const char *misc[] = {"scenario", scenario, "profile", profile, NULL};

	if (text == NULL)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *group, *label, *unit;
		double value;
		struct strbuf path;

		if (!kcidb_bench_line(line, &group, &label, &value, &unit))
			continue;
		base_path(&path, scenario, profile);
		kcidb_path_add1(&path, "bench");
		kcidb_path_add1(&path, group);
		kcidb_path_add1(&path, label);
		kcidb_add_test(k, &(struct kcidb_test){.path = path.buf,
		                                       .status = "DONE",
		                                       .start_time = start,
		                                       .duration = -1,
		                                       .log_url = log_url,
		                                       .comment = line,
		                                       .has_number = true,
		                                       .value = value,
		                                       .unit = unit,
		                                       .misc = misc});
		sb_free(&path);
		free(group);
		free(label);
		free(unit);
	}
	free(text);
}

void
kcidb_add_run(struct kcidb *k, const char *scenario, const char *profile,
              const struct report *r, const char *log_path,
              const struct timeval *start, double seconds)
{
	char *run = xasprintf("%s[%s]", scenario, profile);
	char *log_url = kcidb_log_url(log_path);
	size_t rl = strlen(run);
	char when[64];
	const char *misc[] = {"scenario", scenario, "profile", profile, NULL};

	kcidb_time(when, sizeof(when), start);
	for (int i = 0; i < r->n; i++) {
		const struct point *p = &r->p[i];
		struct strbuf path;
		struct kcidb_test t = {.status = kcidb_point_status(p),
		                       .start_time = when,
		                       .duration = -1,
		                       .log_url = log_url,
		                       .comment = p->reason,
		                       .misc = misc};

		base_path(&path, scenario, profile);
		if (strcmp(p->name, run) == 0)
			t.duration = seconds;
		else if (strncmp(p->name, run, rl) == 0 && p->name[rl] == ' ')
			kcidb_path_add(&path, p->name + rl + 1);
		else
			kcidb_path_add(&path, p->name);
		t.path = path.buf;
		kcidb_add_test(k, &t);
		sb_free(&path);
	}
	add_figures(k, scenario, profile, log_path, log_url, when);
	free(log_url);
	free(run);
}

void
kcidb_add_broken(struct kcidb *k, const char *scenario, const char *reason)
{
	struct strbuf path;

	base_path(&path, scenario, NULL);
	kcidb_add_test(k, &(struct kcidb_test){.path = path.buf,
	                                       .status = "ERROR",
	                                       .duration = -1,
	                                       .comment = reason});
	sb_free(&path);
}
