/* A new directory nobody gave a layer: reported, not skipped. */
#include <net/core/netdevice.h>
