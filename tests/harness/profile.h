/*
 * QEMU launch profiles (qemu/NAME.profile): which machine a scenario runs
 * on.  A profile is plain `key value` lines; every key has a default so a
 * profile only states what differs.  The same value parsers check the
 * command-line overrides of `modref-harness run`.
 */
#ifndef HARNESS_PROFILE_H
#define HARNESS_PROFILE_H

#include <stddef.h>

enum nic_kind { NIC_NONE, NIC_E1000, NIC_VIRTIO, NIC_BOTH };
enum boot_kind { BOOT_DIRECT, BOOT_ISO };
/* Netdev backends; more can be added here and in netdev.c. */
enum net_kind { NET_USER, NET_NONE, NET_DGRAM, NET_TAP };

struct profile {
	char name[64];
	int smp;
	char mem[16];
	enum nic_kind nic;
	enum boot_kind boot;
	enum net_kind net;
	/* `user` only: the slirp network of NIC slot N ("" = QEMU's
	 * 10.0.2.0/24), so two NICs can sit on different subnets. */
	char subnet[2][20];
	/* QEMU record/replay (`rr record|replay`, `rrfile PATH`): the whole
	 * run, input and network included, recorded to or replayed from
	 * rrfile, instruction by instruction (one CPU only). */
	char rr[8];
	char rrfile[256];
};

void profile_defaults(struct profile *p, const char *name);

/*
 * Apply one `key value` setting.  Returns 0, or -1 with a message in err
 * (no file or line: the caller knows where the setting came from).
 */
int profile_set(struct profile *p, const char *key, const char *value,
                char *err, size_t errlen);

/* Parse profile text; errors read "FILE:LINE: problem". */
int profile_parse(struct profile *p, const char *file, const char *text,
                  char *err, size_t errlen);

/* Load DIR/NAME.profile (or NAME itself if it contains a '/'). */
int profile_load(struct profile *p, const char *dir, const char *name,
                 char *err, size_t errlen);

const char *nic_name(enum nic_kind k);
const char *boot_name(enum boot_kind k);
const char *net_name(enum net_kind k);

#endif
