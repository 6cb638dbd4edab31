/*
 * Suite "bootparam": the kernel command line as loaders hand it over.
 *
 * Pins down that the kernel image's path which QEMU and GRUB put first is
 * skipped whole however long it is (a lab stages images under deep
 * directories) and whatever it contains ('=' included), and that a
 * command line starting with a parameter keeps it.
 */
#include <kernel/debug/ktest.h>
#include <kernel/bootparam.h>
#include <kernel/lib/string.h>

static void
expect_rest(struct ktest *t, const char *cmdline, const char *rest)
{
	const char *got = bootparam_skip_image_path(cmdline);

	KEXPECT_MSG(t, strcmp(got, rest) == 0, "'%s' -> '%s', expected '%s'",
	            cmdline, got, rest);
}

static void
short_path(struct ktest *t)
{
	expect_rest(t, "build/modref.elf loglevel=3", "loglevel=3");
	expect_rest(t, "/boot/modref.elf", "");
	expect_rest(t, "  modref.elf   x y", "x y");
}

static void
long_path(struct ktest *t)
{
	static char line[400];
	size_t n = 0;

	for (int i = 0; i < 30; i++) {
		memcpy(line + n, "/deeper123", 10);
		n += 10;
	}
	memcpy(line + n, "/ref.elf loglevel=3", 20);
	expect_rest(t, line, "loglevel=3");
}

static void
path_with_equals(struct ktest *t)
{
	expect_rest(t, "/lava/job=42/deploy/ref.elf loglevel=3", "loglevel=3");
	expect_rest(t, "loglevel/x=1/ref.elf ktest=smp", "ktest=smp");
	/* A word that names no parameter before its '=' is a path. */
	expect_rest(t, "nosuchparam=1 loglevel=3", "loglevel=3");
}

static void
first_word_parameter(struct ktest *t)
{
	expect_rest(t, "loglevel=3 ktest=smp", "loglevel=3 ktest=smp");
	expect_rest(t, "ktest_poweroff loglevel=3",
	            "ktest_poweroff loglevel=3");
	expect_rest(t, "", "");
	expect_rest(t, "   ", "");
}

KTEST_SUITE(bootparam, KTEST_CASE(short_path), KTEST_CASE(long_path),
            KTEST_CASE(path_with_equals), KTEST_CASE(first_word_parameter));
