/*
 * mkinitrd -o ARCHIVE FILE...: pack boot modules into one cpio newc
 * archive, each under its basename (scripts/newc_write.h says what is
 * refused).  `make run` and the ISO boot with build/initrd.cpio.
 */
#include <stdio.h>
#include <string.h>

#include "scripts/newc_write.h"

int
main(int argc, char **argv)
{
	char err[512];

	if (argc < 3 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: mkinitrd -o ARCHIVE FILE...\n");
		return 2;
	}
	if (newc_write_file(argv[2], argv + 3, argc - 3, err, sizeof(err)) <
	    0) {
		fprintf(stderr, "mkinitrd: %s\n", err);
		return 1;
	}
	return 0;
}
