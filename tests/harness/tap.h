/*
 * The `tap` network backend: each NIC on a tap device whose other end is
 * in a network namespace the run creates and deletes, so the namespace's
 * own Linux stack is the guest's peer and no frame leaves it.
 *
 * Run N (the lowest index free on the machine, chosen under a lock so
 * parallel harnesses never collide) owns namespace modref-tapN and, per
 * NIC slot s (0 e1000, 1 virtio-net), tap mrtapN-s with subnet
 * 10.77.N.0/24 (slot 0) or 10.78.N.0/24 (slot 1): the peer is .1, the
 * guest .2.  The taps are opened by the harness (no IFF_VNET_HDR) and
 * handed to QEMU as fd=; they vanish when the last descriptor closes.
 * A namespace whose owning run died (its owner file names a process that
 * is gone) is deleted by the next run that sets one up.
 */
#ifndef HARNESS_TAP_H
#define HARNESS_TAP_H

#include <stdbool.h>
#include <stddef.h>

#define TAP_STATE_DIR "/run/modref-tap"

struct tapnet {
	int index; /* -1: none set up */
	char ns[32];
	char ifname[2][16];
	char peer[2][16], guest[2][16];
	int fd[2]; /* -1 for a slot without a NIC */
};

/* Names and addresses of run index n (pure; unit-tested). */
void tap_names(struct tapnet *t, int n);

/*
 * Create the namespace and a tap for each wanted slot, configured and up.
 * Returns 0, or -1 with the reason in err and nothing left behind.
 */
int tap_setup(struct tapnet *t, const bool want[2], char *err, size_t errlen);

/* Kill what runs in the namespace, close the taps, delete it all. */
void tap_teardown(struct tapnet *t);

/* The same from a signal handler (fork + exec only). */
void tap_teardown_signal(void);

#endif
